package view

import (
	"fmt"
	"sort"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// State is how far a kind of a member could be read.
type State string

// States of a kind.
const (
	// Waiting: not listed yet.
	Waiting State = "Waiting"
	// Synced: listed and watched.
	Synced State = "Synced"
	// NotReadable: the API server refused the user the list (403).
	NotReadable State = "NotReadable"
	// NotInstalled: the member does not serve the kind (no CRD).
	NotInstalled State = "NotInstalled"
	// Failing: the list failed for another reason (it is retried).
	Failing State = "Failing"
)

// KindState is a kind's state and, unless Synced, why.
type KindState struct {
	State   State  `json:"state"`
	Message string `json:"message,omitempty"`
}

// Health is a member's reachability as the console last probed it.
type Health struct {
	// Probed is false until the first probe answered or failed.
	Probed    bool      `json:"probed"`
	Reachable bool      `json:"reachable"`
	Error     string    `json:"error,omitempty"`
	Since     time.Time `json:"since"`
}

// Member is what the console holds of one member: its objects of every
// kind the views show (the last known ones, when it is unreachable now).
type Member struct {
	// Context is the member's kubeconfig context.
	Context string
	Health  Health
	// Kinds are the state of each kind (source's names: "ServiceExports").
	Kinds map[string]KindState

	Membership *federationv1alpha1.ClusterMembership
	Registry   []federationv1alpha1.MemberCluster
	Leases     []coordinationv1.Lease
	Nodes      []corev1.Node
	Namespaces []corev1.Namespace

	Exports      []mcsv1beta1.ServiceExport
	Services     []corev1.Service
	Slices       []discoveryv1.EndpointSlice
	Imports      []mcsv1beta1.ServiceImport
	DNSEndpoints []externaldnsv1alpha1.DNSEndpoint

	Federated              []policyv1alpha1.FederatedNetworkPolicy
	NetworkPolicies        []antreav1beta1.NetworkPolicy
	ClusterNetworkPolicies []antreav1beta1.ClusterNetworkPolicy

	Accounts      []cloudv1alpha1.CloudProviderAccount
	Selectors     []cloudv1alpha1.CloudEntitySelector
	VMs           []cloudv1alpha1.VirtualMachine
	CloudServices []cloudv1alpha1.CloudNativeService
	Networks      []federationv1alpha1.Network
}

// ClusterID is the member's ClusterID, "" when it belongs to no federation.
func (m *Member) ClusterID() string {
	if m.Membership == nil {
		return ""
	}
	return m.Membership.Spec.ClusterID
}

// Unreadable is a kind a member did not let be read, and why.
type Unreadable struct {
	Kind    string `json:"kind"`
	State   State  `json:"state"`
	Message string `json:"message,omitempty"`
}

// MemberHeader is how a view names a member and says what of it could
// not be read.
type MemberHeader struct {
	Context   string `json:"context"`
	ClusterID string `json:"clusterID,omitempty"`
	Health    Health `json:"health"`
	// Unreadable are the view's kinds the member did not let be read
	// (NotReadable, Failing): what the view shows of them is not all.
	Unreadable []Unreadable `json:"unreadable,omitempty"`
	// NotInstalled are the view's kinds the member does not serve.
	NotInstalled []string `json:"notInstalled,omitempty"`
	// Stale: the member is unreachable; what is shown is what it last held.
	Stale bool `json:"stale,omitempty"`
}

// header is a member's header for a view of the kinds given.
func header(m *Member, kinds ...string) MemberHeader {
	h := MemberHeader{Context: m.Context, ClusterID: m.ClusterID(), Health: m.Health, Stale: m.Health.Probed && !m.Health.Reachable}
	for _, k := range kinds {
		st, ok := m.Kinds[k]
		switch {
		case !ok:
		case st.State == NotInstalled:
			h.NotInstalled = append(h.NotInstalled, k)
		case st.State == NotReadable || st.State == Failing:
			h.Unreadable = append(h.Unreadable, Unreadable{Kind: k, State: st.State, Message: st.Message})
		}
	}
	return h
}

// readable reports whether a kind of m was read (synced).
func readable(m *Member, kind string) bool {
	return m.Kinds[kind].State == Synced
}

// Kubectl is the kubectl command that shows an object of a member:
// resource is "serviceexports.multicluster.x-k8s.io" or "nodes".
func Kubectl(context, resource, namespace, name string) string {
	s := fmt.Sprintf("kubectl --context %s get %s", context, resource)
	if namespace != "" {
		s += " -n " + namespace
	}
	if name != "" {
		s += " " + name
	}
	return s + " -o yaml"
}

// sortMembers orders members by context.
func sortMembers(ms []*Member) []*Member {
	out := append([]*Member(nil), ms...)
	sort.Slice(out, func(i, j int) bool { return out[i].Context < out[j].Context })
	return out
}
