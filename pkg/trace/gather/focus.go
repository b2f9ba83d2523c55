package gather

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/membership"
)

// labelVMName is the label of a VM's Name tag on its ExternalEntity
// (the cloud inventory's tag labels).
const labelVMName = "tag.cloud.antreaplus.io/Name"

// ReadFor reads, of every cluster, what resolving the flow's ends needs and
// no more: the networks, the federated Services' imports and slices, the
// cloud services' names, and the ExternalEntities, Pods and RemoteEntities
// that the ends name, selected by the API servers (by label, name or
// field). An IP address, or a federated Service's endpoint, can only be
// found among all of a member's entities and Pods: those members are read
// whole. The policies are not read: the members' policy controllers decide
// (Trace objects), or Complete reads the members whose policies must be
// compiled here.
func ReadFor(ctx context.Context, clusters []membership.Cluster, timeout time.Duration, namespace string, ends ...Spec) *World {
	w := connect(ctx, clusters, timeout)
	// The ends' names are looked up beside the small kinds, in one round
	// trip; what needs those (an entity named by its cloud name, the
	// exporters of a federated Service) comes after.
	w.each(func(m *Member) {
		var wg sync.WaitGroup
		wg.Go(func() { m.readShared(ctx) })
		wg.Go(func() { m.lookup(ctx, namespace, ends) })
		wg.Wait()
	})
	whole := map[*Member]bool{}
	for _, sp := range ends {
		if sp.Kind == KindIP {
			for _, m := range w.Members {
				if sp.Member == "" || sp.Member == m.Context || sp.Member == m.ClusterID {
					whole[m] = true
				}
			}
		}
		if sp.Kind != KindDNS {
			continue
		}
		// The name's exporters, in any member that imports it: the
		// endpoint the packet goes to is found among their entities.
		for _, m := range w.Members {
			for _, s := range m.slices {
				if s.Namespace == sp.Namespace && s.Labels[mcsv1beta1.LabelServiceName] == sp.Name {
					if e, err := w.member(s.Labels[mcsv1beta1.LabelSourceCluster]); err == nil {
						whole[e] = true
					}
				}
			}
		}
	}
	w.each(func(m *Member) {
		if whole[m] {
			m.read(ctx)
			return
		}
		if named := m.byCloudName(ends); len(named) > 0 {
			m.lookup(ctx, namespace, named)
		}
	})
	// A RemoteEntity is traced in the member it comes from: its entity.
	for _, m := range w.Members {
		for _, r := range m.remote {
			if src, err := w.member(r.Spec.SourceCluster); err == nil && !src.complete {
				src.lookupSource(ctx, r.Spec.SourceName)
			}
		}
	}
	return w
}

// Complete reads whole the members named (contexts) that were not.
func (w *World) Complete(ctx context.Context, members ...string) {
	w.each(func(m *Member) {
		if !m.complete && slices.Contains(members, m.Context) {
			m.read(ctx)
		}
	})
}

// IsComplete reports whether a member was read whole.
func (m *Member) IsComplete() bool { return m.complete }

// readShared reads the member's small kinds: networks, imports, their
// slices and the cloud services.
func (m *Member) readShared(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	var (
		nets federationv1alpha1.NetworkList
		sis  mcsv1beta1.ServiceImportList
		eps  discoveryv1.EndpointSliceList
		svcs cloudv1alpha1.CloudNativeServiceList
	)
	m.list(ctx, []listing{
		{"Networks", &nets, nil}, {"ServiceImports", &sis, nil},
		{"EndpointSlices", &eps, []client.ListOption{client.HasLabels{mcsv1beta1.LabelServiceName}}},
		{"CloudNativeServices", &svcs, nil},
	})
	m.networks, m.imports, m.slices = nets.Items, sis.Items, eps.Items
	m.cloudNames = map[string]string{}
	for _, svc := range svcs.Items {
		m.cloudNames[svc.Namespace+"/"+svc.Name] = svc.Spec.CloudName
	}
}

// listing is one list of a member.
type listing struct {
	what string
	l    client.ObjectList
	opts []client.ListOption
}

// list runs lists concurrently; what fails is noted in m.Partial (a kind
// whose CRD is missing holds nothing: not a failure).
func (m *Member) list(ctx context.Context, lists []listing) {
	errs := make([]error, len(lists))
	var wg sync.WaitGroup
	for i, l := range lists {
		wg.Go(func() {
			if err := m.cl.List(ctx, l.l, l.opts...); err != nil && !meta.IsNoMatchError(err) {
				errs[i] = fmt.Errorf("listing %s: %w", l.what, err)
			}
		})
	}
	wg.Wait()
	m.note(lists, errs)
}

