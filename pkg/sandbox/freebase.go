package sandbox

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
)

// FreeBase finds a base port for a sandbox of n clusters, for tests and
// benchmarks that run several sandboxes at once: bases are multiples of a
// slot wider than PortSpan, between 22000 and the kernel's ephemeral range
// (32768 and up, where client connections would take ports from under the
// clusters), so two sandboxes never share a port, and every port of the
// chosen slot is free now.
func FreeBase(n int) (int, error) {
	const lo, slot = 22000, 400
	slots := (32768 - PortSpan - lo) / slot
	for _, i := range rand.Perm(slots) {
		base := lo + i*slot
		plans, err := Plan(n, base)
		if err != nil {
			return 0, err
		}
		if portsFree(Ports(plans)) {
			return base, nil
		}
	}
	return 0, fmt.Errorf("no free range of %d ports found between %d and 32768 for %d clusters", PortSpan, lo, n)
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
