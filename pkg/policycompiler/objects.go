package policycompiler

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Upsert adds or replaces objects: *v1alpha2.ExternalEntity, *Pod,
// *Namespace, and *v1beta1.NetworkPolicy, ClusterNetworkPolicy, Group,
// ClusterGroup and Tier. It returns an error for objects of other types
// (after handling the others). Problems in policies are not errors: see
// PolicyStatus.
//
// The compiler keeps references to the policies and groups it is given, as
// a controller shares the objects of its informers' caches: they must not
// be modified afterwards. Upsert a new object to change one.
func (c *Compiler) Upsert(objs ...any) error {
	var errs []error
	for _, obj := range objs {
		switch o := obj.(type) {
		case *antreav1alpha2.ExternalEntity:
			c.setEntity(c.externalEntity(o), o.Labels)
		case *Pod:
			c.setEntity(c.pod(o), podLabels(o))
		case *Namespace:
			c.setNamespace(o.Name, o.Labels)
		case *antreav1beta1.NetworkPolicy:
			c.setPolicy(sourceOfNetworkPolicy(o))
		case *antreav1beta1.ClusterNetworkPolicy:
			c.setPolicy(sourceOfClusterNetworkPolicy(o))
		case *antreav1beta1.Group:
			c.setGroup(groupKey{namespace: o.Namespace, name: o.Name}, &o.Spec)
		case *antreav1beta1.ClusterGroup:
			c.setGroup(groupKey{name: o.Name}, &o.Spec)
		case *antreav1beta1.Tier:
			if c.tiers.set(strings.ToLower(o.Name), o.Spec.Priority) {
				c.recompile(c.policiesByTier[strings.ToLower(o.Name)])
			}
		default:
			errs = append(errs, fmt.Errorf("policycompiler: cannot upsert a %T", obj))
		}
	}
	return errors.Join(errs...)
}

// Delete removes objects of the types Upsert takes; only their kind,
// Namespace and name are read.
func (c *Compiler) Delete(objs ...any) error {
	var errs []error
	for _, obj := range objs {
		switch o := obj.(type) {
		case *antreav1alpha2.ExternalEntity:
			c.deleteEntity(externalEntityKind, o.Namespace+"/"+o.Name)
		case *Pod:
			c.deleteEntity(podKind, o.Namespace+"/"+o.Name)
		case *Namespace:
			c.setNamespace(o.Name, nil)
		case *antreav1beta1.NetworkPolicy:
			c.removePolicy(policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: o.Namespace, Name: o.Name})
		case *antreav1beta1.ClusterNetworkPolicy:
			c.removePolicy(policyrules.PolicyRef{Kind: policyrules.KindClusterNetworkPolicy, Name: o.Name})
		case *antreav1beta1.Group:
			c.setGroup(groupKey{namespace: o.Namespace, name: o.Name}, nil)
		case *antreav1beta1.ClusterGroup:
			c.setGroup(groupKey{name: o.Name}, nil)
		case *antreav1beta1.Tier:
			if c.tiers.remove(strings.ToLower(o.Name)) {
				c.recompile(c.policiesByTier[strings.ToLower(o.Name)])
			}
		default:
			errs = append(errs, fmt.Errorf("policycompiler: cannot delete a %T", obj))
		}
	}
	return errors.Join(errs...)
}

func (c *Compiler) externalEntity(ee *antreav1alpha2.ExternalEntity) *entity {
	e := &entity{
		kind:         externalEntityKind,
		namespace:    c.intern.get(ee.Namespace),
		name:         ee.Name,
		id:           ee.Namespace + "/" + ee.Name,
		externalNode: c.intern.get(ee.Spec.ExternalNode),
	}
	for _, ep := range ee.Spec.Endpoints {
		// The CRD only admits valid IPs; anything else has no address to match.
		if addr, err := netip.ParseAddr(ep.IP); err == nil {
			e.ips = append(e.ips, addr.Unmap())
		}
	}
	for _, p := range ee.Spec.Ports {
		protocol := policyrules.Protocol(strings.ToUpper(string(p.Protocol)))
		if protocol == "" {
			protocol = policyrules.ProtocolTCP
		}
		e.ports = append(e.ports, NamedPort{Name: p.Name, Protocol: protocol, Port: p.Port})
	}
	return e
}

