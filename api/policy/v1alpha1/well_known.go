package v1alpha1

import corev1 "k8s.io/api/core/v1"

// Objects the member controller derives from a FederatedNetworkPolicy
// (docs/federated-policy.md).
const (
	// ManagedByMemberController is the app.kubernetes.io/managed-by value
	// of derived objects: the member controller writes them.
	ManagedByMemberController = "antreaplus-member-controller"
	// LabelFederatedPolicy names the federated policy a derived object
	// belongs to.
	LabelFederatedPolicy = "policy.antreaplus.io/federated-policy"
)

// Secrets that hold the tokens consumers of the policy distribution
// authenticate with (docs/agents.md). Only Secrets with LabelDistributionToken
// are read, and only their Type decides what a token stands for.
const (
	// LabelDistributionToken marks the Secrets the server reads tokens from.
	LabelDistributionToken = "policydistribution.antreaplus.io/token"
	// SecretTypeAgentToken is a Secret whose token identifies the VM agent
	// of the VirtualMachine named by AnnotationTokenVirtualMachine, in the
	// Secret's own namespace: a token never reaches another namespace.
	SecretTypeAgentToken corev1.SecretType = "antreaplus.io/vm-agent-token"
	// SecretTypeAgentlessToken is a Secret, in the controller's own
	// namespace only, whose token identifies the consumer of the agentless
	// VMs' rules: the cloud controller.
	SecretTypeAgentlessToken corev1.SecretType = "antreaplus.io/agentless-consumer-token"
	// AnnotationTokenVirtualMachine names the VirtualMachine of an agent
	// token.
	AnnotationTokenVirtualMachine = "policydistribution.antreaplus.io/virtual-machine"
	// TokenSecretKey is the key of the token in the Secret's data.
	TokenSecretKey = "token"
)

// What `antreaplus trace` creates in a member that runs Antrea: the
// Traceflows of a flow's Pod legs (docs/trace.md). It deletes them when
// done; one a killed command left is found by this label
// (kubectl delete traceflows -l app.kubernetes.io/managed-by=antreaplus-trace).
const (
	// LabelManagedBy is app.kubernetes.io/managed-by.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedByTrace is the LabelManagedBy value of the command's Traceflows.
	ManagedByTrace = "antreaplus-trace"
)
