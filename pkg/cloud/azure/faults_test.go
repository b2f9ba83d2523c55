package azure_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/cloud/azure"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

func TestThrottlingIsRetried(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	f.addVMs(t, 5, azureemu.VMSpec{})
	f.emu.Throttle("VirtualMachines.ListAll", 3, 5*time.Millisecond)
	snap, err := f.provider(t, nil).Inventory(t.Context(), region)
	if err != nil {
		t.Fatalf("3 throttled calls then success: %v", err)
	}
	if len(snap.VMs) != 5 {
		t.Errorf("%d VMs; want 5", len(snap.VMs))
	}
	if got := f.emu.Calls("VirtualMachines.ListAll"); got != 4 {
		t.Errorf("VM list calls = %d; want 3 throttled + 1", got)
	}
}

func TestThrottlingOutlastsRetries(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	f.emu.Throttle("VirtualMachines.ListAll", -1, 2*time.Millisecond)
	_, err := f.provider(t, func(o *azure.Options) { o.MaxRetries = 2 }).Inventory(t.Context(), region)
	if !errors.Is(err, provider.ErrThrottled) || !strings.Contains(err.Error(), "TooManyRequests") {
		t.Fatalf("error = %v; want ErrThrottled with the cloud's code", err)
	}
	if got := f.emu.Calls("VirtualMachines.ListAll"); got != 3 {
		t.Errorf("VM list calls = %d; want 1 + MaxRetries (2)", got)
	}
}

func TestRetryAfterBeyondTheCapIsNotWaitedFor(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	f.emu.Throttle("VirtualMachines.ListAll", 1, time.Hour)
	start := time.Now()
	_, err := f.provider(t, nil).Inventory(t.Context(), region)
	if !errors.Is(err, provider.ErrThrottled) || time.Since(start) > 5*time.Second {
		t.Fatalf("error = %v after %s; want ErrThrottled at once", err, time.Since(start))
	}
}

func TestBadCredentials(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	for _, tc := range []struct {
		name   string
		change func(*azure.Options)
		want   string
	}{
		{"wrong secret", func(o *azure.Options) { o.ClientSecret = "wrong-secret-value" }, "AADSTS7000215"},
		{"unknown client", func(o *azure.Options) { o.ClientID = "nobody" }, "AADSTS700016"},
		{"unknown tenant", func(o *azure.Options) { o.TenantID = "00000000-0000-0000-0000-0000000000ff" }, "AADSTS90002"},
		{"unknown subscription", func(o *azure.Options) { o.SubscriptionID = "00000000-0000-0000-0000-0000000000ee" }, "SubscriptionNotFound"},
		{"token not issued here", func(o *azure.Options) { o.Credential = azure.StaticToken("forged") }, "InvalidAuthenticationToken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.provider(t, tc.change).Inventory(t.Context(), region)
			if !errors.Is(err, provider.ErrAuthentication) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v; want ErrAuthentication with %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "wrong-secret-value") || strings.Contains(err.Error(), secret) {
				t.Errorf("error shows a secret: %v", err)
			}
		})
	}
	t.Run("token revoked mid-life", func(t *testing.T) {
		p := f.provider(t, nil)
		if _, err := p.Inventory(t.Context(), region); err != nil {
			t.Fatal(err)
		}
		f.emu.RevokeTokens()
		if _, err := p.Inventory(t.Context(), region); !errors.Is(err, provider.ErrAuthentication) {
			t.Fatalf("error = %v; want ErrAuthentication", err)
		}
	})
}

func TestStaticTokenCredential(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{StaticTokens: []string{"static-token"}})
	f.addVMs(t, 2, azureemu.VMSpec{})
	snap, err := f.provider(t, func(o *azure.Options) { o.Credential = azure.StaticToken("static-token") }).Inventory(t.Context(), region)
	if err != nil || len(snap.VMs) != 2 {
		t.Fatalf("%v, %v", snap, err)
	}
	if f.emu.Calls("Token") != 0 {
		t.Error("a static token credential asked for a token")
	}
}

func TestUnknownRegion(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	p := f.provider(t, nil)
	_, err := p.Inventory(t.Context(), "marsnorth")
	if !errors.Is(err, provider.ErrRegionUnavailable) {
		t.Fatalf("error = %v; want ErrRegionUnavailable", err)
	}
	if f.emu.Calls("VirtualMachines.ListAll") != 0 {
		t.Error("listed VMs for a location that does not exist")
	}
	if _, err := p.Inventory(t.Context(), "East US"); err != nil {
		t.Errorf("display-style name of a real location: %v", err)
	}
}

func TestContextCancellation(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	f.emu.OnCall(func(op string) {
		if op == "VirtualMachines.ListAll" {
			cancel()
		}
	})
	f.emu.SetLatency(20 * time.Millisecond)
	_, err := f.provider(t, nil).Inventory(ctx, region)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v; want context.Canceled", err)
	}
}

func TestOptionsNeverPrintSecrets(t *testing.T) {
	o := azure.Options{SubscriptionID: "s", TenantID: "t", ClientID: "c", ClientSecret: secret}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(format, o); strings.Contains(out, secret) {
			t.Errorf("%s printed %s", format, out)
		}
	}
	if _, err := azure.New(azure.Options{SubscriptionID: "s", TenantID: "t", ClientID: "c"}); err == nil {
		t.Error("New without a secret or credential succeeded")
	}
}

func TestSyncSecurityGroupsBadInput(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	p := f.provider(t, nil)
	for _, spec := range []provider.SecurityGroupSpec{
		{VPCID: f.vnets[0], Prefix: "bad prefix "},
		{VPCID: f.vnets[0]},
		{VPCID: "vnet-0", Prefix: "antreaplus-"},
	} {
		if _, err := p.SyncSecurityGroups(t.Context(), region, spec); err == nil {
			t.Errorf("spec %+v: no error", spec)
		}
	}
	if f.emu.TotalCalls() != 0 {
		t.Error("a sync of a bad spec called the cloud")
	}
}

// TestLoadBalancersFailingAlone: a refusal of the load balancers' list
// alone leaves them out, reported, and the VMs are read; a refusal of any
// list wins over another failure of the VMs' lists.
func TestLoadBalancersFailingAlone(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	f.addVMs(t, 2, azureemu.VMSpec{})
	p := f.provider(t, func(o *azure.Options) { o.MaxRetries = 0 })
	f.emu.InjectFault(azureemu.Fault{Op: "LoadBalancers.ListAll", Times: -1, Status: 403, Code: "AuthorizationFailed",
		Message: "The client does not have authorization to perform action 'Microsoft.Network/loadBalancers/read'"})
	snap, err := p.Inventory(t.Context(), region)
	if err != nil || len(snap.VMs) != 2 || !snap.FailedKind(provider.AzureLoadBalancer) || !errors.Is(snap.Failed[0].Err, provider.ErrAuthentication) {
		t.Fatalf("%+v, %v; want the VMs and the load balancers reported refused", snap, err)
	}
	f.emu.InjectFault(azureemu.Fault{Op: "VirtualMachines.ListAll", Times: -1, Status: 500, Code: "InternalServerError", Message: "boom"})
	if _, err := p.Inventory(t.Context(), region); !errors.Is(err, provider.ErrAuthentication) || !strings.Contains(err.Error(), "load balancers") {
		t.Fatalf("error %v; want the load balancers' refusal, whichever answered first", err)
	}
}
