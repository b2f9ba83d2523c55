package policyview

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// The kinds of policy a view shows, in the order rows of one member and
// Namespace are sorted.
const (
	KindFederated            = "FederatedNetworkPolicy"
	KindNetworkPolicy        = "NetworkPolicy"
	KindClusterNetworkPolicy = "ClusterNetworkPolicy"
	// KindStats is the traffic a policy's rules decided in a member, read
	// for `antreaplus policy stats` only.
	KindStats = "PolicyStats"
)

// FederatedPolicyLabel (policy.antreaplus.io/federated-policy) marks an
// Antrea NetworkPolicy the member controller derived from a
// FederatedNetworkPolicy; its value is the federated policy's name
// (docs/federated-policy.md, "Translation").
const FederatedPolicyLabel = policyv1alpha1.LabelFederatedPolicy

// Plural is a kind's plural, as in "3 NetworkPolicies".
func Plural(kind string) string {
	if s, ok := strings.CutSuffix(kind, "y"); ok {
		return s + "ies"
	}
	return kind + "s"
}

// Group is the API group of a kind of policy.
func Group(kind string) string {
	if kind == KindFederated || kind == KindStats {
		return policyv1alpha1.GroupVersion.Group
	}
	return antreav1beta1.GroupVersion.Group
}

// Snapshot is what Read found in one member: the input of List and Status.
type Snapshot struct {
	// Context is the kubeconfig context of the member.
	Context string
	// Membership is the member's identity, nil when it belongs to no federation.
	Membership *federationv1alpha1.ClusterMembership
	// Err is set when nothing of the member could be read (its API server
	// did not answer, or refused the credentials).
	Err error
	// NotInstalled are the kinds whose CRDs the member does not serve.
	NotInstalled []string
	// KindErrors are the kinds that could not be listed, with the error.
	KindErrors map[string]error

	Federated              []policyv1alpha1.FederatedNetworkPolicy
	NetworkPolicies        []antreav1beta1.NetworkPolicy
	ClusterNetworkPolicies []antreav1beta1.ClusterNetworkPolicy
	// Stats are the member's PolicyStats, when ReadOptions.Stats asked.
	Stats []policyv1alpha1.PolicyStats
}

// Member is how one member was read.
type Member struct {
	Context      string `json:"context"`
	ClusterID    string `json:"clusterID,omitempty"`
	FederationID string `json:"federationID,omitempty"`
	// Readable is false when nothing of the member could be read.
	Readable bool `json:"readable"`
	// Errors say why the member, or some kinds of it, could not be read.
	Errors []string `json:"errors,omitempty"`
	// NotInstalled are the kinds whose CRDs the member does not serve.
	NotInstalled []string `json:"notInstalled,omitempty"`
	// Policies is how many policies it has in the view.
	Policies int `json:"policies"`
}

// Row is one policy of one member.
type Row struct {
	Context   string  `json:"context"`
	ClusterID string  `json:"clusterID,omitempty"`
	Kind      string  `json:"kind"`
	Namespace string  `json:"namespace,omitempty"`
	Name      string  `json:"name"`
	Tier      string  `json:"tier,omitempty"`
	Priority  float64 `json:"priority"`
	// Federated is true for a FederatedNetworkPolicy.
	Federated bool `json:"federated"`
	// DerivedFrom is the FederatedNetworkPolicy an Antrea NetworkPolicy was
	// derived from, by the member controller.
	DerivedFrom string `json:"derivedFrom,omitempty"`
	// Phase is the status's phase, empty when nobody wrote a status.
	Phase string `json:"phase,omitempty"`
	// Realized and Desired count enforcement points: Nodes for an Antrea
	// policy, status.enforcementPoints for a federated one.
	Realized int `json:"realized"`
	Desired  int `json:"desired"`
	// Remote is set for a federated policy only.
	Remote *RemoteCounts `json:"remote,omitempty"`
	// Generation and ObservedGeneration are the policy's and its status's.
	Generation         int64 `json:"generation"`
	ObservedGeneration int64 `json:"observedGeneration"`
	// Stale is true when a status was written for an older generation.
	Stale bool `json:"stale"`
}

// RemoteCounts sums up the remote peers of a federated policy.
type RemoteCounts struct {
	SourcesResolved int `json:"sourcesResolved"`
	SourcesTotal    int `json:"sourcesTotal"`
	RefusedPeers    int `json:"refusedPeers"`
}

// Summary counts the policies of a listing. A derived Antrea policy whose
// federated policy is listed too is counted once, as that federated policy.
type Summary struct {
	Policies          int `json:"policies"`
	Federated         int `json:"federated"`
	Derived           int `json:"derived"`
	Stale             int `json:"stale"`
	NotRealized       int `json:"notRealized"`
	Members           int `json:"members"`
	MembersRead       int `json:"membersRead"`
	MembersUnreadable int `json:"membersUnreadable"`
}

// Listing is the answer of `antreaplus policy list`.
type Listing struct {
	Members  []Member `json:"members"`
	Policies []Row    `json:"policies"`
	Summary  Summary  `json:"summary"`
}

// Condition is a condition of a policy, federated or Antrea's.
type Condition struct {
	Type               string       `json:"type"`
	Status             string       `json:"status"`
	Reason             string       `json:"reason,omitempty"`
	Message            string       `json:"message,omitempty"`
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
}

// Detail is one policy of one member in detail.
type Detail struct {
	Row
	Conditions []Condition `json:"conditions"`
	// The status of a federated policy, as its controller wrote it.
	DerivedPolicy     string                                  `json:"derivedPolicy,omitempty"`
	EnforcementPoints []policyv1alpha1.EnforcementPointStatus `json:"enforcementPoints,omitempty"`
	RemoteSources     []policyv1alpha1.RemoteSourceStatus     `json:"remoteSources,omitempty"`
	RefusedPeers      []policyv1alpha1.RefusedPeer            `json:"refusedPeers,omitempty"`
}

// PolicyStatus is the answer of `antreaplus policy status NAME`.
type PolicyStatus struct {
	Name     string   `json:"name"`
	Members  []Member `json:"members"`
	Policies []Detail `json:"policies"`
}
