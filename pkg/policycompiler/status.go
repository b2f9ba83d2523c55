package policycompiler

import (
	"cmp"
	"fmt"
	"slices"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Severity says whether an Issue stops a policy from being realised.
type Severity string

const (
	// SeverityError means the policy is not realised at all: no endpoint
	// enforces any of its rules.
	SeverityError Severity = "Error"
	// SeverityWarning means the policy is realised, but some part of it has
	// no effect or a narrower effect than written.
	SeverityWarning Severity = "Warning"
)

// Reasons of Issues.
const (
	// ReasonTierNotFound: the policy's tier does not exist.
	ReasonTierNotFound = "TierNotFound"
	// ReasonInvalidIPBlock: an ipBlock cidr or except does not parse, or an
	// except is not inside its cidr.
	ReasonInvalidIPBlock = "InvalidIPBlock"
	// ReasonInvalidSelector: a label selector does not parse.
	ReasonInvalidSelector = "InvalidSelector"
	// ReasonInvalidPort: a port, endPort or protocol is out of range.
	ReasonInvalidPort = "InvalidPort"
	// ReasonInvalidRule: a rule has no or an unknown action, a duplicate
	// name, or a Pass action in the baseline tier.
	ReasonInvalidRule = "InvalidRule"
	// ReasonInvalidAppliedTo: appliedTo is set both in spec and in rules, or
	// in neither.
	ReasonInvalidAppliedTo = "InvalidAppliedTo"
	// ReasonInvalidPeer: a peer uses a field its policy kind cannot use.
	ReasonInvalidPeer = "InvalidPeer"

	// ReasonAppliedToOutsideNamespace: a namespaced policy's appliedTo would
	// select workloads of other Namespaces; only its own Namespace's are used.
	ReasonAppliedToOutsideNamespace = "AppliedToOutsideNamespace"
	// ReasonGroupNotFound: a referenced Group or ClusterGroup does not exist
	// (yet); it holds nothing until it does.
	ReasonGroupNotFound = "GroupNotFound"
	// ReasonIPBlockGroupInAppliedTo: an appliedTo group holds ipBlocks,
	// which select nothing to apply to.
	ReasonIPBlockGroupInAppliedTo = "IPBlockGroupInAppliedTo"
	// ReasonNestedChildGroup: a child group has children of its own, which
	// Antrea does not allow; they are ignored.
	ReasonNestedChildGroup = "NestedChildGroup"
	// ReasonUnsupported: a peer, appliedTo or rule feature that this
	// compiler cannot express for ExternalEntities; that part matches
	// nothing.
	ReasonUnsupported = "Unsupported"
)

// Issue is one problem found while compiling a policy.
type Issue struct {
	Severity Severity
	Reason   string
	Message  string
}

// String returns "Severity Reason: Message".
func (i Issue) String() string { return string(i.Severity) + " " + i.Reason + ": " + i.Message }

// PolicyStatus says whether a policy is realised and why not.
type PolicyStatus struct {
	Policy policyrules.PolicyRef
	// Realized is false when an Issue of SeverityError stops the policy.
	Realized bool
	// Issues are sorted by severity, reason and message.
	Issues []Issue
	// Endpoints is the number of enforcement points the policy applies to.
	Endpoints int
}

// issueList collects the Issues of one policy compilation.
type issueList []Issue

func (l *issueList) errorf(reason, format string, args ...any) {
	*l = append(*l, Issue{Severity: SeverityError, Reason: reason, Message: fmt.Sprintf(format, args...)})
}

func (l *issueList) warnf(reason, format string, args ...any) {
	*l = append(*l, Issue{Severity: SeverityWarning, Reason: reason, Message: fmt.Sprintf(format, args...)})
}

func (l issueList) hasError() bool {
	return slices.ContainsFunc(l, func(i Issue) bool { return i.Severity == SeverityError })
}

// sorted returns the issues sorted (errors first) and without duplicates.
func (l issueList) sorted() []Issue {
	out := slices.Clone(l)
	slices.SortFunc(out, func(a, b Issue) int {
		return cmp.Or(cmp.Compare(severityRank(a.Severity), severityRank(b.Severity)),
			cmp.Compare(a.Reason, b.Reason), cmp.Compare(a.Message, b.Message))
	})
	return slices.Compact(out)
}

func severityRank(s Severity) int {
	if s == SeverityError {
		return 0
	}
	return 1
}
