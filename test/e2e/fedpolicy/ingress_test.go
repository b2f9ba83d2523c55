package fedpolicy

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

// ingressTarget is what ingressPolicy guards.
const ingressTarget = "azure-dev-build-2:8080"

// ingressPolicy, in member-2, lets only AWS's dev-build-1 (exported by
// member-1) reach azure-dev-build-2 on TCP 8080.
func ingressPolicy(name string) *policyv1alpha1.FederatedNetworkPolicy {
	return federatedPolicy(ns, name, appliedToVM(azureAccount, "dev-build-2"),
		allowIn(8080, remoteVM("member-1", "dev-build-1")), dropIn("0.0.0.0/0"))
}

func testIngress(t *testing.T) {
	t.Parallel()
	const name = "build-2-from-aws"
	waitProbe(t, "dev-build-1", ingressTarget, connected, 10*time.Second)
	expectProbe(t, "dev-build-3", ingressTarget, connected)

	create(t, "member-2", ingressPolicy(name))
	waitFNP(t, "member-2", ns, name, 30*time.Second, allOf(realized, resolved("member-1"),
		func(p *policyv1alpha1.FederatedNetworkPolicy) error {
			return conditionIs(p, policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionTrue, "Resolved")
		}))
	waitProbe(t, "dev-build-3", ingressTarget, dropped, 30*time.Second)
	expectProbe(t, "dev-build-1", ingressTarget, connected)

	// The remote VM's addresses are ipBlocks of the derived Group, which
	// the agent of azure-dev-build-2 enforces.
	src := vm(t, "dev-build-1")
	if cidrs := derivedCIDRs(t, "member-2", ns, name); !slices.Contains(cidrs, src.IP+"/32") || slices.Contains(cidrs, vm(t, "dev-build-3").IP+"/32") {
		t.Errorf("the Groups of fnp-%s hold %v, want dev-build-1's %s/32 and not dev-build-3's", name, cidrs, src.IP)
	}
	if rules := nftRules(t, "azure-dev-build-2"); !strings.Contains(rules, src.IP) || !strings.Contains(rules, "fnp-"+name) {
		t.Errorf("the agent of azure-dev-build-2 does not enforce fnp-%s with %s:\n%s", name, src.IP, rules)
	}
	d := federatedDetail(t, policyStatus(t, "member-2", ns, name))
	point := "agent " + ns + "/" + vm(t, "azure-dev-build-2").Object
	if d.Phase != "Realized" || d.DerivedPolicy != "fnp-"+name || len(d.EnforcementPoints) != 1 || d.EnforcementPoints[0].Name != point || !d.EnforcementPoints[0].Realized {
		t.Errorf("policy status %s: phase %s, derived %s, enforcement points %+v; want Realized, fnp-%s, %s realized", name, d.Phase, d.DerivedPolicy, d.EnforcementPoints, name, point)
	}

	// The computed trace agrees with the connections: dev-build-3 dropped
	// by the rule derived from the federated policy, dev-build-1 allowed;
	// and live, the agents see the same: the source's agent sends the
	// flow, the destination's sees the same rule decide the real packet.
	for _, c := range []struct{ from, verdict, action string }{{"dev-build-3", "dropped", "Drop"}, {"dev-build-1", "allowed", "Allow"}} {
		// Computed by the members' policy controllers (Trace objects), and
		// here from everything the members hold (--local): the same.
		var decided [2]struct {
			Trace struct {
				Verdict string `json:"verdict"`
				Steps   []struct {
					Rule *struct {
						Policy string `json:"policy"`
						Index  int32  `json:"index"`
					} `json:"rule"`
					Note string `json:"note"`
				} `json:"steps"`
			} `json:"trace"`
		}
		for i, extra := range []string{"--timeout=60s", "--local"} {
			out := antreaplus(t, "trace", "--from", "member-1:vm/"+c.from, "--to", "member-2:vm/dev-build-2", "--port", "8080", "-o", "json", extra)
			if err := json.Unmarshal([]byte(out), &decided[i]); err != nil || len(decided[i].Trace.Steps) == 0 {
				t.Fatalf("trace -o json %s: %v\n%s", extra, err, out)
			}
		}
		asked, local := decided[0].Trace, decided[1].Trace
		lastAsked, lastLocal := asked.Steps[len(asked.Steps)-1], local.Steps[len(local.Steps)-1]
		if asked.Verdict != c.verdict || asked.Verdict != local.Verdict || lastAsked.Rule == nil || lastLocal.Rule == nil ||
			*lastAsked.Rule != *lastLocal.Rule || !strings.Contains(lastAsked.Note, "decided by the policy controller of member-2") {
			t.Errorf("trace from %s: asked the members %+v, computed here %+v; want both %s by the same rule, the first decided by member-2",
				c.from, asked, local, c.verdict)
		}
		out := antreaplus(t, "trace", "--from", "member-1:vm/"+c.from, "--to", "member-2:vm/dev-build-2", "--port", "8080", "-o", "json", "--timeout", "60s", "--live")
		var got struct {
			Live []struct {
				Member string `json:"member"`
				Point  struct {
					Direction string `json:"direction"`
					Observed  *struct {
						Verdict string `json:"verdict"`
						Rule    string `json:"rule"`
					} `json:"observed"`
					Agrees *bool `json:"agrees"`
				} `json:"point"`
			} `json:"live"`
			Trace struct {
				Verdict string `json:"verdict"`
				Steps   []struct {
					Rule *struct {
						Action    string `json:"action"`
						Federated string `json:"federatedPolicy"`
					} `json:"rule"`
				} `json:"steps"`
			} `json:"trace"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("trace -o json: %v\n%s", err, out)
		}
		last := got.Trace.Steps[len(got.Trace.Steps)-1].Rule
		if got.Trace.Verdict != c.verdict || last == nil || last.Action != c.action || last.Federated != ns+"/"+name {
			t.Errorf("trace from %s: %s", c.from, out)
			t.Errorf("want %s by a %s rule of the policy derived from %s/%s", c.verdict, c.action, ns, name)
		}
		seen := map[string]bool{}
		for _, l := range got.Live {
			p := l.Point
			if p.Observed == nil || p.Agrees == nil || !*p.Agrees {
				t.Errorf("live trace from %s: %s's %s point was not observed agreeing: %s", c.from, l.Member, p.Direction, out)
				continue
			}
			seen[l.Member+" "+p.Direction] = true
			if p.Direction == "Ingress" && (p.Observed.Verdict != strings.ToUpper(c.verdict[:1])+c.verdict[1:] || !strings.Contains(p.Observed.Rule, "fnp-"+name)) {
				t.Errorf("live trace from %s: observed %+v at the destination, want %s by a rule of fnp-%s", c.from, *p.Observed, c.verdict, name)
			}
		}
		if !seen["member-1 Egress"] || !seen["member-2 Ingress"] {
			t.Errorf("live trace from %s observed %v, want member-1's egress and member-2's ingress: %s", c.from, seen, out)
		}
	}

	// The human form, as docs/trace.md shows it.
	out := antreaplus(t, "trace", "--from", "member-1:vm/dev-build-3", "--to", "member-2:vm/dev-build-2", "--port", "8080", "--timeout", "60s", "--live")
	if !strings.Contains(out, "observed: Dropped by") || !strings.Contains(out, "(agrees)") {
		t.Errorf("trace --live does not show the observed verdicts agreeing:\n%s", out)
	}
	t.Logf("antreaplus trace --from member-1:vm/dev-build-3 --to member-2:vm/dev-build-2 --port 8080 --live\n%s", out)

	checkStats(t, name)
	t.Run("address change", testAddressChange)
}

// checkStats checks `antreaplus policy stats` against real connections:
// the federated policy's allow rule counts every connection dev-build-1
// makes, its drop rule dev-build-3's tries, summed from the agent of
// azure-dev-build-2 through the policy controller of member-2.
func checkStats(t *testing.T, name string) {
	t.Helper()
	type stats struct {
		Policies []struct {
			Kind  string `json:"kind"`
			Name  string `json:"name"`
			Rules []struct {
				Action  string `json:"action"`
				Traffic struct {
					Packets, DroppedPackets int64
				} `json:"traffic"`
			} `json:"rules"`
			Members []struct {
				Context string `json:"context"`
			} `json:"members"`
		} `json:"policies"`
	}
	counts := func() (allowed, dropped int64, err error) {
		out, err := antreaplusErr("policy", "stats", name, "-n", ns, "-o", "json", "--timeout", "60s")
		if err != nil {
			return 0, 0, err
		}
		var s stats
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			return 0, 0, fmt.Errorf("policy stats -o json: %w\n%s", err, out)
		}
		if len(s.Policies) != 1 || s.Policies[0].Kind != "FederatedNetworkPolicy" || len(s.Policies[0].Members) != 1 || s.Policies[0].Members[0].Context != "member-2" {
			return 0, 0, fmt.Errorf("policy stats: want the federated policy counted in member-2:\n%s", out)
		}
		for _, r := range s.Policies[0].Rules {
			switch r.Action {
			case "Allow":
				allowed += r.Traffic.Packets
			case "Drop":
				dropped += r.Traffic.DroppedPackets
			}
		}
		return allowed, dropped, nil
	}
	var allowed, dropped int64
	framework.Eventually(t, 45*time.Second, func() error {
		var err error
		if allowed, dropped, err = counts(); err != nil {
			return err
		}
		if allowed < 1 || dropped < 1 {
			return fmt.Errorf("counted %d allowed and %d dropped packets; want both after the probes", allowed, dropped)
		}
		return nil
	})
	for range 3 {
		expectProbe(t, "dev-build-1", ingressTarget, connected)
	}
	framework.Eventually(t, 45*time.Second, func() error {
		now, _, err := counts()
		if err != nil {
			return err
		}
		if now < allowed+3 {
			return fmt.Errorf("counted %d allowed packets after 3 more connections, want at least %d", now, allowed+3)
		}
		return nil
	})
}

// testAddressChange gives dev-build-1 a second address in its cloud, with
// EC2's AssignPrivateIpAddresses, and takes it back: the RemoteEntity in
// member-2 follows, and so does the agent of azure-dev-build-2, whose
// policy lets dev-build-1 in, from every address it has and none other.
func testAddressChange(t *testing.T) {
	src := vm(t, "dev-build-1")
	const newIP = "10.20.0.51"
	subnet := netip.MustParsePrefix(src.CIDR()).Masked().String()
	// The VM's system takes the address and sends from it, as a guest does
	// with a secondary address; until the cloud assigns it, it is nobody's.
	ipCmd(t, "-n", src.NetNS, "addr", "add", fmt.Sprintf("%s/%d", newIP, src.PrefixLen), "dev", "eth0")
	t.Cleanup(func() {
		ipCmd(t, "-n", src.NetNS, "route", "replace", subnet, "dev", "eth0", "proto", "kernel", "scope", "link", "src", src.IP)
		ipCmd(t, "-n", src.NetNS, "addr", "del", fmt.Sprintf("%s/%d", newIP, src.PrefixLen), "dev", "eth0")
	})
	ipCmd(t, "-n", src.NetNS, "route", "replace", subnet, "dev", "eth0", "proto", "kernel", "scope", "link", "src", newIP)
	waitProbe(t, "dev-build-1", ingressTarget, dropped, 10*time.Second)

	c := ec2Client(t)
	eni := primaryInterface(t, instanceNamed(t, c, "dev-build-1"))
	start := time.Now()
	if _, err := c.AssignPrivateIpAddresses(bg, &ec2.AssignPrivateIpAddressesInput{NetworkInterfaceId: aws.String(eni), PrivateIpAddresses: []string{newIP}}); err != nil {
		t.Fatalf("AssignPrivateIpAddresses %s to %s: %v", newIP, eni, err)
	}
	t.Cleanup(func() {
		_, _ = c.UnassignPrivateIpAddresses(bg, &ec2.UnassignPrivateIpAddressesInput{NetworkInterfaceId: aws.String(eni), PrivateIpAddresses: []string{newIP}})
	})
	waitEndpoint(t, newIP, true)
	waitProbe(t, "dev-build-1", ingressTarget, connected, 30*time.Second)
	t.Logf("%s assigned in the cloud: allowed by the agent of the other member after %s", newIP, time.Since(start).Round(100*time.Millisecond))

	start = time.Now()
	if _, err := c.UnassignPrivateIpAddresses(bg, &ec2.UnassignPrivateIpAddressesInput{NetworkInterfaceId: aws.String(eni), PrivateIpAddresses: []string{newIP}}); err != nil {
		t.Fatalf("UnassignPrivateIpAddresses %s of %s: %v", newIP, eni, err)
	}
	waitEndpoint(t, newIP, false)
	waitRules(t, "azure-dev-build-2", 30*time.Second, func(rules string) error {
		if strings.Contains(rules, newIP) {
			return fmt.Errorf("still allows %s", newIP)
		}
		return nil
	})
	waitProbe(t, "dev-build-1", ingressTarget, dropped, 30*time.Second)
	t.Logf("%s unassigned in the cloud: dropped by the agent of the other member after %s", newIP, time.Since(start).Round(100*time.Millisecond))
}

// waitEndpoint waits until dev-build-1's RemoteEntity has ip (or has it
// no more) in every member that imports it; the cloud controller reads
// the cloud every 10 s.
func waitEndpoint(t *testing.T, ip string, want bool) {
	t.Helper()
	framework.EventuallyEvery(t, 45*time.Second, 250*time.Millisecond, func() error {
		for _, cluster := range []string{"member-2", "member-3"} {
			e := remoteEntity(t, cluster, "member-1", "dev-build-1")
			if e == nil {
				return fmt.Errorf("%s has no RemoteEntity of dev-build-1", cluster)
			}
			if got := slices.Contains(endpointIPs(e), ip); got != want {
				return fmt.Errorf("%s: the RemoteEntity %s has the endpoints %v, want %s in them: %v", cluster, e.Name, endpointIPs(e), ip, want)
			}
		}
		return nil
	})
}
