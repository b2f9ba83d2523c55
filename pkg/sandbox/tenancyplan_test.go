package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestPlanTenancy(t *testing.T) {
	_, members, err := PlanCloudMembers([]string{"member-1", "member-2", "member-3"}, CloudPlacement{}, 16443)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tenancyMember(members)
	if err != nil {
		t.Fatal(err)
	}
	plan := PlanTenancy(16443, m)
	if plan.Cluster != "member-1" {
		t.Errorf("tenants in %s, want member-1 (it imports AWS)", plan.Cluster)
	}
	var tenants []string
	for _, tp := range plan.Tenants {
		tenants = append(tenants, fmt.Sprintf("%s[%s]->%s", tp.Namespace, labelsString(tp.Labels), tp.Instance))
	}
	want := "tenant-hard[tenancy.antreaplus.io/controller=tenant-hard,tenancy.antreaplus.io/tenant=true]->tenant-hard " +
		"tenant-soft-1[tenancy.antreaplus.io/tenant=true]->shared tenant-soft-2[tenancy.antreaplus.io/tenant=true]->shared"
	if got := strings.Join(tenants, " "); got != want {
		t.Errorf("tenants:\n got %s\nwant %s", got, want)
	}
	var controllers []string
	for _, c := range plan.Controllers {
		controllers = append(controllers, fmt.Sprintf("%s %s %q %d/%d agentless=%v", c.Holder(), c.Process, c.Selector, c.Ports.Metrics, c.Ports.Health, c.Agentless))
	}
	// shared-0 is the member's cloud controller, on its ports (base+305/306).
	want = `shared/shared-0 member-1.cloud-controller "!tenancy.antreaplus.io/controller" 16748/16749 agentless=true;` +
		`shared/shared-1 member-1.cloud-controller-shared-1 "!tenancy.antreaplus.io/controller" 16754/16755 agentless=true;` +
		`tenant-hard/tenant-hard-0 member-1.cloud-controller-tenant-hard-0 "tenancy.antreaplus.io/controller=tenant-hard" 16756/16757 agentless=true`
	if got := strings.Join(controllers, ";"); got != want {
		t.Errorf("controllers:\n got %s\nwant %s", got, want)
	}
	// Every port of the sandbox's plan, the tenancy processes' included,
	// is distinct and in the span.
	plans, _ := Plan(3, 16443)
	ports := Ports(plans)
	for _, c := range plan.Controllers {
		for _, p := range []int{c.Ports.Metrics, c.Ports.Health} {
			if !slices.Contains(ports, p) || p >= 16443+PortSpan {
				t.Errorf("port %d of %s is not in the sandbox's ports, or past its span", p, c.Holder())
			}
		}
	}
	// The member that holds the tenants runs the three; the other its one
	// controller, as without --tenancy.
	if got := memberControllers(members[0], &plan); len(got) != 3 {
		t.Errorf("member-1 runs %d cloud controllers, want 3", len(got))
	}
	if got := memberControllers(members[1], &plan); len(got) != 1 || got[0].Process != "member-2.cloud-controller" ||
		got[0].Instance != "" || !got[0].Agentless || got[0].Ports.Health != members[1].Ports.Health {
		t.Errorf("member-2 runs %+v, want its one cloud controller, on its ports", got)
	}
	if _, err := tenancyMember(nil); err == nil {
		t.Error("tenancyMember of no members: no error")
	}
}

func TestCloudControllerArgs(t *testing.T) {
	common := []string{"--context", "member-1"}
	policy := []string{"--policy-server", "https://127.0.0.1:16750"}
	cases := []struct {
		name string
		c    TenancyController
		want string
	}{
		{name: "without tenancy: as before", c: TenancyController{Agentless: true, Ports: ControllerPorts{Metrics: 1, Health: 2}},
			want: "--context member-1 --metrics-bind-address 127.0.0.1:1 --health-probe-bind-address 127.0.0.1:2 --policy-server https://127.0.0.1:16750"},
		{name: "a shared replica", c: TenancyController{Instance: "shared", Replica: "shared-1", Selector: "!tenancy.antreaplus.io/controller",
			Agentless: true, Ports: ControllerPorts{Metrics: 3, Health: 4}},
			want: "--context member-1 --metrics-bind-address 127.0.0.1:3 --health-probe-bind-address 127.0.0.1:4 --policy-server https://127.0.0.1:16750 " +
				"--tenancy-instance shared --tenancy-replica shared-1 --tenant-selector !tenancy.antreaplus.io/controller"},
		{name: "a dedicated instance without agentless enforcement", c: TenancyController{Instance: "tenant-hard", Replica: "tenant-hard-0",
			Selector: "tenancy.antreaplus.io/controller=tenant-hard", Ports: ControllerPorts{Metrics: 5, Health: 6}},
			want: "--context member-1 --metrics-bind-address 127.0.0.1:5 --health-probe-bind-address 127.0.0.1:6 " +
				"--tenancy-instance tenant-hard --tenancy-replica tenant-hard-0 --tenant-selector tenancy.antreaplus.io/controller=tenant-hard"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(cloudControllerArgs(common, policy, tc.c), " "); got != tc.want {
				t.Errorf("args:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
	if len(common) != 2 {
		t.Errorf("cloudControllerArgs changed its common args: %v", common)
	}
}

func TestChooseTenancy(t *testing.T) {
	running := &CloudState{Members: []CloudMember{{Cluster: "member-1"}}}
	withTenants := &CloudState{Members: running.Members, Tenancy: &TenancyState{Cluster: "member-1"}}
	cases := []struct {
		name     string
		asked    bool
		recorded *CloudState
		want     bool
		wantErr  string
	}{
		{name: "first run, asked", asked: true, want: true},
		{name: "first run, not asked", want: false},
		{name: "re-run of a sandbox with tenants, not asked: kept", recorded: withTenants, want: true},
		{name: "re-run of a sandbox with tenants, asked", asked: true, recorded: withTenants, want: true},
		{name: "re-run without tenants, not asked", recorded: running, want: false},
		{name: "re-run without tenants, asked: down first", asked: true, recorded: running, wantErr: "run 'antreaplus sandbox down' first"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := chooseTenancy(tc.asked, tc.recorded)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("chooseTenancy = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
