package dnsforward

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
)

// ReadFile reads a resolver file; a file that does not exist reads as
// empty.
func ReadFile(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the resolver file: %w", err)
	}
	return raw, nil
}

// WriteInPlace replaces the content of a resolver file without replacing
// the file: the same inode, so that a bind mount of it (ip netns exec
// mounts /etc/netns/<ns>/resolv.conf over /etc/resolv.conf) or a symbolic
// link to it stays what the resolver reads. It creates a missing file.
func WriteInPlace(path string, content []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("writing the resolver file: %w", err)
	}
	if _, err := f.Write(content); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing the resolver file %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("syncing the resolver file %s: %w", path, err)
	}
	return f.Close()
}

// Restore writes back the original of a managed resolver file (original
// nil: Unmanage of it) and leaves a file that is not managed as it is.
// It reports whether it wrote.
func Restore(path string, original *string) (bool, error) {
	current, err := ReadFile(path)
	if err != nil {
		return false, err
	}
	plan := PlanResolvConf(current, original, false, netip.Addr{}, nil)
	if plan.Write == nil {
		return false, nil
	}
	return true, WriteInPlace(path, plan.Write)
}
