package sandbox

import (
	"errors"
	"maps"
	"slices"
	"strings"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy"
)

// The tenants of a sandbox run with --tenancy, in the member that imports
// AWS: one hard tenant with a controller instance of its own, two soft
// ones that the shared instance manages with cloud-demo.
const (
	// HardTenant is the tenant with a dedicated controller instance of
	// the same name.
	HardTenant = "tenant-hard"
	// SharedInstance is the instance of the member's cloud controller.
	SharedInstance = tenancy.DefaultInstance
	// TenantAccount is the name of every tenant's CloudProviderAccount
	// (and of its selector).
	TenantAccount = "aws"
)

// softTenants are the tenants the shared instance manages.
var softTenants = []string{"tenant-soft-1", "tenant-soft-2"}

// sharedReplicas are the replicas of the shared instance; the first is
// the member's cloud controller, as without tenancy.
var sharedReplicas = []string{"shared-0", "shared-1"}

// TenancyState is what the state records of the tenants of a sandbox run
// with --tenancy, and of the cloud controllers that claim them.
type TenancyState struct {
	// Cluster is the member that holds the tenants: the one that imports
	// AWS.
	Cluster string `json:"cluster"`
	// Tenants are the tenant Namespaces, each with its own AWS account.
	Tenants []TenantPlan `json:"tenants"`
	// Controllers are the member's cloud controller processes: the shared
	// instance's replicas, then the hard tenant's instance.
	Controllers []TenancyController `json:"controllers"`
}

// TenantPlan is one tenant of the sandbox.
type TenantPlan struct {
	// Namespace is the tenant.
	Namespace string `json:"namespace"`
	// Labels of the Namespace: the tenant label, and the controller label
	// of a hard tenant.
	Labels map[string]string `json:"labels"`
	// Account is its CloudProviderAccount (and CloudEntitySelector) in the
	// Namespace, with credentials of its own in the emulator.
	Account string `json:"account"`
	// Instance is the controller instance whose selector picks it.
	Instance string `json:"instance"`
}

// ControllerPorts are the endpoints of a controller process.
type ControllerPorts struct {
	Metrics int `json:"metrics"`
	Health  int `json:"health"`
}

// TenancyController is one cloud controller process of the tenants'
// member.
type TenancyController struct {
	// Instance, Replica and Selector are its --tenancy-instance,
	// --tenancy-replica and --tenant-selector.
	Instance string `json:"instance"`
	Replica  string `json:"replica"`
	Selector string `json:"selector"`
	// Process names its pid and log files in the cloud directory.
	Process string `json:"process"`
	// Ports of its metrics and health endpoints.
	Ports ControllerPorts `json:"ports"`
	// Agentless: it enforces the policies of the agentless VMs of the
	// tenants it holds (--policy-server), as every instance and replica
	// does; the policy controller merges their reports.
	Agentless bool `json:"agentless"`
}

// Holder is the controller's claim holderIdentity, "<instance>/<replica>".
func (c TenancyController) Holder() string { return tenancy.HolderIdentity(c.Instance, c.Replica) }

// tenancyPortOffset puts the tenancy ports after every cloud member's.
const tenancyPortOffset = cloudPortOffset + 2 + 3*maxCloudMembers

// tenancyPorts is how many ports the tenancy processes beside the
// member's cloud controller take: metrics and health each.
const tenancyPorts = 2 * 2

