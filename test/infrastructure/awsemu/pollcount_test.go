package awsemu_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	cloudaws "antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
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
// request, as a transport of the cloud controller could; SigV4 does not
// sign the User-Agent.
type replicaUA struct {
	id   string
	next http.RoundTripper
}

func (t replicaUA) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	out.Header.Set("User-Agent", req.Header.Get("User-Agent")+" "+pollstats.ReplicaProduct+"/"+t.id)
	return t.next.RoundTrip(out)
}

// Two replicas read one account whose role they assume, through the real
// provider: while their polls alternate within the gap every call of one
// in the other's window is an overlap; once they poll apart, none is.
func TestPollStatsOfReplicas(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	emu := awsemu.New(awsemu.Options{
		Credentials: []awsemu.Credential{{AccessKeyID: testKeyID, SecretAccessKey: testSecret}},
		Roles:       []awsemu.Role{{ARN: testRole}},
		PollGap:     2 * time.Second,
		PollClock:   clk.Now,
	})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	mustVPC(t, emu, awsemu.VPCSpec{})
	replica := func(id string) *cloudaws.Provider {
		t.Helper()
		p, err := cloudaws.New(cloudaws.Options{
			AccessKeyID: testKeyID, SecretAccessKey: testSecret, Endpoint: srv.URL, MaxAttempts: 1,
			AssumeRole: &cloudaws.AssumeRole{RoleARN: testRole},
			HTTPClient: &http.Client{Transport: cloudaws.BufferRequestBodies(replicaUA{id, http.DefaultTransport})},
		})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := replica("cc-a"), replica("cc-b")
	poll := func(p *cloudaws.Provider) {
		t.Helper()
		if _, err := p.Inventory(t.Context(), testRegion); err != nil {
			t.Fatal(err)
		}
	}
	account := awsemu.AssumedRoleAccount(testKeyID, testRole)
	stats := func() pollstats.AccountStats {
		s, err := pollstats.Fetch(t.Context(), srv.Client(), srv.URL) // the admin API
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s, emu.PollStats()) {
			t.Errorf("admin API %+v; PollStats %+v", s, emu.PollStats())
		}
		return s.Accounts[account]
	}

	poll(a)
	clk.Advance(time.Second)
	poll(b)
	got := stats()
	perPoll := got.Calls["cc-a"]
	if perPoll < 5 || got.Calls["cc-b"] != perPoll || got.Windows["cc-a"] != 1 || got.Windows["cc-b"] != 1 {
		t.Fatalf("calls %v, windows %v; want as many calls of each, one window each", got.Calls, got.Windows)
	}
	if got.OverlapCount != perPoll || got.Overlaps[0].Callers != [2]string{"cc-b", "cc-a"} || got.Overlaps[0].Region != testRegion {
		t.Errorf("overlaps %d %+v; want every call of cc-b in the window of cc-a", got.OverlapCount, got.Overlaps)
	}
	// AssumeRole is signed with the long-term key: another account, and
	// no window.
	if k := emu.PollStats().Accounts[testKeyID]; !reflect.DeepEqual(k.Calls, map[string]int{"cc-a": 1, "cc-b": 1}) || len(k.Windows) != 0 {
		t.Errorf("long-term key: %+v", k)
	}

	if err := pollstats.Reset(t.Context(), srv.Client(), srv.URL); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*cloudaws.Provider{a, b, a} {
		clk.Advance(10 * time.Second)
		poll(p)
	}
	got = stats()
	if got.OverlapCount != 0 || !reflect.DeepEqual(got.Windows, map[string]int{"cc-a": 2, "cc-b": 1}) ||
		!reflect.DeepEqual(got.RegionWindows, map[string]map[string]int{testRegion: {"cc-a": 2, "cc-b": 1}}) {
		t.Errorf("polls 10s apart: %+v; want 3 windows, no overlap", got)
	}
}

// The ways a client of the AWS SDK can name its replica, and none.
func TestPollStatsCallers(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	emu := awsemu.New(awsemu.Options{
		Credentials: []awsemu.Credential{{AccessKeyID: testKeyID, SecretAccessKey: testSecret}, {AccessKeyID: "AKIDOTHER", SecretAccessKey: testSecret}},
		PollClock:   clk.Now,
	})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	client := func(keyID string, opt func(*ec2.Options)) *ec2.Client {
		return ec2.New(ec2.Options{
			Region: testRegion, BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1, HTTPClient: cloudaws.NewHTTPClient(),
			Credentials: credentials.NewStaticCredentialsProvider(keyID, testSecret, ""),
		}, opt)
	}
	byMiddleware := client(testKeyID, func(o *ec2.Options) {
		o.APIOptions = append(o.APIOptions, awsmiddleware.AddUserAgentKeyValue(pollstats.ReplicaProduct, "cc-0"))
	})
	byAppID := client(testKeyID, func(o *ec2.Options) { o.AppID = pollstats.ReplicaProduct + "/cc-1" })
	plain := client(testKeyID, func(*ec2.Options) {})
	other := client("AKIDOTHER", func(o *ec2.Options) {
		o.APIOptions = append(o.APIOptions, awsmiddleware.AddUserAgentKeyValue(pollstats.ReplicaProduct, "cc-0"))
	})
	bad := client(testKeyID, func(o *ec2.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider(testKeyID, "wrong", "")
	})
	for _, c := range []*ec2.Client{byMiddleware, byAppID, plain, other} {
		if _, err := c.DescribeVpcs(t.Context(), &ec2.DescribeVpcsInput{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := bad.DescribeVpcs(t.Context(), &ec2.DescribeVpcsInput{}); err == nil {
		t.Fatal("a bad signature was accepted")
	}
	s := emu.PollStats()
	if len(s.Accounts) != 2 {
		t.Errorf("accounts %v; want the two keys, not the refused call's", s.Accounts)
	}
	got := s.Accounts[testKeyID]
	if want := map[string]int{"cc-0": 1, "cc-1": 1, pollstats.Unknown: 1}; !reflect.DeepEqual(got.Calls, want) {
		t.Errorf("calls %v; want %v", got.Calls, want)
	}
	// cc-1 came in the window of cc-0, the unknown caller in both.
	if got.OverlapCount != 3 || s.Accounts["AKIDOTHER"].OverlapCount != 0 {
		t.Errorf("overlaps %+v; other account %+v", got.Overlaps, s.Accounts["AKIDOTHER"])
	}
	emu.ResetPollStats()
	if s := emu.PollStats(); len(s.Accounts) != 0 {
		t.Errorf("after ResetPollStats: %+v", s)
	}
}
