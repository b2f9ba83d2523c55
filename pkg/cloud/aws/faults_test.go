package aws_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

func TestThrottlingIsRetried(t *testing.T) {
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusBadRequest} {
		t.Run(fmt.Sprintf("HTTP %d", status), func(t *testing.T) {
			f := newFixture(t, 1)
			f.addVMs(t, 10, awsemu.InstanceSpec{})
			// At HTTP 400 only the RequestLimitExceeded code makes the
			// call retryable.
			f.emu.InjectFault(awsemu.Fault{Action: "DescribeInstances", Times: 3, Code: "RequestLimitExceeded", Message: "Request limit exceeded.", Status: status})
			snap, err := f.provider(t, nil).Inventory(t.Context(), region)
			if err != nil {
				t.Fatalf("3 throttled calls then success: %v", err)
			}
			if len(snap.VMs) != 10 {
				t.Errorf("%d VMs; want 10", len(snap.VMs))
			}
			if got := f.emu.Calls("DescribeInstances"); got != 4 {
				t.Errorf("DescribeInstances calls = %d; want 3 throttled + 1", got)
			}
		})
	}
}

func TestThrottlingOutlastsRetries(t *testing.T) {
	f := newFixture(t, 1)
	f.emu.Throttle("DescribeInstances", -1)
	_, err := f.provider(t, func(o *aws.Options) { o.MaxAttempts = 4 }).Inventory(t.Context(), region)
	if !errors.Is(err, provider.ErrThrottled) || !strings.Contains(err.Error(), "RequestLimitExceeded") {
		t.Fatalf("error = %v; want ErrThrottled with the cloud's code", err)
	}
	if got := f.emu.Calls("DescribeInstances"); got != 4 {
		t.Errorf("DescribeInstances calls = %d; want MaxAttempts (4)", got)
	}
	// Throttling over: the next poll succeeds.
	f.emu.ClearFaults()
	if _, err := f.provider(t, nil).Inventory(t.Context(), region); err != nil {
		t.Errorf("after throttling: %v", err)
	}
}

func TestBadCredentials(t *testing.T) {
	f := newFixture(t, 1)
	for _, tc := range []struct{ name, keyID, secret string }{
		{"wrong secret", keyID, "wrong-secret-value"},
		{"unknown key", "AKIAUNKNOWN", secret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.emu.ResetCalls()
			p := f.provider(t, func(o *aws.Options) { o.AccessKeyID, o.SecretAccessKey = tc.keyID, tc.secret })
			_, err := p.Inventory(t.Context(), region)
			if !errors.Is(err, provider.ErrAuthentication) || errors.Is(err, provider.ErrRegionUnavailable) {
				t.Fatalf("error = %v; want ErrAuthentication", err)
			}
			// EC2's refusal is told, not that of ELBv2 or RDS.
			if !strings.Contains(err.Error(), "DescribeVpcs") || !strings.Contains(err.Error(), "AuthFailure") || strings.Contains(err.Error(), tc.secret) {
				t.Errorf("error %q must carry the cloud's code and never the secret", err)
			}
			if got := f.emu.TotalCalls(); got < 1 || got > describes {
				t.Errorf("calls = %d; want at most one per describe: an auth failure is not retried", got)
			}
		})
	}
	t.Run("revoked mid-life", func(t *testing.T) {
		p := f.provider(t, nil)
		f.emu.FailAuth(-1)
		defer f.emu.ClearFaults()
		if _, err := p.Inventory(t.Context(), region); !errors.Is(err, provider.ErrAuthentication) {
			t.Fatalf("error = %v; want ErrAuthentication", err)
		}
	})
}

