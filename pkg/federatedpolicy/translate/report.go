package translate

import (
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// Result is a translation: the derived objects to write and the report.
type Result struct {
	// Policy is the derived Antrea NetworkPolicy. It is nil when there is
	// nothing to write: Report.Problem says why, or every rule was left
	// out of a policy whose rules each set their own appliedTo (no valid
	// policy holds no rule; none is needed, as none would match anything).
	Policy *antreav1beta1.NetworkPolicy
	// Groups are the derived Groups, sorted by name (none with a Problem).
	Groups []*antreav1beta1.Group
	Report Report
}

// Report says what a translation resolved, refused and left out.
type Report struct {
	// RemoteSources are the policy's remote peers, in rule order.
	RemoteSources []policyv1alpha1.RemoteSourceStatus
	// RefusedPeers are the peers left out, and why.
	RefusedPeers []policyv1alpha1.RefusedPeer
	// DroppedRules are the rules left out because every peer of them was
	// refused ("ingress[1]").
	DroppedRules []string
	// Notes say where a limit of the Antrea API shaped the derived objects
	// (a rule or a source split in several).
	Notes []string
	// Problem, when set, says why no derived object can be written.
	Problem *Problem
	// AppliesToPods is true when the policy applies to Pods (an appliedTo
	// with podSelector or serviceAccount): a stock Antrea enforces it.
	AppliesToPods bool
	// AppliesToExternalEntities is true when the policy applies to
	// ExternalEntities (an appliedTo with externalEntitySelector or group):
	// the policy controller enforces it on VMs.
	AppliesToExternalEntities bool
}

// Problem is why a policy cannot be translated.
type Problem struct {
	Reason  string
	Message string
}

// Reasons of RefusedPeer and Problem.
const (
	// ReasonRemotePodsRefused: a ClusterSet peer would select remote Pods.
	ReasonRemotePodsRefused = "RemotePodsRefused"
	// ReasonUnsupportedClusterSetPeer: a ClusterSet peer of a kind that
	// cannot reach other members (group, nodeSelector, fqdn).
	ReasonUnsupportedClusterSetPeer = "UnsupportedClusterSetPeer"
	// ReasonInvalidPolicy: the policy is invalid (a duplicate rule name, a
	// selector that does not parse).
	ReasonInvalidPolicy = "InvalidPolicy"
	// ReasonTooLarge: the derived policy would exceed a limit of the
	// Antrea API (rules, ports).
	ReasonTooLarge = "TooLarge"
)

// Kinds of remote sources.
const (
	KindRemoteEntities   = "RemoteEntities"
	KindFederatedService = "FederatedService"
)
