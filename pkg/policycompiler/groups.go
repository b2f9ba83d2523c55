package policycompiler

import (
	"net/netip"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
)

// groupKey names a Group (namespace set) or a ClusterGroup (namespace "").
type groupKey struct {
	namespace string
	name      string
}

func (k groupKey) String() string {
	if k.namespace == "" {
		return "ClusterGroup " + k.name
	}
	return "Group " + k.namespace + "/" + k.name
}

// groupContent is what a group holds, resolved one level of children deep.
type groupContent struct {
	selectors   []selectorSpec
	prefixes    []netip.Prefix
	hasIPBlocks bool
}

// group resolves the group a policy names: a Group of the policy's own
// Namespace for an Antrea NetworkPolicy, a ClusterGroup for a
// ClusterNetworkPolicy. A missing group holds nothing until it exists.
func (ctx *planContext) group(name string) groupContent {
	key := groupKey{namespace: ctx.source.namespace, name: name}
	ctx.groups[key] = struct{}{}
	spec, ok := ctx.compiler.groups[key]
	if !ok {
		ctx.issues.warnf(ReasonGroupNotFound, "%s does not exist: it holds nothing until it does", key)
		return groupContent{}
	}
	var content groupContent
	ctx.addGroupMembers(key, spec, &content)
	for _, child := range spec.ChildGroups {
		childKey := groupKey{namespace: key.namespace, name: string(child)}
		ctx.groups[childKey] = struct{}{}
		childSpec, ok := ctx.compiler.groups[childKey]
		if !ok {
			ctx.issues.warnf(ReasonGroupNotFound, "child %s of %s does not exist: it holds nothing until it does", childKey, key)
			continue
		}
		if len(childSpec.ChildGroups) > 0 {
			ctx.issues.warnf(ReasonNestedChildGroup, "child %s of %s has childGroups itself: they are ignored", childKey, key)
		}
		ctx.addGroupMembers(childKey, childSpec, &content)
	}
	return content
}

// addGroupMembers adds the selectors and ipBlocks of one group, not its
// children. Without namespaceSelector, a Group selects in its Namespace and
// a ClusterGroup in every Namespace.
func (ctx *planContext) addGroupMembers(key groupKey, spec *antreav1beta1.GroupSpec, content *groupContent) {
	if spec.PodSelector != nil || spec.NamespaceSelector != nil || spec.ExternalEntitySelector != nil {
		if sel, ok := ctx.selector(key.namespace, spec.PodSelector, spec.NamespaceSelector, spec.ExternalEntitySelector); ok {
			content.selectors = append(content.selectors, sel)
		}
	}
	for _, block := range spec.IPBlocks {
		content.hasIPBlocks = true
		prefixes, err := ipBlockPrefixes(block.CIDR, block.Except)
		if err != nil {
			ctx.issues.errorf(ReasonInvalidIPBlock, "%s: %v", key, err)
			continue
		}
		content.prefixes = append(content.prefixes, prefixes...)
	}
	if spec.ServiceReference != nil {
		ctx.issues.warnf(ReasonUnsupported, "%s uses serviceReference, which the compiler does not resolve: it holds no Service Pods", key)
	}
}