func TestSessionToken(t *testing.T) {
	emu := awsemu.New(awsemu.Options{Credentials: []awsemu.Credential{{AccessKeyID: "ASIATEMP", SecretAccessKey: "s", SessionToken: "tok"}}})
	f := newFixture(t, 0)
	f.emu = emu
	srv := newServer(t, emu)
	for _, tc := range []struct {
		token string
		ok    bool
	}{{"tok", true}, {"", false}, {"other", false}} {
		p, err := aws.New(aws.Options{AccessKeyID: "ASIATEMP", SecretAccessKey: "s", SessionToken: tc.token, Endpoint: srv, MaxBackoff: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Inventory(t.Context(), region)
		if (err == nil) != tc.ok {
			t.Errorf("session token %q: error %v; want ok=%v", tc.token, err, tc.ok)
		}
	}
}

func TestUnknownRegion(t *testing.T) {
	f := newFixture(t, 1)
	p := f.provider(t, nil)
	for _, r := range []string{"mars-north-1", "US East", ""} {
		_, err := p.Inventory(t.Context(), r)
		if !errors.Is(err, provider.ErrRegionUnavailable) || errors.Is(err, provider.ErrAuthentication) {
			t.Errorf("region %q: error %v; want only ErrRegionUnavailable", r, err)
		}
	}
	if got := f.emu.TotalCalls(); got < 1 || got > describes {
		t.Errorf("calls = %d; want at most one per describe for mars-north-1 and none for malformed codes", got)
	}
}

func TestContextCancellation(t *testing.T) {
	f := newFixture(t, 1)
	f.addVMs(t, 20, awsemu.InstanceSpec{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	f.emu.OnCall(func(action string) {
		if action == "DescribeInstances" {
			cancel()
		}
	})
	f.emu.SetLatency(50 * time.Millisecond)
	start := time.Now()
	_, err := f.provider(t, nil).Inventory(ctx, region)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v; want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancelled inventory took %s", d)
	}
}

func TestThrottlingOnOneDescribeCancelsNothingElse(t *testing.T) {
	f := newFixture(t, 2)
	f.addVMs(t, 4, awsemu.InstanceSpec{})
	f.emu.Throttle("", 2) // whichever describes come first
	snap, err := f.provider(t, nil).Inventory(t.Context(), region)
	if err != nil || len(snap.VMs) != 4 || len(snap.VPCs) != 2 {
		t.Fatalf("snapshot %+v, %v; want 4 VMs in 2 VPCs after retries", snap, err)
	}
}

func TestOptionsNeverPrintSecrets(t *testing.T) {
	o := aws.Options{AccessKeyID: "AKIAABCDEFGHIJKLMNOP", SecretAccessKey: secret, SessionToken: "session-token-value"}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(format, o)
		if strings.Contains(out, secret) || strings.Contains(out, "session-token-value") || strings.Contains(out, "ABCDEFGHIJ") {
			t.Errorf("%s printed %s", format, out)
		}
	}
	if _, err := aws.New(aws.Options{AccessKeyID: "x"}); err == nil {
		t.Error("New without a secret succeeded")
	}
	if _, err := aws.New(aws.Options{AccessKeyID: "x", SecretAccessKey: "y", PageSize: 2000}); err == nil {
		t.Error("New with page size 2000 succeeded")
	}
}

// describes is how many reads a poll makes: VPCs, instances, interfaces,
// load balancers, DB instances, DB clusters, NAT gateways, route tables,
// peerings and transit gateway attachments.
const describes = 10

// TestFaultsClassifiedTheSameWayEveryTime: a service answering a refusal
// the SDK cannot read (HTTP 403 with a proxy's page) is a refusal of the
// credentials, reported on that kind alone, with the same message at
// every poll; a refusal from any service wins over another failure.
func TestFaultsClassifiedTheSameWayEveryTime(t *testing.T) {
	f := newFixture(t, 1)
	f.addVMs(t, 2, awsemu.InstanceSpec{})
	p := f.provider(t, nil)
	proxy := awsemu.Fault{Action: "DescribeDBInstances", Times: -1, Status: http.StatusForbidden, Body: "<html><body>Access denied by proxy</body></html>"}
	f.emu.InjectFault(proxy)
	var messages []string
	for range 5 {
		snap, err := p.Inventory(t.Context(), region)
		if err != nil || len(snap.VMs) != 2 || !snap.FailedKind(provider.AWSRDS) || snap.FailedKind(provider.AWSLoadBalancer) {
			t.Fatalf("poll: %v, %+v; want the VMs and the databases reported failed", err, snap)
		}
		if !errors.Is(snap.Failed[0].Err, provider.ErrAuthentication) {
			t.Fatalf("failure %v; want ErrAuthentication", snap.Failed[0].Err)
		}
		messages = append(messages, snap.Failed[0].Err.Error())
	}
	if len(slices.Compact(slices.Clone(messages))) != 1 {
		t.Errorf("messages change from poll to poll: %q", messages)
	}
	// EC2 fails too, not with a refusal: the refusal is told.
	f.emu.InjectFault(awsemu.Fault{Action: "DescribeInstances", Times: -1, Status: http.StatusInternalServerError, Code: "InternalError", Message: "boom"})
	for range 3 {
		_, err := p.Inventory(t.Context(), region)
		if !errors.Is(err, provider.ErrAuthentication) || !strings.Contains(err.Error(), "DescribeDBInstances") {
			t.Fatalf("error %v; want the databases' refusal", err)
		}
	}
}