func (c *Compiler) pod(p *Pod) *entity {
	e := &entity{kind: podKind, namespace: c.intern.get(p.Namespace), name: p.Name, id: p.Namespace + "/" + p.Name, ports: slices.Clone(p.Ports)}
	for _, addr := range p.IPs {
		e.ips = append(e.ips, addr.Unmap())
	}
	return e
}

// podLabels returns a Pod's labels plus the label of its ServiceAccount.
func podLabels(p *Pod) map[string]string {
	if p.ServiceAccount == "" {
		return p.Labels
	}
	out := make(map[string]string, len(p.Labels)+1)
	for k, v := range p.Labels {
		out[k] = v
	}
	out[serviceAccountLabel] = p.ServiceAccount
	return out
}

// setEntity adds or replaces a workload. Selectors that gain or lose its
// addresses are touched; an ExternalEntity is assembled again.
func (c *Compiler) setEntity(e *entity, lbls map[string]string) {
	key := e.id
	old := c.entities[e.kind][key]
	var before map[*selectorItem]struct{}
	sameAddresses := false
	if old != nil {
		sameAddresses = slices.Equal(old.ips, e.ips) && slices.Equal(old.ports, e.ports)
		if sameAddresses && old.externalNode == e.externalNode && labels.Equals(old.set.labels, lbls) {
			return
		}
		before = old.set.selectors
		c.forgetEntity(old)
	}
	c.index.addEntity(e, lbls)
	c.entities[e.kind][key] = e
	after := e.set.selectors
	for s := range before {
		if _, kept := after[s]; !kept || !sameAddresses {
			c.touch(s)
		}
	}
	for s := range after {
		if _, kept := before[s]; !kept || !sameAddresses {
			c.touch(s)
		}
	}
	if e.kind == externalEntityKind {
		c.endpointsByNode[e.externalNode] = append(c.endpointsByNode[e.externalNode], key)
		c.dirty[key] = struct{}{}
	}
}

func (c *Compiler) deleteEntity(kind entityKind, key string) {
	old := c.entities[kind][key]
	if old == nil {
		return
	}
	for s := range old.set.selectors {
		c.touch(s)
	}
	c.forgetEntity(old)
	if kind == externalEntityKind {
		c.dirty[key] = struct{}{}
	}
}

func (c *Compiler) forgetEntity(e *entity) {
	c.index.removeEntity(e)
	delete(c.entities[e.kind], e.id)
	if e.kind == externalEntityKind {
		c.removeFromNode(e.externalNode, e.id)
	}
}

// removeFromNode forgets that endpoint is on node. A node has few
// endpoints (one per network interface), so a slice does.
func (c *Compiler) removeFromNode(node, endpoint string) {
	endpoints := slices.DeleteFunc(c.endpointsByNode[node], func(ep string) bool { return ep == endpoint })
	if len(endpoints) == 0 {
		delete(c.endpointsByNode, node)
		return
	}
	c.endpointsByNode[node] = endpoints
}

// setNamespace records a Namespace's labels, nil when it is deleted.
func (c *Compiler) setNamespace(name string, lbls map[string]string) {
	name = c.intern.get(name)
	old, existed := c.index.namespaceLabels[name]
	changes := c.index.setNamespaceLabels(name, lbls)
	for _, change := range changes {
		c.touch(change.selector)
		if len(change.selector.appliedUsers) > 0 {
			for e := range change.set.entities {
				c.dirty[e.id] = struct{}{}
			}
		}
	}
	if existed != (lbls != nil) || !labels.Equals(old, lbls) {
		for r := range c.sameLabelRules {
			c.invalidate(r)
		}
	}
}

// setGroup records a group's spec, nil when it is deleted, and compiles
// again the policies that read it.
func (c *Compiler) setGroup(key groupKey, spec *antreav1beta1.GroupSpec) {
	if spec == nil {
		delete(c.groups, key)
	} else {
		c.groups[key] = spec
	}
	c.recompile(c.policiesByGroup[key])
}

func (c *Compiler) recompile(refs map[policyrules.PolicyRef]struct{}) {
	for _, ref := range slices.SortedFunc(maps.Keys(refs), policyrules.PolicyRef.Compare) {
		if p, ok := c.policies[ref]; ok {
			c.setPolicy(p.source)
		}
	}
}
