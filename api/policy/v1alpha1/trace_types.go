package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories=antreaplus
// +kubebuilder:printcolumn:name="Source",type=string,JSONPath=`.spec.source.externalEntity`
// +kubebuilder:printcolumn:name="Destination",type=string,JSONPath=`.spec.destination.externalEntity`
// +kubebuilder:printcolumn:name="Port",type=integer,JSONPath=`.spec.port`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Verdict",type=string,JSONPath=`.status.verdict`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Trace asks this member's policy controller how one flow is decided at the
// enforcement points of this member that it passes: the source's egress
// (when the source is an ExternalEntity of the Trace's Namespace here) and
// the destination's ingress (likewise). Each point's verdict is computed
// from the rules the controller serves its enforcer, and, with live, also
// observed: the VM's agent sends the flow (source) or watches for it
// (destination) and the kernel's nftables tracing names the rule that
// decided the real packet. `antreaplus trace --live` creates one in each
// member on the way; tools may create them too. A Trace is deleted
// ttlSecondsAfterFinished after it ends.
//
// Tenancy: a Trace names workloads of its own Namespace only, so whoever
// may create Traces in a Namespace traces that Namespace's workloads and
// nothing else.
type Trace struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the flow to trace.
	// +required
	Spec TraceSpec `json:"spec"`

	// status is what the policy controller found.
	// +optional
	Status TraceStatus `json:"status,omitzero"`
}

// TraceSpec is one flow, as this member sees it.
// +kubebuilder:validation:XValidation:rule="has(self.source.externalEntity) || has(self.destination.externalEntity)",message="name the source's or the destination's ExternalEntity: a Trace traces the points of its own Namespace in this member"
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a Trace's spec cannot change: create another"
type TraceSpec struct {
	// source is the end that sends.
	// +required
	Source TraceEnd `json:"source"`

	// destination is the end that receives.
	// +required
	Destination TraceEnd `json:"destination"`

	// protocol is TCP, UDP or SCTP.
	// +optional
	// +kubebuilder:validation:Enum=TCP;UDP;SCTP
	// +kubebuilder:default=TCP
	Protocol string `json:"protocol,omitempty"`

	// port is the destination port.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`

	// live also observes the flow: the source's agent sends it, the
	// destination's agent watches for it, and each reports the rule that
	// decided the real packet.
	// +optional
	Live bool `json:"live,omitempty"`

	// timeoutSeconds bounds the live part: the source's connection attempt,
	// the destination's watch.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=30
	// +kubebuilder:default=10
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty"`

	// ttlSecondsAfterFinished is how long the Trace is kept once it ended.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=600
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
}

// TraceEnd is one end of the flow.
type TraceEnd struct {
	// externalEntity is an ExternalEntity of the Trace's Namespace in this
	// member: this end's enforcement point is traced here.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ExternalEntity string `json:"externalEntity,omitempty"`

	// address is this end's address as the other end sees it (after NAT);
	// required for the other end's point to be traced. For an
	// ExternalEntity it defaults to its first endpoint's address.
	// +optional
	// +kubebuilder:validation:MaxLength=45
	Address string `json:"address,omitempty"`
}

// TracePhase is where a Trace is.
// +kubebuilder:validation:Enum=Running;Completed;Failed
type TracePhase string

// Phases of a Trace.
const (
	TraceRunning   TracePhase = "Running"
	TraceCompleted TracePhase = "Completed"
	TraceFailed    TracePhase = "Failed"
)

// TraceStatus is what the policy controller found.
type TraceStatus struct {
	// phase is Running, then Completed (every point traced) or Failed (the
	// spec cannot be traced: message says why).
	// +optional
	Phase TracePhase `json:"phase,omitempty"`

	// verdict is the flow's verdict in this member: Dropped or Rejected
	// when a point here stops it, else Allowed.
	// +optional
	Verdict string `json:"verdict,omitempty"`

	// message says why a Trace failed, or what a reader should know.
	// +optional
	Message string `json:"message,omitempty"`

	// startTime and completionTime bound the trace.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// points are the enforcement points of this member on the way.
	// +optional
	// +listType=atomic
	Points []TracePoint `json:"points,omitempty"`
}