// PlanTenancy lays out the tenants and cloud controllers of the member m
// (which imports AWS) of a sandbox whose member-1 API server listens on
// apiPortBase. The shared instance selects every Namespace without the
// controller label (cloud-demo, the soft tenants) and runs two replicas:
// shared-0 is the member's cloud controller, on its ports; shared-1 takes
// base+311/312. The hard tenant's instance takes base+313/314.
func PlanTenancy(apiPortBase int, m CloudMember) TenancyState {
	b := apiPortBase + tenancyPortOffset
	st := TenancyState{Cluster: m.Cluster}
	hardLabels := map[string]string{tenancyv1alpha1.LabelTenant: "true", tenancyv1alpha1.LabelController: HardTenant}
	st.Tenants = append(st.Tenants, TenantPlan{Namespace: HardTenant, Labels: hardLabels, Account: TenantAccount, Instance: HardTenant})
	for _, ns := range softTenants {
		st.Tenants = append(st.Tenants, TenantPlan{Namespace: ns, Labels: map[string]string{tenancyv1alpha1.LabelTenant: "true"},
			Account: TenantAccount, Instance: SharedInstance})
	}
	for i, r := range sharedReplicas {
		c := TenancyController{Instance: SharedInstance, Replica: r, Selector: tenancy.DefaultSharedSelector, Agentless: true,
			Process: cloudControllerName(m.Cluster), Ports: ControllerPorts{Metrics: m.Ports.Metrics, Health: m.Ports.Health}}
		if i > 0 {
			c.Process = cloudControllerName(m.Cluster) + "-" + r
			c.Ports = ControllerPorts{Metrics: b + 2*(i-1), Health: b + 2*(i-1) + 1}
		}
		st.Controllers = append(st.Controllers, c)
	}
	h := b + 2*(len(sharedReplicas)-1)
	st.Controllers = append(st.Controllers, TenancyController{Instance: HardTenant, Replica: HardTenant + "-0",
		Selector: tenancyv1alpha1.LabelController + "=" + HardTenant, Process: cloudControllerName(m.Cluster) + "-" + HardTenant + "-0",
		Agentless: true, Ports: ControllerPorts{Metrics: h, Health: h + 1}})
	return st
}

// TenantNamespaces are the tenants' Namespaces, in plan order.
func (t *TenancyState) TenantNamespaces() []string {
	var out []string
	if t != nil {
		for _, tp := range t.Tenants {
			out = append(out, tp.Namespace)
		}
	}
	return out
}

// memberControllers are the cloud controller processes of the cloud
// member m: the tenancy controllers when ten places its tenants there,
// else the member's one cloud controller, which enforces the agentless
// policies (when there is a policy controller).
func memberControllers(m CloudMember, ten *TenancyState) []TenancyController {
	if ten != nil && ten.Cluster == m.Cluster {
		return ten.Controllers
	}
	return []TenancyController{{Process: cloudControllerName(m.Cluster), Agentless: true,
		Ports: ControllerPorts{Metrics: m.Ports.Metrics, Health: m.Ports.Health}}}
}

// tenancyMember is the cloud member that holds the tenants: the one that
// imports AWS (their accounts are AWS accounts).
func tenancyMember(members []CloudMember) (CloudMember, error) {
	for _, m := range members {
		if m.Imports(cloudv1alpha1.ProviderAWS) {
			return m, nil
		}
	}
	return CloudMember{}, errors.New("no member imports AWS, whose accounts the tenants have")
}

// chooseTenancy is whether StartCloud runs tenancy: what was asked for, or
// what the sandbox recorded (a re-run keeps it). A local cloud that runs
// without tenancy is not turned into one with it: its controllers claim
// every Namespace.
func chooseTenancy(asked bool, recorded *CloudState) (bool, error) {
	switch {
	case recorded == nil || len(recorded.Members) == 0:
		return asked, nil
	case recorded.Tenancy != nil:
		return true, nil
	case asked:
		return false, errors.New("the local cloud runs without --tenancy: run 'antreaplus sandbox down' first to start it with tenants")
	}
	return false, nil
}

// cloudControllerArgs are a cloud controller process's arguments: the
// member's common ones, its endpoints, the agentless enforcement flags
// (policy) when it enforces them, and its tenancy flags when it has an
// instance (a sandbox with --tenancy).
func cloudControllerArgs(common, policy []string, c TenancyController) []string {
	args := slices.Clone(common)
	args = append(args, "--metrics-bind-address", loopback(c.Ports.Metrics), "--health-probe-bind-address", loopback(c.Ports.Health))
	if c.Agentless {
		args = append(args, policy...)
	}
	if c.Instance != "" {
		args = append(args, "--tenancy-instance", c.Instance, "--tenancy-replica", c.Replica, "--tenant-selector", c.Selector)
	}
	return args
}

// labelsString is a Namespace's labels as k=v, sorted.
func labelsString(l map[string]string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(l)) {
		out = append(out, k+"="+l[k])
	}
	return strings.Join(out, ",")
}
