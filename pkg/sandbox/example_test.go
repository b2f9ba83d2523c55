package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"antreaplus.io/antreaplus/pkg/sandbox"
)

// Three clusters, federated with member-1 as supervisor, each member with
// its member controller and DNS server; their status; then everything
// stopped. The programs are found (or built) by FindBinary.
func Example() {
	run := func(ctx context.Context) error {
		sb := sandbox.New(sandbox.Options{Dir: sandbox.DefaultDir(), Progress: os.Stderr})
		if _, err := sb.Up(ctx, 3); err != nil {
			return err
		}
		defer func() { _ = sb.Down(ctx) }()
		manager, err := sb.FindBinary(ctx, "federation-manager")
		if err != nil {
			return err
		}
		if err := sb.Federate(ctx, sandbox.FederationOptions{FederationID: "acme", Supervisors: 1, ManagerBinary: manager}); err != nil {
			return err
		}
		mc, err := sb.FindBinary(ctx, "member-controller")
		if err != nil {
			return err
		}
		dns, err := sb.FindBinary(ctx, "coredns")
		if err != nil {
			return err
		}
		if err := sb.StartMemberServices(ctx, sandbox.MemberServicesOptions{MemberController: mc, CoreDNS: dns}); err != nil {
			return err
		}
		statuses, err := sb.Status(ctx)
		for _, st := range statuses {
			fmt.Println(st.Name, st.Server, st.Ready)
		}
		return err
	}
	_ = run
}

// The local cloud: the emulator, AWS imported into member-1 and Azure into
// member-2 (each with its policy and cloud controllers), the agented VMs
// played in network namespaces with VM agents (root), and a TCP probe
// from one VM to another.
func ExampleSandbox_StartCloud() {
	run := func(ctx context.Context, sb *sandbox.Sandbox) error {
		bin := map[string]string{}
		for _, name := range []string{"cloud-emulator", "cloud-controller", "policy-controller", "vm-agent", "antreaplus"} {
			p, err := sb.FindBinary(ctx, name)
			if err != nil {
				return err
			}
			bin[name] = p
		}
		err := sb.StartCloud(ctx, sandbox.CloudOptions{Emulator: bin["cloud-emulator"], Controller: bin["cloud-controller"],
			PolicyController: bin["policy-controller"]})
		if err != nil {
			return err
		}
		if err := sb.StartVMAgents(ctx, sandbox.VMAgentOptions{Agent: bin["vm-agent"], Helper: bin["antreaplus"]}); err != nil {
			return err
		}
		res, err := sb.Probe(ctx, "dev-build-1", "azure-dev-build-1:8080", 3*time.Second)
		fmt.Println(res.From.Name, "->", res.To, res.Outcome)
		return err
	}
	_ = run
}

// The fixed layout of a sandbox: each member's CIDRs and ports, the same on
// every run.
func ExamplePlan() {
	plans, err := sandbox.Plan(2, 16443)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range plans {
		fmt.Println(p.Name, p.PodCIDR, p.ServiceCIDR, p.ServiceCIDR6, p.APIServerPort, p.DNS.Endpoint())
	}
	// Output:
	// member-1 10.101.0.0/16 10.201.0.0/16 fd00:10:c9::/112 16443 127.0.53.1:16743
	// member-2 10.102.0.0/16 10.202.0.0/16 fd00:10:ca::/112 16444 127.0.53.2:16743
}

// The tenants of 'sandbox up --cloud --tenancy' in the member that imports
// AWS, and the cloud controller processes that claim them.
func ExamplePlanTenancy() {
	_, members, err := sandbox.PlanCloudMembers([]string{"member-1", "member-2"}, sandbox.CloudPlacement{}, 16443)
	if err != nil {
		fmt.Println(err)
		return
	}
	plan := sandbox.PlanTenancy(16443, members[0])
	for _, t := range plan.Tenants {
		fmt.Println(t.Namespace, "->", t.Instance)
	}
	for _, c := range plan.Controllers {
		fmt.Println(c.Holder(), c.Selector, c.Ports.Metrics, c.Ports.Health)
	}
	// Output:
	// tenant-hard -> tenant-hard
	// tenant-soft-1 -> shared
	// tenant-soft-2 -> shared
	// shared/shared-0 !tenancy.antreaplus.io/controller 16748 16749
	// shared/shared-1 !tenancy.antreaplus.io/controller 16754 16755
	// tenant-hard/tenant-hard-0 tenancy.antreaplus.io/controller=tenant-hard 16756 16757
}