func (m *Member) note(lists []listing, errs []error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, err := range errs {
		if err != nil && !slices.Contains(m.Partial, lists[i].what) {
			m.Partial = append(m.Partial, lists[i].what)
		}
	}
}

// byCloudName returns, for each end that names one of the member's cloud
// services by its name in the cloud, the end naming the service's object
// (its ExternalEntity carries the object's name). readShared must have run.
func (m *Member) byCloudName(ends []Spec) []Spec {
	var out []Spec
	for _, sp := range ends {
		if sp.Kind != KindVM && sp.Kind != KindService {
			continue
		}
		for key, cloudName := range m.cloudNames {
			if cloudName == sp.Name {
				_, name, _ := cutKey(key)
				out = append(out, Spec{Kind: KindService, Member: sp.Member, Name: name})
			}
		}
	}
	return out
}

// lookup reads the entities, Pods and RemoteEntities the ends name.
func (m *Member) lookup(ctx context.Context, namespace string, ends []Spec) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		found []listing
		errs  []error
	)
	run := func(what string, l client.ObjectList, opts ...client.ListOption) {
		if namespace != "" {
			opts = append(opts, client.InNamespace(namespace))
		}
		wg.Go(func() {
			err := m.cl.List(ctx, l, opts...)
			if meta.IsNoMatchError(err) {
				err = nil
			}
			mu.Lock()
			defer mu.Unlock()
			found, errs = append(found, listing{what, l, nil}), append(errs, err)
		})
	}
	byLabel := func(what string, l client.ObjectList, key, value string) {
		if len(validation.IsValidLabelValue(value)) == 0 {
			run(what, l, client.MatchingLabels{key: value})
		}
	}
	byName := func(what string, l client.ObjectList, name string) {
		run(what, l, client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", name)})
	}
	for _, sp := range ends {
		if sp.Member != "" && sp.Member != m.Context && sp.Member != m.ClusterID {
			continue
		}
		switch sp.Kind {
		case KindVM, KindService:
			byLabel("ExternalEntities", &antreav1alpha2.ExternalEntityList{}, labelVMName, sp.Name)
			byLabel("ExternalEntities", &antreav1alpha2.ExternalEntityList{}, cloudv1alpha1.LabelEntityName, sp.Name)
		case KindEntity:
			byName("ExternalEntities", &antreav1alpha2.ExternalEntityList{}, sp.Name)
		case KindPod:
			byName("Pods", &corev1.PodList{}, sp.Name)
		case KindRemote:
			byName("RemoteEntities", &federationv1alpha1.RemoteEntityList{}, sp.Name)
			byLabel("RemoteEntities", &federationv1alpha1.RemoteEntityList{}, labelVMName, sp.Name)
		}
	}
	wg.Wait()
	m.note(found, errs)
	for _, f := range found {
		switch l := f.l.(type) {
		case *antreav1alpha2.ExternalEntityList:
			m.entities = addNew(m.entities, l.Items, func(e antreav1alpha2.ExternalEntity) string { return e.Namespace + "/" + e.Name })
		case *corev1.PodList:
			m.pods = addNew(m.pods, l.Items, func(p corev1.Pod) string { return p.Namespace + "/" + p.Name })
		case *federationv1alpha1.RemoteEntityList:
			m.remote = addNew(m.remote, l.Items, func(r federationv1alpha1.RemoteEntity) string { return r.Namespace + "/" + r.Name })
		}
	}
}

// lookupSource reads the entity a RemoteEntity mirrors: "namespace/name",
// or a name in any Namespace.
func (m *Member) lookupSource(ctx context.Context, source string) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	var l antreav1alpha2.ExternalEntityList
	opts := []client.ListOption{}
	ns, name, ok := cutKey(source)
	if ok {
		opts = append(opts, client.InNamespace(ns))
	}
	opts = append(opts, client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", name)})
	if err := m.cl.List(ctx, &l, opts...); err != nil {
		if !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
			m.note([]listing{{what: "ExternalEntities"}}, []error{err})
		}
		return
	}
	m.entities = addNew(m.entities, l.Items, func(e antreav1alpha2.ExternalEntity) string { return e.Namespace + "/" + e.Name })
}

// cutKey splits "namespace/name"; ok is false for a bare name.
func cutKey(key string) (ns, name string, ok bool) {
	if ns, name, ok = strings.Cut(key, "/"); !ok {
		return "", key, false
	}
	return ns, name, true
}

// addNew appends the items whose keys are not in have yet.
func addNew[T any](have, items []T, key func(T) string) []T {
	seen := map[string]bool{}
	for _, h := range have {
		seen[key(h)] = true
	}
	for _, it := range items {
		if k := key(it); !seen[k] {
			seen[k] = true
			have = append(have, it)
		}
	}
	return have
}
