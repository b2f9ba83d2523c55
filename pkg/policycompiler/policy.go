package policycompiler

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"net/netip"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// policySource is a NetworkPolicy or ClusterNetworkPolicy as written: both
// have the same spec fields.
type policySource struct {
	ref policyrules.PolicyRef
	// namespace is the policy's Namespace, "" for a ClusterNetworkPolicy.
	namespace string
	tier      string
	priority  float64
	appliedTo []antreav1beta1.AppliedTo
	ingress   []antreav1beta1.Rule
	egress    []antreav1beta1.Rule
}

// sourceOfNetworkPolicy keeps references into np, which the caller must not
// modify afterwards.
func sourceOfNetworkPolicy(np *antreav1beta1.NetworkPolicy) *policySource {
	return &policySource{
		ref:       policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: np.Namespace, Name: np.Name},
		namespace: np.Namespace,
		tier:      np.Spec.Tier, priority: np.Spec.Priority, appliedTo: np.Spec.AppliedTo,
		ingress: np.Spec.Ingress, egress: np.Spec.Egress,
	}
}

// sourceOfClusterNetworkPolicy keeps references into cnp, which the caller
// must not modify afterwards.
func sourceOfClusterNetworkPolicy(cnp *antreav1beta1.ClusterNetworkPolicy) *policySource {
	return &policySource{
		ref:  policyrules.PolicyRef{Kind: policyrules.KindClusterNetworkPolicy, Name: cnp.Name},
		tier: cnp.Spec.Tier, priority: cnp.Spec.Priority, appliedTo: cnp.Spec.AppliedTo,
		ingress: cnp.Spec.Ingress, egress: cnp.Spec.Egress,
	}
}

// compiledPolicy is a policy as the compiler holds it.
type compiledPolicy struct {
	source       *policySource
	tier         string
	tierPriority int32
	issues       issueList
	// groups are the Groups or ClusterGroups the policy reads, found or not.
	groups map[groupKey]struct{}
	rules  []*policyRule
}

func (p *compiledPolicy) realized() bool { return !p.issues.hasError() }

// policyRule is one ingress or egress rule of a realised policy, with its
// selectors registered in the index.
type policyRule struct {
	policy    *compiledPolicy
	direction policyrules.Direction
	index     int32
	action    policyrules.Action
	name      string
	logging   bool
	logLabel  string
	ports     []portSpec
	named     bool
	appliedTo []*selectorItem
	anyPeer   bool
	peers     []*selectorItem
	self      []peerTemplate
	sameLabel []sameLabelsTemplate
	ipBlocks  []netip.Prefix
	// dynamic are the selectors registered for self and sameLabel peers,
	// by selector key.
	dynamic map[string]*selectorItem
	// single caches the compiled rules of a rule that compiles the same
	// for every endpoint; variants those of other rules, by variant key.
	single   *[]*compiledRule
	variants map[string][]*compiledRule
	seen     uint64
	dead     bool
}

// perNamespace reports whether the rule's peers depend on the Namespace of
// the endpoint it applies to.
func (r *policyRule) perNamespace() bool { return len(r.self) > 0 || len(r.sameLabel) > 0 }

// peerTemplate is a peer selector whose Namespace is that of the endpoint
// the rule applies to (namespaces: {match: Self}).
type peerTemplate struct {
	kind     entityKind
	selector labels.Selector
}

// sameLabelsTemplate is a peer selector whose Namespaces are those with the
// same values as the endpoint's Namespace for keys (namespaces: {sameLabels}).
type sameLabelsTemplate struct {
	peerTemplate
	keys []string
}

// rulePlan is a rule of a policy before its selectors are registered.
type rulePlan struct {
	direction policyrules.Direction
	index     int32
	action    policyrules.Action
	name      string
	logging   bool
	logLabel  string
	ports     []portSpec
	appliedTo []selectorSpec
	peers     peerPlan
}

// peerPlan is what a rule's peers select.
type peerPlan struct {
	any       bool
	selectors []selectorSpec
	self      []peerTemplate
	sameLabel []sameLabelsTemplate
	prefixes  []netip.Prefix
}

// planContext carries what compiling one policy needs and finds.
type planContext struct {
	compiler *Compiler
	source   *policySource
	issues   issueList
	groups   map[groupKey]struct{}
}

