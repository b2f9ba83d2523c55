package gather

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/trace"
)

// Workload resolves a spec. from is the source's member, where a
// destination name is resolved; "" for the source itself.
func (w *World) Workload(sp Spec, namespace, from string) (trace.Workload, *trace.Resolution, error) {
	switch sp.Kind {
	case KindIP:
		return w.byIP(sp.Member, sp.IP), nil, nil
	case KindDNS:
		return w.byName(sp, cmp.Or(sp.Member, from))
	case KindRemote:
		return w.byRemote(sp, namespace, cmp.Or(sp.Member, from))
	case KindPod:
		return w.byPod(sp)
	}
	if sp.Member != "" {
		if _, err := w.member(sp.Member); err != nil {
			return trace.Workload{}, nil, err
		}
	}
	var found []match
	for _, m := range w.Members {
		if (sp.Member != "" && m.Context != sp.Member && m.ClusterID != sp.Member) || m.Err != nil {
			continue
		}
		for i := range m.entities {
			e := &m.entities[i]
			if namespace != "" && e.Namespace != namespace {
				continue
			}
			if sp.matches(e, m.cloudNames[e.Namespace+"/"+e.Labels[cloudv1alpha1.LabelEntityName]]) {
				found = append(found, match{m, e})
			}
		}
	}
	if len(found) == 0 {
		return trace.Workload{}, nil, fmt.Errorf("no ExternalEntity of %s/%s in %s%s", sp.Kind, sp.Name, w.scope(sp.Member), nsNote(namespace))
	}
	members := map[string]bool{}
	for _, f := range found {
		members[f.m.Context] = true
	}
	if len(members) > 1 {
		return trace.Workload{}, nil, fmt.Errorf("%s/%s is in %d members (%s): say which, as MEMBER:%s/%s", sp.Kind, sp.Name, len(members),
			strings.Join(sortedKeys(members), ", "), sp.Kind, sp.Name)
	}
	slices.SortFunc(found, func(a, b match) int { return cmp.Compare(a.e.Namespace+"/"+a.e.Name, b.e.Namespace+"/"+b.e.Name) })
	return found[0].m.workload(found[0].e), nil, nil
}

// match is an ExternalEntity a spec names, and its member.
type match struct {
	m *Member
	e *antreav1alpha2.ExternalEntity
}

// matches reports whether an ExternalEntity is the one sp names: by its
// Name tag, its object's name or (a service) its name in the cloud.
func (sp Spec) matches(e *antreav1alpha2.ExternalEntity, cloudName string) bool {
	kind := e.Labels[cloudv1alpha1.LabelEntityKind]
	named := e.Labels[labelVMName] == sp.Name || e.Labels[cloudv1alpha1.LabelEntityName] == sp.Name ||
		(cloudName != "" && cloudName == sp.Name)
	switch sp.Kind {
	case KindVM:
		return kind == cloudv1alpha1.EntityKindVirtualMachine && named
	case KindService:
		return kind == cloudv1alpha1.EntityKindCloudNativeService && named
	case KindEntity:
		return e.Namespace == sp.Namespace && e.Name == sp.Name
	}
	return false
}

func (w *World) scope(member string) string {
	if member != "" {
		return "member " + member
	}
	return "any member (" + w.names() + ")"
}

func nsNote(ns string) string {
	if ns == "" {
		return ""
	}
	return ", namespace " + ns
}

// workload is an ExternalEntity of m with its enforcement point.
func (m *Member) workload(e *antreav1alpha2.ExternalEntity) trace.Workload {
	w := trace.Workload{Member: m.Context, Network: e.Labels[federationv1alpha1.LabelNetwork],
		Name: fmt.Sprintf("%s %s (ExternalEntity %s/%s in %s)", entityKind(e),
			cmp.Or(e.Labels[labelVMName], m.cloudNames[e.Namespace+"/"+e.Labels[cloudv1alpha1.LabelEntityName]], e.Name), e.Namespace, e.Name, m.Context)}
	w.Addresses = addressesOf(e.Annotations[federationv1alpha1.AnnotationAddresses], e.Spec.Endpoints)
	// Its rules are compiled by World.Compile, once the flow's addresses
	// are known.
	w.Point = &trace.Point{Member: m.Context, Endpoint: e.Namespace + "/" + e.Name, Enforcer: e.Spec.ExternalNode}
	return w
}

