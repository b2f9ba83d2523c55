package inventorysync

import (
	"time"

	"k8s.io/utils/ptr"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// Options tune the poll loop.
type Options struct {
	// PollIntervalOverride, when set, replaces every account's poll
	// interval, minimum included. For tests and the development sandbox.
	PollIntervalOverride time.Duration
	// MinPollInterval is the shortest interval an account may ask for;
	// default 30s.
	MinPollInterval time.Duration
	// PollTimeout bounds one poll of one region; default 5m.
	PollTimeout time.Duration
	// Workers is how many API writes one poll runs at a time; default 16.
	Workers int
	// Concurrency is how many regions are polled at a time; default 4.
	Concurrency int
}

// maxExtraBackoff caps how much longer than the interval a failing region
// waits.
const maxExtraBackoff = 30 * time.Minute

func (o Options) withDefaults() Options {
	if o.MinPollInterval == 0 {
		o.MinPollInterval = 30 * time.Second
	}
	if o.PollTimeout == 0 {
		o.PollTimeout = 5 * time.Minute
	}
	if o.Workers == 0 {
		o.Workers = 16
	}
	if o.Concurrency == 0 {
		o.Concurrency = 4
	}
	return o
}

// Interval is how often an account is polled.
func (o Options) Interval(acct *cloudv1alpha1.CloudProviderAccount) time.Duration {
	if o.PollIntervalOverride > 0 {
		return o.PollIntervalOverride
	}
	d := time.Duration(ptr.Deref(acct.Spec.PollIntervalSeconds, 60)) * time.Second
	return max(d, o.withDefaults().MinPollInterval)
}

// Backoff is the wait before polling a region again after failures
// consecutive failed polls: 2x, 4x, then 8x the interval.
func Backoff(interval time.Duration, failures int) time.Duration {
	if failures <= 0 {
		return interval
	}
	d := interval << min(failures, 3)
	return min(d, interval+maxExtraBackoff)
}

// Regions are the regions of an account.
func Regions(acct *cloudv1alpha1.CloudProviderAccount) []string {
	switch {
	case acct.Spec.AWS != nil:
		return acct.Spec.AWS.Regions
	case acct.Spec.Azure != nil:
		return acct.Spec.Azure.Regions
	}
	return nil
}
