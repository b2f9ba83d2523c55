package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types of a MemberCluster.
const (
	// MemberReachable is True while the federation manager that writes the
	// status reaches the member's API server; its message holds the last error.
	MemberReachable = "Reachable"
	// MemberLed is True while a supervisor holds the member's leader Lease.
	MemberLed = "Led"
	// MemberCredentialsValid is False when the credential Secret is missing,
	// malformed, or refused by the member's API server.
	MemberCredentialsValid = "CredentialsValid"
	// MemberReady sums the others up: reachable, led, credentials accepted.
	MemberReady = "Ready"
)

// Condition reasons of a MemberCluster.
const (
	// ReasonUnreachableFromAllSupervisors: no supervisor reached the member
	// for longer than the grace period.
	ReasonUnreachableFromAllSupervisors = "UnreachableFromAllSupervisors"
	// ReasonProbeFailed: this supervisor's last probe failed; others may still reach it.
	ReasonProbeFailed = "ProbeFailed"
	// ReasonSecretMissing: the credential Secret does not exist or lacks a key.
	ReasonSecretMissing = "SecretMissing"
	// ReasonUnauthorized: the member refused the credentials (401/403).
	ReasonUnauthorized = "Unauthorized"
	// ReasonNoLeader: no supervisor holds the member's leader Lease.
	ReasonNoLeader = "NoLeader"
)

// Keys of a member's credential Secret.
const (
	// CredentialTokenKey holds a bearer token of the member's federation ServiceAccount.
	CredentialTokenKey = "token"
	// CredentialCAKey holds the PEM CA bundle that signs the member's API server certificate.
	CredentialCAKey = "ca.crt"
)

// SecretReference names a Secret in the MemberCluster's own namespace.
type SecretReference struct {
	// name of the Secret. It holds the keys "token" and "ca.crt".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// MemberClusterSpec is how supervisors reach one member of the federation.
type MemberClusterSpec struct {
	// clusterID is the member's ID (its ClusterMembership clusterID).
	// +required
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="size(self) > 0",message="clusterID must not be empty"
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="clusterID must be a DNS subdomain: lower-case letters, digits, '-' and '.'"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="clusterID cannot change; remove the member and join it again"
	ClusterID string `json:"clusterID"`

	// server is the URL of the member's API server, e.g. https://10.0.0.1:6443.
	// +required
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() == 'https'",message="server must be an https URL of the member's API server, e.g. https://10.0.0.1:6443"
	Server string `json:"server"`

	// credentialsSecretRef names the Secret, in this MemberCluster's
	// namespace, with the credentials of the member's least-privilege
	// federation ServiceAccount.
	// +required
	CredentialsSecretRef SecretReference `json:"credentialsSecretRef"`

	// supervisor is true when the member is itself a supervisor.
	// +optional
	Supervisor bool `json:"supervisor,omitempty"`
}

// MemberClusterStatus is what the federation managers observe of a member.
type MemberClusterStatus struct {
	// reachable tells whether the reporting federation manager reached the
	// member's API server at its last probe.
	// +optional
	Reachable bool `json:"reachable,omitempty"`

	// lastError is the error of the last failed probe, empty after a success.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	LastError string `json:"lastError,omitempty"`

	// lastProbeTime is when the reporting federation manager last wrote
	// this report: at a change, and every half grace period while nothing
	// changes.
	// +optional
	LastProbeTime *metav1.Time `json:"lastProbeTime,omitempty"`

	// lastReachableTime is when the reporting federation manager last
	// reached the member. Supervisors read each other's to tell whether a
	// member is unreachable from all of them.
	// +optional
	LastReachableTime *metav1.Time `json:"lastReachableTime,omitempty"`

	// unreachableSince is set when no supervisor has reached the member for
	// longer than the federation's grace period: from then on its exports
	// may be withdrawn. It is cleared as soon as any supervisor reaches it.
	// +optional
	UnreachableSince *metav1.Time `json:"unreachableSince,omitempty"`

	// reportedBy is the clusterID of the supervisor whose manager wrote this status.
	// +optional
	ReportedBy string `json:"reportedBy,omitempty"`

	// leader is the clusterID of the supervisor that leads the member.
	// +optional
	Leader string `json:"leader,omitempty"`

	// leaseRenewTime is the renew time of the member's leader Lease.
	// +optional
	LeaseRenewTime *metav1.MicroTime `json:"leaseRenewTime,omitempty"`

	// leaderTerm is the leader Lease's leaseTransitions: one more each time
	// the member changed leader. A term that keeps growing while every
	// supervisor runs means spurious changes of leader (see the
	// antreaplus_federation_stepdowns_total metric for why).
	// +optional
	LeaderTerm int32 `json:"leaderTerm,omitempty"`

	// leaderSince is when the leader took the member (the Lease's acquireTime).
	// +optional
	LeaderSince *metav1.MicroTime `json:"leaderSince,omitempty"`

	// observedGeneration is the generation of the spec the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Reachable, Led, CredentialsValid and Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// MemberCluster is a supervisor's registry entry for one member cluster.
// Its labels are the member's labels for selection.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=mc;member,categories=antreaplus
// +kubebuilder:printcolumn:name="Cluster ID",type=string,JSONPath=`.spec.clusterID`
// +kubebuilder:printcolumn:name="Server",type=string,JSONPath=`.spec.server`,priority=1
// +kubebuilder:printcolumn:name="Supervisor",type=boolean,JSONPath=`.spec.supervisor`
// +kubebuilder:printcolumn:name="Reachable",type=boolean,JSONPath=`.status.reachable`
// +kubebuilder:printcolumn:name="Leader",type=string,JSONPath=`.status.leader`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type MemberCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec MemberClusterSpec `json:"spec"`
	// +optional
	Status MemberClusterStatus `json:"status,omitempty"`
}

// MemberClusterList is a list of MemberCluster.
//
// +kubebuilder:object:root=true
type MemberClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MemberCluster `json:"items"`
}