func entityKind(e *antreav1alpha2.ExternalEntity) string {
	switch e.Labels[cloudv1alpha1.LabelEntityKind] {
	case cloudv1alpha1.EntityKindVirtualMachine:
		return "VM"
	case cloudv1alpha1.EntityKindCloudNativeService:
		return "service"
	}
	return "entity"
}

// addressesOf are an entity's classified addresses, or its endpoints
// unclassified.
func addressesOf(annotation string, eps []antreav1alpha2.Endpoint) []trace.Address {
	var out []trace.Address
	var classified []federationv1alpha1.EntityAddress
	if annotation != "" && json.Unmarshal([]byte(annotation), &classified) == nil {
		for _, a := range classified {
			if ip, err := netip.ParseAddr(a.IP); err == nil {
				out = append(out, trace.Address{IP: ip, Kind: string(a.Kind), Via: a.Via})
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, e := range eps {
		if ip, err := netip.ParseAddr(e.IP); err == nil {
			out = append(out, trace.Address{IP: ip})
		}
	}
	return out
}

// byPod is a Pod: its addresses in its member's cluster network; its own
// policies are Antrea's, not computed here.
func (w *World) byPod(sp Spec) (trace.Workload, *trace.Resolution, error) {
	for _, m := range w.Members {
		if m.Err != nil || (sp.Member != "" && m.Context != sp.Member && m.ClusterID != sp.Member) {
			continue
		}
		for i := range m.pods {
			if p := &m.pods[i]; p.Namespace == sp.Namespace && p.Name == sp.Name {
				return m.podWorkload(p), nil, nil
			}
		}
	}
	return trace.Workload{}, nil, fmt.Errorf("no Pod %s/%s in %s", sp.Namespace, sp.Name, w.scope(sp.Member))
}

func (m *Member) podWorkload(p *corev1.Pod) trace.Workload {
	w := trace.Workload{Member: m.Context, Name: fmt.Sprintf("Pod %s/%s (in %s)", p.Namespace, p.Name, m.Context),
		Network:   "cluster." + m.ClusterID,
		Elsewhere: fmt.Sprintf("Antrea enforces the policies of Pods in %s (its Traceflow traces them there)", m.Context),
		Pod:       &trace.PodEnd{Namespace: p.Namespace, Name: p.Name}}
	for _, ip := range p.Status.PodIPs {
		if a, err := netip.ParseAddr(ip.IP); err == nil {
			w.Addresses = append(w.Addresses, trace.Address{IP: a})
		}
	}
	return w
}

// byIP is the entity with that address in member (any member when ""),
// else the address alone, outside the federation.
func (w *World) byIP(member string, ip netip.Addr) trace.Workload {
	for _, m := range w.Members {
		if m.Err != nil || (member != "" && m.Context != member && m.ClusterID != member) {
			continue
		}
		for i := range m.entities {
			e := &m.entities[i]
			if slices.ContainsFunc(e.Spec.Endpoints, func(ep antreav1alpha2.Endpoint) bool { return ep.IP == ip.String() }) {
				return m.workload(e)
			}
		}
		for i := range m.pods {
			p := &m.pods[i]
			if slices.ContainsFunc(p.Status.PodIPs, func(a corev1.PodIP) bool { return a.IP == ip.String() }) {
				return m.podWorkload(p)
			}
		}
	}
	return trace.Workload{Member: member, Name: ip.String(), Addresses: []trace.Address{{IP: ip}}}
}

// byRemote is the entity a RemoteEntity of member mirrors, traced where it
// is enforced: in its own member.
func (w *World) byRemote(sp Spec, namespace, member string) (trace.Workload, *trace.Resolution, error) {
	if member == "" {
		return trace.Workload{}, nil, fmt.Errorf("remote/%s: say in which member it is imported, as MEMBER:remote/%s", sp.Name, sp.Name)
	}
	m, err := w.member(member)
	if err != nil {
		return trace.Workload{}, nil, err
	}
	for _, r := range m.remote {
		if (namespace != "" && r.Namespace != namespace) || (r.Name != sp.Name && r.Labels[labelVMName] != sp.Name) {
			continue
		}
		src, err := w.member(r.Spec.SourceCluster)
		if err != nil {
			wl := trace.Workload{Member: member, Name: fmt.Sprintf("RemoteEntity %s/%s (from %s, not read)", r.Namespace, r.Name, r.Spec.SourceCluster)}
			for _, a := range r.Spec.Addresses {
				if ip, err := netip.ParseAddr(a.IP); err == nil {
					wl.Addresses = append(wl.Addresses, trace.Address{IP: ip, Kind: string(a.Kind), Via: a.Via})
				}
			}
			wl.Network = r.Spec.Network
			return wl, nil, nil
		}
		for i := range src.entities {
			if e := &src.entities[i]; e.Namespace+"/"+e.Name == r.Spec.SourceName || e.Name == r.Spec.SourceName {
				return src.workload(e), nil, nil
			}
		}
		return trace.Workload{}, nil, fmt.Errorf("RemoteEntity %s/%s of %s mirrors %s of %s, which %s no longer has", r.Namespace, r.Name, member,
			r.Spec.SourceName, r.Spec.SourceCluster, r.Spec.SourceCluster)
	}
	return trace.Workload{}, nil, fmt.Errorf("no RemoteEntity %s in member %s%s", sp.Name, member, nsNote(namespace))
}

// byName resolves a federated Service's name in member: its ServiceImport's
// addresses are the answer; the packet goes to one of its exporters'
// endpoints, the first ready one, traced where it is enforced.
func (w *World) byName(sp Spec, member string) (trace.Workload, *trace.Resolution, error) {
	fqdn := sp.Name + "." + sp.Namespace + ".svc.clusterset.local"
	if member == "" {
		return trace.Workload{}, nil, fmt.Errorf("%s: say in which member it is resolved, as MEMBER:%s, or give the source first", fqdn, fqdn)
	}
	m, err := w.member(member)
	if err != nil {
		return trace.Workload{}, nil, err
	}
	i := slices.IndexFunc(m.imports, func(si mcsv1beta1.ServiceImport) bool { return si.Namespace == sp.Namespace && si.Name == sp.Name })
	if i < 0 {
		return trace.Workload{}, nil, fmt.Errorf("%s: NXDOMAIN in %s: no ServiceImport %s/%s there (not exported, or not imported yet)", fqdn, member, sp.Namespace, sp.Name)
	}
	res := &trace.Resolution{Name: fqdn, Answers: slices.Clone(m.imports[i].Spec.IPs)}
	var exporters []string
	for _, s := range m.slices {
		if s.Namespace != sp.Namespace || s.Labels[mcsv1beta1.LabelServiceName] != sp.Name {
			continue
		}
		exporter := s.Labels[mcsv1beta1.LabelSourceCluster]
		if !slices.Contains(exporters, exporter) {
			exporters = append(exporters, exporter)
		}
	}
	slices.Sort(exporters)
	res.From = "the ServiceImport of " + member + "; exported by " + strings.Join(exporters, ", ")
	for _, s := range m.slices {
		if s.Namespace != sp.Namespace || s.Labels[mcsv1beta1.LabelServiceName] != sp.Name {
			continue
		}
		for _, ep := range s.Endpoints {
			if ep.Conditions.Ready != nil && !*ep.Conditions.Ready || len(ep.Addresses) == 0 {
				continue
			}
			ip, err := netip.ParseAddr(ep.Addresses[0])
			if err != nil {
				continue
			}
			exporter := s.Labels[mcsv1beta1.LabelSourceCluster]
			if _, err := w.member(exporter); err == nil {
				wl := w.byIP(exporter, ip)
				wl.Name += " (an endpoint of " + fqdn + " exported by " + exporter + ")"
				return wl, res, nil
			}
			return trace.Workload{Member: exporter, Name: fmt.Sprintf("%s (an endpoint of %s exported by %s, not read)", ip, fqdn, exporter),
				Addresses: []trace.Address{{IP: ip}}}, res, nil
		}
	}
	return trace.Workload{}, res, fmt.Errorf("%s resolves to %v in %s, but no exporter has a ready endpoint", fqdn, res.Answers, member)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
