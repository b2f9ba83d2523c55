package wire

// PathAgentlessReport takes the AgentlessReport of the agentless consumer
// (POST): what its security groups enforce.
const PathAgentlessReport = "/v1/agentless-report"

// AgentlessReport is what the agentless consumer (the cloud controller)
// tells the server after every sync of its security groups.
type AgentlessReport struct {
	// AppliedEpoch and AppliedGeneration identify the view the last
	// complete sync enforced.
	AppliedEpoch      string `json:"appliedEpoch"`
	AppliedGeneration uint64 `json:"appliedGeneration"`
	// Endpoints lists only the endpoints whose rules are not all enforced
	// as written; every other endpoint of the view is.
	Endpoints []EndpointRealization `json:"endpoints,omitempty"`
	// Reporter names the cloud controller replica that reports (its
	// tenancy holder identity): replicas sharing tenants each report on
	// the endpoints of theirs, and the server merges the reports. Empty
	// for a controller that reports alone.
	Reporter string `json:"reporter,omitempty"`
}

// EndpointRealization is what an enforcement point does not enforce as
// written.
type EndpointRealization struct {
	// Name is the endpoint's "namespace/name".
	Name     string    `json:"name"`
	Findings []Finding `json:"findings"`
}

// Severities of a Finding.
const (
	// SeverityUnrealized: part of the rules is not enforced as written.
	SeverityUnrealized = "Unrealized"
	// SeverityApproximated: the rules are enforced, slightly differently.
	SeverityApproximated = "Approximated"
)

// Finding is one part of an endpoint's rules that is not enforced as
// written, and why.
type Finding struct {
	// Policy is the policy concerned; zero when the finding concerns every
	// policy of the endpoint (the sync of its VPC failed, say).
	Policy PolicyRef `json:"policy,omitzero"`
	// Rule names the rule concerned, when one is.
	Rule     string `json:"rule,omitempty"`
	Severity string `json:"severity"`
	// Reason is a CamelCase word; Message says it for people.
	Reason  string `json:"reason"`
	Message string `json:"message"`
}
