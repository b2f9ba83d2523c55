package view

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/networks/networklist"
	"antreaplus.io/antreaplus/pkg/tenancy/tenantadmin"
)

// The kinds the clouds view reads.
var cloudKinds = []string{"CloudProviderAccounts", "CloudEntitySelectors", "VirtualMachines", "CloudNativeServices", "Networks", "Namespaces", "Leases"}

// Clouds is the clouds view: per member, its cloud accounts, networks
// (VPCs, VNets, the cluster's own), VMs and cloud services with how each
// is enforced, and its tenants with the controller replica that owns each.
type Clouds struct {
	Headers []MemberHeader `json:"headers"`
	Members []CloudMember  `json:"members"`
}

// CloudMember is one member's clouds.
type CloudMember struct {
	Context  string         `json:"context"`
	Accounts []Account      `json:"accounts"`
	Networks []Network      `json:"networks"`
	VMs      []VM           `json:"vms"`
	Services []CloudService `json:"services"`
	Tenants  []Tenant       `json:"tenants"`
}

// Network is a network as `antreaplus network list` shows it.
type Network struct {
	networklist.Network
	Kubectl string `json:"kubectl"`
}

// Tenant is a tenant as `antreaplus tenant list` shows it.
type Tenant struct {
	tenantadmin.Row
	Kubectl string `json:"kubectl"`
}

// Account is a cloud account and whether its credentials work.
type Account struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Provider  string `json:"provider"`
	// Ready is the account's Ready condition ("True", "False", "Unknown"),
	// Message its message.
	Ready   string `json:"ready"`
	Message string `json:"message,omitempty"`
	Kubectl string `json:"kubectl"`
}

// VM is an imported VM and its enforcement: agentless (security groups) or
// by its agent, whether the agent is connected and the policies realised.
type VM struct {
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	CloudName   string `json:"cloudName,omitempty"`
	Provider    string `json:"provider"`
	Region      string `json:"region,omitempty"`
	VPC         string `json:"vpc,omitempty"`
	State       string `json:"state"`
	Enforcement string `json:"enforcement"`
	// Agent is the agent's state of an agented VM: "connected (v1.2)",
	// or the AgentConnected condition's message.
	Agent string `json:"agent,omitempty"`
	// Realized is the PolicyRealized condition's status and message.
	Realized string `json:"realized"`
	Message  string `json:"message,omitempty"`
	Kubectl  string `json:"kubectl"`
}

// CloudService is an imported cloud-native service (a database, a load
// balancer) and its enforcement.
type CloudService struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	CloudName string `json:"cloudName,omitempty"`
	Realized  string `json:"realized"`
	Message   string `json:"message,omitempty"`
	Kubectl   string `json:"kubectl"`
}

// CloudsOf is the clouds view of the members at now.
func CloudsOf(members []*Member, now time.Time) Clouds {
	v := Clouds{Headers: []MemberHeader{}, Members: []CloudMember{}}
	for _, m := range sortMembers(members) {
		v.Headers = append(v.Headers, header(m, cloudKinds...))
		cm := CloudMember{Context: m.Context, Accounts: []Account{}, Networks: []Network{}, VMs: []VM{},
			Services: []CloudService{}, Tenants: []Tenant{}}
		for i := range m.Accounts {
			a := &m.Accounts[i]
			ready, msg := condition(a.Status.Conditions, cloudv1alpha1.ConditionReady, a.Generation)
			cm.Accounts = append(cm.Accounts, Account{Namespace: a.Namespace, Name: a.Name, Provider: string(a.Spec.Provider),
				Ready: ready, Message: msg, Kubectl: Kubectl(m.Context, "cloudprovideraccounts.cloud.antreaplus.io", a.Namespace, a.Name)})
		}
		for i := range m.Networks {
			cm.Networks = append(cm.Networks, Network{Network: networklist.Row(&m.Networks[i]),
				Kubectl: Kubectl(m.Context, "networks.federation.antreaplus.io", "", m.Networks[i].Name)})
		}
		for i := range m.VMs {
			cm.VMs = append(cm.VMs, vmOf(m.Context, &m.VMs[i]))
		}
		for i := range m.CloudServices {
			s := &m.CloudServices[i]
			realized, msg := condition(s.Status.Conditions, cloudv1alpha1.ConditionPolicyRealized, s.Generation)
			cm.Services = append(cm.Services, CloudService{Namespace: s.Namespace, Name: s.Name, Kind: string(s.Spec.Kind), CloudName: s.Spec.CloudName,
				Realized: realized, Message: msg, Kubectl: Kubectl(m.Context, "cloudnativeservices.cloud.antreaplus.io", s.Namespace, s.Name)})
		}
		for _, r := range tenantadmin.Rows(inventoryOf(m, now), now) {
			cm.Tenants = append(cm.Tenants, Tenant{Row: r, Kubectl: Kubectl(m.Context, "namespaces", "", r.Tenant)})
		}
		v.Members = append(v.Members, cm)
	}
	return v
}

