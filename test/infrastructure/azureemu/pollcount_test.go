package azureemu_test

import (
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"antreaplus.io/antreaplus/pkg/cloud/azure"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
	"antreaplus.io/antreaplus/test/infrastructure/pollstats"
)

// fakeClock is the emulator's poll clock, moved by the test.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// replicaUA appends antreaplus-replica/<id> to the User-Agent of every
// request, as a transport of the cloud controller could.
type replicaUA struct {
	id   string
	next http.RoundTripper
}

func (t replicaUA) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	out.Header.Set("User-Agent", req.Header.Get("User-Agent")+" "+pollstats.ReplicaProduct+"/"+t.id)
	return t.next.RoundTrip(out)
}

// Two replicas read one subscription as one service principal through the
// real provider: polls within the gap overlap, polls apart do not.
func TestPollStatsOfReplicas(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	e := newEnv(t, azureemu.Options{PollGap: 2 * time.Second, PollClock: clk.Now})
	if _, err := e.emu.AddVNet(azureemu.VNetSpec{Location: "eastus", Name: "prod"}); err != nil {
		t.Fatal(err)
	}
	replica := func(id string) *azure.Provider {
		t.Helper()
		p, err := azure.New(azure.Options{
			SubscriptionID: e.emu.SubscriptionID(), TenantID: e.emu.TenantID(), ClientID: "app", ClientSecret: "s3cret",
			Endpoint: e.srv.URL, AuthorityHost: e.srv.URL, MaxRetries: -1,
			Transport: &http.Client{Transport: replicaUA{id, e.srv.Client().Transport}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := replica("cc-a"), replica("cc-b")
	poll := func(p *azure.Provider) {
		t.Helper()
		if _, err := p.Inventory(t.Context(), "eastus"); err != nil {
			t.Fatal(err)
		}
	}
	stats := func() pollstats.AccountStats {
		s, err := pollstats.Fetch(t.Context(), e.srv.Client(), e.srv.URL) // the admin API
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s, e.emu.PollStats()) {
			t.Errorf("admin API %+v; PollStats %+v", s, e.emu.PollStats())
		}
		return s.Accounts["app"]
	}

	poll(a)
	clk.Advance(time.Second)
	poll(b)
	got := stats()
	// Each replica: one token request, then the lists.
	if got.Calls["cc-a"] < 6 || got.Calls["cc-b"] != got.Calls["cc-a"] || got.Windows["cc-a"] != 1 || got.Windows["cc-b"] != 1 {
		t.Fatalf("calls %v, windows %v; want as many calls of each, one window each", got.Calls, got.Windows)
	}
	if got.OverlapCount != got.Calls["cc-b"] || got.Overlaps[0].Callers != [2]string{"cc-b", "cc-a"} || got.Overlaps[0].Op != "Token" {
		t.Errorf("overlaps %d %+v; want every call of cc-b, its token request first, in the window of cc-a", got.OverlapCount, got.Overlaps)
	}
	if sub := e.emu.SubscriptionID(); !reflect.DeepEqual(got.RegionWindows, map[string]map[string]int{sub: {"cc-a": 1, "cc-b": 1}}) {
		t.Errorf("windows per subscription: %v", got.RegionWindows)
	}

	e.emu.ResetPollStats()
	for _, p := range []*azure.Provider{a, b, a} {
		clk.Advance(10 * time.Second)
		poll(p)
	}
	got = stats()
	if got.OverlapCount != 0 || !reflect.DeepEqual(got.Windows, map[string]int{"cc-a": 2, "cc-b": 1}) {
		t.Errorf("polls 10s apart: %+v; want 3 windows, no overlap", got)
	}
}

// The ways a client of the Azure SDK can name its replica, and none.
func TestPollStatsCallers(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	e := newEnv(t, azureemu.Options{PollClock: clk.Now})
	list := func(opts policy.ClientOptions) {
		t.Helper()
		opts.Cloud = cloud.Configuration{Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: e.srv.URL, Audience: e.srv.URL},
		}}
		opts.Transport = e.srv.Client()
		c, err := armnetwork.NewVirtualNetworksClient(e.emu.SubscriptionID(), azure.StaticToken("tok"), &arm.ClientOptions{ClientOptions: opts})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.NewListAllPager(nil).NextPage(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	list(policy.ClientOptions{PerCallPolicies: []policy.Policy{appendUA(pollstats.ReplicaProduct + "/antreaplus-cloud-controller-7d9f8b6c5-x2k4p")}})
	list(policy.ClientOptions{Telemetry: policy.TelemetryOptions{ApplicationID: pollstats.ReplicaProduct + "/cc-1"}})
	// azcore cuts an ApplicationID to 24 characters: 5 for the replica.
	list(policy.ClientOptions{Telemetry: policy.TelemetryOptions{ApplicationID: pollstats.ReplicaProduct + "/antreaplus-cloud-controller-0"}})
	list(policy.ClientOptions{})
	if status, _, _ := e.get(t, e.subPath("/providers/Microsoft.Network/virtualNetworks?api-version=2025-01-01"), "forged"); status != http.StatusUnauthorized {
		t.Fatalf("a forged token: %d", status)
	}

	s := e.emu.PollStats()
	if len(s.Accounts) != 1 {
		t.Errorf("accounts %v; want the static token's only", s.Accounts)
	}
	got := s.Accounts[azureemu.StaticTokenAccount(0)]
	want := map[string]int{"antreaplus-cloud-controller-7d9f8b6c5-x2k4p": 1, "cc-1": 1, "antre": 1, pollstats.Unknown: 1}
	if !reflect.DeepEqual(got.Calls, want) {
		t.Errorf("calls %v; want %v", got.Calls, want)
	}
	if got.OverlapCount != 0+1+2+3 {
		t.Errorf("overlaps %+v; want each call in the windows of the callers before", got.Overlaps)
	}
	if err := pollstats.Reset(t.Context(), e.srv.Client(), e.srv.URL); err != nil {
		t.Fatal(err)
	}
	if s := e.emu.PollStats(); len(s.Accounts) != 0 {
		t.Errorf("after the reset: %+v", s)
	}
}

// appendUA is a per-call policy that appends token to the User-Agent.
type appendUA string

func (p appendUA) Do(req *policy.Request) (*http.Response, error) {
	raw := req.Raw()
	raw.Header.Set("User-Agent", raw.Header.Get("User-Agent")+" "+string(p))
	return req.Next()
}