// planPolicy checks a policy and plans its rules. When it reports an Error,
// the plans must not be realised.
func (c *Compiler) planPolicy(src *policySource) (*compiledPolicy, []rulePlan) {
	ctx := &planContext{compiler: c, source: src, groups: map[groupKey]struct{}{}}
	policy := &compiledPolicy{source: src, tier: strings.ToLower(src.tier)}
	if policy.tier == "" {
		policy.tier = policyrules.TierApplication
	}
	priority, ok := c.tiers.priority(policy.tier)
	if !ok {
		ctx.issues.errorf(ReasonTierNotFound, "tier %q does not exist", src.tier)
	}
	policy.tierPriority = priority
	ctx.checkAppliedToPlacement()
	specAppliedTo := ctx.appliedTo(src.appliedTo)
	var plans []rulePlan
	names := map[string]bool{}
	for _, dir := range []policyrules.Direction{policyrules.DirectionIngress, policyrules.DirectionEgress} {
		rules := src.ingress
		if dir == policyrules.DirectionEgress {
			rules = src.egress
		}
		for i := range rules {
			plan := ctx.planRule(policy.tier, dir, int32(i), &rules[i], names)
			if len(rules[i].AppliedTo) == 0 {
				plan.appliedTo = specAppliedTo
			}
			plans = append(plans, plan)
		}
	}
	policy.issues, policy.groups = ctx.issues, ctx.groups
	return policy, plans
}

func (ctx *planContext) checkAppliedToPlacement() {
	src := ctx.source
	inRules, allRules := false, true
	for _, rules := range [][]antreav1beta1.Rule{src.ingress, src.egress} {
		for _, r := range rules {
			inRules = inRules || len(r.AppliedTo) > 0
			allRules = allRules && len(r.AppliedTo) > 0
		}
	}
	switch {
	case len(src.appliedTo) > 0 && inRules:
		ctx.issues.errorf(ReasonInvalidAppliedTo, "appliedTo must be set either in spec or in the rules, not in both")
	case len(src.appliedTo) == 0 && !allRules:
		ctx.issues.errorf(ReasonInvalidAppliedTo, "set appliedTo in spec, or in every rule when spec.appliedTo is empty")
	}
}

func (ctx *planContext) planRule(tier string, dir policyrules.Direction, index int32, rule *antreav1beta1.Rule, names map[string]bool) rulePlan {
	plan := rulePlan{direction: dir, index: index, name: rule.Name, logging: rule.EnableLogging, logLabel: rule.LogLabel}
	if plan.name == "" {
		plan.name = generatedRuleName(dir, rule)
	}
	if names[plan.name] {
		ctx.issues.errorf(ReasonInvalidRule, "rule name %q is used twice", plan.name)
	}
	names[plan.name] = true
	plan.action = ctx.action(tier, plan.name, rule.Action)
	ports, err := convertPorts(rule.Ports, rule.Protocols)
	if err != nil {
		ctx.issues.errorf(ReasonInvalidPort, "rule %q: %v", plan.name, err)
	}
	plan.ports = ports
	if len(rule.L7Protocols) > 0 || len(rule.ToServices) > 0 {
		ctx.issues.warnf(ReasonUnsupported, "rule %q uses l7Protocols or toServices, which cannot be enforced on ExternalEntities: the rule is not enforced", plan.name)
		plan.peers = peerPlan{}
	} else {
		plan.peers = ctx.peers(dir, rule)
	}
	plan.appliedTo = ctx.appliedTo(rule.AppliedTo)
	return plan
}

func (ctx *planContext) action(tier, ruleName string, action *antreav1beta1.RuleAction) policyrules.Action {
	if action == nil {
		ctx.issues.errorf(ReasonInvalidRule, "rule %q has no action", ruleName)
		return ""
	}
	switch a := policyrules.Action(*action); a {
	case policyrules.ActionAllow, policyrules.ActionDrop, policyrules.ActionReject:
		return a
	case policyrules.ActionPass:
		if tier == policyrules.TierBaseline {
			ctx.issues.errorf(ReasonInvalidRule, "rule %q: the Pass action cannot be used in the baseline tier", ruleName)
		}
		return a
	}
	ctx.issues.errorf(ReasonInvalidRule, "rule %q has unknown action %q", ruleName, *action)
	return ""
}

// generatedRuleName names a rule that has no name in the format Antrea
// documents: direction-action-<7 hex digits of a SHA-1 of the rule>. SHA-1
// only makes the name stable; it is not for security.
func generatedRuleName(dir policyrules.Direction, rule *antreav1beta1.Rule) string {
	encoded, _ := json.Marshal(rule)
	digest := sha1.Sum(encoded)
	action := "none"
	if rule.Action != nil {
		action = strings.ToLower(string(*rule.Action))
	}
	return strings.ToLower(string(dir)) + "-" + action + "-" + hex.EncodeToString(digest[:])[:7]
}