func vmOf(context string, vm *cloudv1alpha1.VirtualMachine) VM {
	realized, msg := condition(vm.Status.Conditions, cloudv1alpha1.ConditionPolicyRealized, vm.Generation)
	out := VM{Namespace: vm.Namespace, Name: vm.Name, CloudName: vm.Spec.CloudName, Provider: string(vm.Spec.Provider), Region: vm.Spec.Region,
		VPC: vm.Spec.VPCID, State: string(vm.Spec.State), Enforcement: string(vm.Spec.EnforcementMode), Realized: realized, Message: msg,
		Kubectl: Kubectl(context, "virtualmachines.cloud.antreaplus.io", vm.Namespace, vm.Name)}
	if vm.Spec.EnforcementMode == cloudv1alpha1.EnforcementAgented {
		st, amsg := condition(vm.Status.Conditions, cloudv1alpha1.VMConditionAgentConnected, vm.Generation)
		switch {
		case st == string(metav1.ConditionTrue) && vm.Status.Agent != nil:
			out.Agent = "connected (" + vm.Status.Agent.Version + ")"
		case st == string(metav1.ConditionTrue):
			out.Agent = "connected"
		case amsg != "":
			out.Agent = amsg
		default:
			out.Agent = "not connected"
		}
	}
	return out
}

// condition is a condition's status ("Unknown" when absent or of an older
// generation) and message.
func condition(conds []metav1.Condition, t string, gen int64) (string, string) {
	c := meta.FindStatusCondition(conds, t)
	if c == nil {
		return string(metav1.ConditionUnknown), ""
	}
	if c.ObservedGeneration != 0 && c.ObservedGeneration < gen {
		return string(metav1.ConditionUnknown), "written for an older generation: " + c.Message
	}
	return string(c.Status), c.Message
}

// inventoryOf is what tenantadmin.Rows reads of a member.
func inventoryOf(m *Member, now time.Time) tenantadmin.Inventory {
	inv := tenantadmin.Inventory{Accounts: map[string]int{}, VMs: map[string][]string{}, Policies: map[string]int{}}
	for _, ns := range m.Namespaces {
		inv.Namespaces = append(inv.Namespaces, tenantadmin.Namespace{Name: ns.Name, Labels: ns.Labels, Terminating: ns.DeletionTimestamp != nil})
	}
	for i := range m.Leases {
		le := &m.Leases[i]
		if le.Namespace == federationv1alpha1.SystemNamespace && le.Labels[tenancyv1alpha1.LabelLease] == tenancyv1alpha1.LeaseClaim {
			inv.Claims = append(inv.Claims, tenantadmin.ClaimOf(le, now))
		}
	}
	for _, a := range m.Accounts {
		inv.Accounts[a.Namespace]++
	}
	for _, vm := range m.VMs {
		inv.VMs[vm.Namespace] = append(inv.VMs[vm.Namespace], vm.Spec.VPCID)
	}
	for _, p := range m.NetworkPolicies {
		if p.Labels[policyv1alpha1.LabelFederatedPolicy] == "" {
			inv.Policies[p.Namespace]++
		}
	}
	for _, p := range m.Federated {
		inv.Policies[p.Namespace]++
	}
	return inv
}
