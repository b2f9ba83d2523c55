package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// profileHeaps writes every manager's heap profile (after a collection:
// what is live) into dir, one file per supervisor.
func profileHeaps(ctx context.Context, addrs map[string]string, dir string) error {
	var errs []error
	for _, sup := range slices.Sorted(maps.Keys(addrs)) {
		base := "http://" + addrs[sup] + "/debug/pprof/"
		// The text form ends with the runtime's MemStats: the heap in use,
		// stacks, what the runtime holds from the OS.
		for file, path := range map[string]string{".heap.pb.gz": "heap?gc=1", ".heap.txt": "heap?debug=1", ".goroutines.txt": "goroutine?debug=1"} {
			if err := download(ctx, base+path, filepath.Join(dir, sup+file), 30*time.Second); err != nil {
				errs = append(errs, fmt.Errorf("profile %s of %s's manager: %w", path, sup, err))
			}
		}
	}
	if len(errs) == 0 && len(addrs) > 0 {
		fmt.Fprintf(os.Stderr, "servicesbench: heap profiles in %s (go tool pprof -sample_index=inuse_space -top FILE)\n", dir)
	}
	return errors.Join(errs...)
}

// profileCPU starts a CPU profile of every manager over d and returns a
// function that waits for them and says what failed.
func profileCPU(ctx context.Context, addrs map[string]string, d time.Duration, dir string) func() error {
	errs := make(chan error, len(addrs))
	for _, sup := range slices.Sorted(maps.Keys(addrs)) {
		url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addrs[sup], int(d.Seconds()))
		go func() {
			if err := download(ctx, url, filepath.Join(dir, sup+".cpu.pb.gz"), d+30*time.Second); err != nil {
				errs <- fmt.Errorf("CPU profile of %s's manager: %w", sup, err)
				return
			}
			errs <- nil
		}()
	}
	return func() error {
		var all []error
		for range addrs {
			all = append(all, <-errs)
		}
		return errors.Join(all...)
	}
}

// download writes what url answers within timeout to path.
func download(ctx context.Context, url, path string, timeout time.Duration) error {
	body, err := get(ctx, url, timeout)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o644)
}
