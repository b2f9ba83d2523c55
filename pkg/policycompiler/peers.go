package policycompiler

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// peers plans the sources of an ingress rule or the destinations of an
// egress rule. No peer at all matches every address.
func (ctx *planContext) peers(dir policyrules.Direction, rule *antreav1beta1.Rule) peerPlan {
	list := rule.From
	if dir == policyrules.DirectionEgress {
		list = rule.To
	}
	if len(list) == 0 {
		return peerPlan{any: true}
	}
	var plan peerPlan
	for i := range list {
		ctx.peer(&list[i], &plan)
	}
	plan.prefixes = normalizePrefixes(plan.prefixes)
	return plan
}

func (ctx *planContext) peer(p *antreav1beta1.NetworkPolicyPeer, plan *peerPlan) {
	if p.Scope == antreav1beta1.ScopeClusterSet {
		ctx.issues.warnf(ReasonUnsupported, "peer scope ClusterSet is ignored: an Antrea NetworkPolicy never matches remote resources; "+
			"to select what other members export, write a FederatedNetworkPolicy")
	}
	switch {
	case p.IPBlock != nil:
		prefixes, err := ipBlockPrefixes(p.IPBlock.CIDR, p.IPBlock.Except)
		if err != nil {
			ctx.issues.errorf(ReasonInvalidIPBlock, "%v", err)
		}
		plan.prefixes = append(plan.prefixes, prefixes...)
	case p.Group != "":
		content := ctx.group(p.Group)
		plan.selectors = append(plan.selectors, content.selectors...)
		plan.prefixes = append(plan.prefixes, content.prefixes...)
	case p.Namespaces != nil:
		ctx.namespacesPeer(p, plan)
	case p.PodSelector != nil || p.NamespaceSelector != nil || p.ExternalEntitySelector != nil:
		if spec, ok := ctx.selector(ctx.source.namespace, p.PodSelector, p.NamespaceSelector, p.ExternalEntitySelector); ok {
			plan.selectors = append(plan.selectors, spec)
		}
	case p.ServiceAccount != nil:
		plan.selectors = append(plan.selectors, serviceAccountSelector(p.ServiceAccount))
	case p.FQDN != "":
		ctx.issues.warnf(ReasonUnsupported, "fqdn peer %q is not resolved by the compiler: it matches nothing", p.FQDN)
	case p.NodeSelector != nil:
		ctx.issues.warnf(ReasonUnsupported, "nodeSelector peers are not resolved by the compiler: they match nothing")
	default:
		ctx.issues.warnf(ReasonUnsupported, "a peer selects nothing: it matches nothing")
	}
}

// namespacesPeer plans a peer that selects Namespaces relative to the
// endpoint the rule applies to; only ClusterNetworkPolicies may use it.
func (ctx *planContext) namespacesPeer(p *antreav1beta1.NetworkPolicyPeer, plan *peerPlan) {
	if ctx.source.namespace != "" {
		ctx.issues.errorf(ReasonInvalidPeer, "namespaces in a peer is only for ClusterNetworkPolicy")
		return
	}
	// Namespaces come from the endpoint: plan the selector in every
	// Namespace and keep only its kind and label selector.
	spec, ok := ctx.selector("", p.PodSelector, nil, p.ExternalEntitySelector)
	if !ok {
		return
	}
	template := peerTemplate{kind: spec.kind, selector: spec.selector}
	switch {
	case p.Namespaces.Match == antreav1beta1.NamespaceMatchSelf:
		plan.self = append(plan.self, template)
	case len(p.Namespaces.SameLabels) > 0:
		plan.sameLabel = append(plan.sameLabel, sameLabelsTemplate{peerTemplate: template, keys: p.Namespaces.SameLabels})
	default:
		ctx.issues.errorf(ReasonInvalidPeer, "namespaces sets neither match nor sameLabels")
	}
}

// selector plans a label selector peer or appliedTo entry; it reports an
// Error and returns false when a selector does not parse.
func (ctx *planContext) selector(defaultNamespace string, podSel, nsSel, eeSel *metav1.LabelSelector) (selectorSpec, bool) {
	spec, err := newSelectorSpec(defaultNamespace, podSel, nsSel, eeSel)
	if err != nil {
		ctx.issues.errorf(ReasonInvalidSelector, "%v", err)
		return selectorSpec{}, false
	}
	return spec, true
}

func serviceAccountSelector(sa *antreav1beta1.NamespacedName) selectorSpec {
	sel, _ := asSelector(&metav1.LabelSelector{MatchLabels: map[string]string{serviceAccountLabel: sa.Name}})
	return selectorSpec{kind: podKind, scope: scopeNamespace, namespace: sa.Namespace, selector: sel}
}

// appliedTo plans appliedTo entries. Only ExternalEntity selectors are kept:
// Pods and Nodes are enforced by Antrea's own agents, not here.
func (ctx *planContext) appliedTo(entries []antreav1beta1.AppliedTo) []selectorSpec {
	var out []selectorSpec
	own := ctx.source.namespace
	for i := range entries {
		at := &entries[i]
		switch {
		case at.Group != "":
			content := ctx.group(at.Group)
			if len(content.prefixes) > 0 || content.hasIPBlocks {
				ctx.issues.warnf(ReasonIPBlockGroupInAppliedTo, "appliedTo group %q holds ipBlocks, which select nothing to apply to", at.Group)
			}
			for _, spec := range content.selectors {
				if own != "" && (spec.scope != scopeNamespace || spec.namespace != own) {
					ctx.issues.warnf(ReasonAppliedToOutsideNamespace, "appliedTo group %q selects outside Namespace %s: only workloads of %s are used", at.Group, own, own)
				}
				out = append(out, spec)
			}
		case at.PodSelector != nil || at.NamespaceSelector != nil || at.ExternalEntitySelector != nil:
			if own != "" && at.NamespaceSelector != nil {
				ctx.issues.warnf(ReasonAppliedToOutsideNamespace, "appliedTo namespaceSelector selects outside Namespace %s: only workloads of %s are used", own, own)
			}
			if spec, ok := ctx.selector(own, at.PodSelector, at.NamespaceSelector, at.ExternalEntitySelector); ok {
				out = append(out, spec)
			}
		case at.ServiceAccount != nil:
			// Selects Pods only.
		case at.Service != nil || at.NodeSelector != nil:
			ctx.issues.warnf(ReasonUnsupported, "appliedTo service and nodeSelector are enforced by Antrea's agents, not on ExternalEntities")
		}
	}
	kept := out[:0]
	for _, spec := range out {
		if spec.kind == externalEntityKind {
			kept = append(kept, spec)
		}
	}
	return kept
}
