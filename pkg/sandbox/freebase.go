package sandbox

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// FreeBase finds a base port for a sandbox of n clusters, for tests and
// benchmarks that run several sandboxes at once: bases are multiples of a
// slot wider than PortSpan, between 22000 and the kernel's ephemeral range
// (32768 and up, where client connections would take ports from under the
// clusters), so two sandboxes never share a port, and every port of the
// chosen slot is free now.
//
// The slot stays reserved for the calling process until it exits (an
// exclusive lock on a file per slot under the temporary directory):
// processes started at the same moment, which would all see the same
// ports free, never pick the same slot.
func FreeBase(n int) (int, error) {
	const lo, slot = 22000, 400
	slots := (32768 - PortSpan - lo) / slot
	for _, i := range rand.Perm(slots) {
		base := lo + i*slot
		plans, err := Plan(n, base)
		if err != nil {
			return 0, err
		}
		reserved, err := reserveSlot(base)
		if err != nil {
			return 0, err
		}
		if !reserved {
			continue
		}
		if portsFree(Ports(plans)) {
			return base, nil
		}
		releaseSlot(base)
	}
	return 0, fmt.Errorf("no free range of %d ports found between %d and 32768 for %d clusters", PortSpan, lo, n)
}

var (
	slotsMu sync.Mutex
	slots   = map[int]*os.File{} // the lock files this process holds, by base
)

// reserveSlot takes the lock of a slot; false when another process (or
// this one) holds it.
func reserveSlot(base int) (bool, error) {
	slotsMu.Lock()
	defer slotsMu.Unlock()
	if slots[base] != nil {
		return false, nil
	}
	dir := filepath.Join(os.TempDir(), "antreaplus-port-slots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("reserving a port slot: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(base)+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return false, fmt.Errorf("reserving a port slot: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, nil
		}
		return false, fmt.Errorf("reserving a port slot: %w", err)
	}
	slots[base] = f // held until the process exits
	return true, nil
}

func releaseSlot(base int) {
	slotsMu.Lock()
	defer slotsMu.Unlock()
	if f := slots[base]; f != nil {
		_ = f.Close()
		delete(slots, base)
	}
}

func portsFree(ports []int) bool {
	for _, port := range ports {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return false
		}
		_ = l.Close()
	}
	return true
}