// TracePoint is one enforcement point's verdict, computed and observed.
type TracePoint struct {
	// externalEntity is the point (namespace/name).
	// +required
	ExternalEntity string `json:"externalEntity"`

	// direction is Egress (the source's point) or Ingress.
	// +required
	Direction string `json:"direction"`

	// enforcer is the VM whose agent enforces the point (its
	// externalNode), or the agentless enforcer's node.
	// +optional
	Enforcer string `json:"enforcer,omitempty"`

	// computed is the verdict of the rules the controller serves the
	// enforcer.
	// +required
	Computed TraceVerdict `json:"computed"`

	// observed is what the agent saw decide the real packet (live only).
	// +optional
	Observed *TraceVerdict `json:"observed,omitempty"`

	// connected says, for the source's point of a live TCP trace, whether
	// the destination answered the agent's connection.
	// +optional
	Connected *bool `json:"connected,omitempty"`

	// agrees is false when the observed verdict or rule differs from the
	// computed one (a rule not yet realised, an agent out of date).
	// +optional
	Agrees *bool `json:"agrees,omitempty"`

	// pending, when set, says why the enforcer may not enforce the
	// computed rules yet: a policy among them not realised on its points.
	// +optional
	Pending string `json:"pending,omitempty"`

	// findings are what the agentless enforcer (the cloud's security
	// groups) reported it cannot enforce as written, of this point's
	// policies: a Drop it cannot express, a Reject enforced as a silent
	// drop, rules enforced on a load balancer's backend pool. The computed
	// verdict is the rules'; these say where the cloud's differs.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Findings []TraceFinding `json:"findings,omitempty"`
}

// TraceFinding is one part of a point's rules its enforcer does not
// enforce as written.
type TraceFinding struct {
	// severity is Unrealized (not enforced as written) or Approximated
	// (enforced, slightly differently).
	// +required
	Severity string `json:"severity"`

	// reason is a CamelCase word, e.g. DenyNotExpressible.
	// +required
	Reason string `json:"reason"`

	// policy is the policy concerned, "Kind:namespace/name"; empty when
	// the finding concerns every policy of the point.
	// +optional
	Policy string `json:"policy,omitempty"`

	// rule names the rule concerned, when one is.
	// +optional
	Rule string `json:"rule,omitempty"`

	// message says it for people.
	// +optional
	Message string `json:"message,omitempty"`
}

// TraceVerdict is a verdict and the rule that decided it.
type TraceVerdict struct {
	// verdict is Allowed, Dropped, Rejected, or NotSeen (observed only: no
	// packet of the flow reached the point's rules).
	// +required
	Verdict string `json:"verdict"`

	// rule is the deciding rule, "Kind:namespace/name Direction index
	// (name): Action"; empty when no rule decided (default allow).
	// +optional
	Rule string `json:"rule,omitempty"`

	// note adds what the rule alone does not say.
	// +optional
	Note string `json:"note,omitempty"`

	// decidedBy is the deciding rule by its parts (computed verdicts;
	// absent when no rule decided).
	// +optional
	DecidedBy *TraceRule `json:"decidedBy,omitempty"`
}

// TraceRule is a rule by its parts, for tools.
type TraceRule struct {
	// policy is the Antrea policy, "Kind:namespace/name" ("Kind:name"
	// cluster-scoped).
	// +required
	Policy string `json:"policy"`

	// tier is the policy's tier.
	// +optional
	Tier string `json:"tier,omitempty"`

	// direction is Ingress or Egress.
	// +required
	Direction string `json:"direction"`

	// index is the rule's place among the policy's rules of its direction.
	// +required
	Index int32 `json:"index"`

	// name is the rule's name, if it has one.
	// +optional
	Name string `json:"name,omitempty"`

	// action is Allow, Drop, Reject or Pass.
	// +required
	Action string `json:"action"`

	// federatedPolicy is the FederatedNetworkPolicy (namespace/name) the
	// policy is derived from, if it is.
	// +optional
	FederatedPolicy string `json:"federatedPolicy,omitempty"`
}

// +kubebuilder:object:root=true

// TraceList is a list of Traces.
type TraceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Trace `json:"items"`
}
