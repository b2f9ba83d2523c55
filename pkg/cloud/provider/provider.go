package provider

import (
	"context"
	"errors"
)

// Provider reads the inventory of one cloud account. Implementations are
// safe for concurrent use; each call does its own paging and retries and
// honours ctx.
type Provider interface {
	// Inventory returns everything the account can see in region: VPCs
	// (VNets), VMs with their network interfaces, and cloud-native
	// services. The snapshot is complete (every page was read) or an error
	// is returned; a partial snapshot is never returned.
	Inventory(ctx context.Context, region string) (*Snapshot, error)

	// SyncSecurityGroups makes the managed security groups of one VPC in
	// region, and their attachments to network interfaces, what spec says,
	// with the fewest writes: nothing is written when the cloud already
	// matches. Parts the cloud cannot hold are reported in the result, not
	// dropped silently. A provider without agentless enforcement returns
	// ErrNotSupported.
	SyncSecurityGroups(ctx context.Context, region string, spec SecurityGroupSpec) (SyncResult, error)
}

// Errors that plugins wrap so callers can tell the cause with errors.Is.
var (
	// ErrAuthentication: the cloud refused the credentials.
	ErrAuthentication = errors.New("cloud refused the credentials")
	// ErrRegionUnavailable: the region does not exist or is not enabled for
	// the account.
	ErrRegionUnavailable = errors.New("region unavailable")
	// ErrThrottled: the cloud kept throttling after every retry.
	ErrThrottled = errors.New("throttled by the cloud")
)

// MostTelling returns the error that says most about why reads failed: a
// refusal of the credentials, then an unavailable region, throttling,
// anything but a cancellation, a cancellation; the first of its class, so
// that the same failures are told the same way whatever order they came
// in.
func MostTelling(errs []error) error {
	rank := func(err error) int {
		switch {
		case errors.Is(err, ErrAuthentication):
			return 0
		case errors.Is(err, ErrRegionUnavailable):
			return 1
		case errors.Is(err, ErrThrottled):
			return 2
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			return 4
		}
		return 3
	}
	var best error
	for _, err := range errs {
		if err != nil && (best == nil || rank(err) < rank(best)) {
			best = err
		}
	}
	return best
}
