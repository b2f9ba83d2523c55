package translate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/networks"
)

// world is the state of a member that data-driven tests build up: what a
// controller would read from its cache.
type world struct {
	member     Member
	namespaces map[string]map[string]string
	entities   map[types.NamespacedName]federationv1alpha1.RemoteEntity
	imports    map[types.NamespacedName]*mcsv1beta1.ServiceImport
	slices     map[types.NamespacedName]discoveryv1.EndpointSlice
	policies   map[types.NamespacedName]*policyv1alpha1.FederatedNetworkPolicy
	local      map[types.NamespacedName]*antreav1alpha2.ExternalEntity
	networks   map[string]federationv1alpha1.Network
}

func newWorld() *world {
	return &world{
		namespaces: map[string]map[string]string{},
		entities:   map[types.NamespacedName]federationv1alpha1.RemoteEntity{},
		imports:    map[types.NamespacedName]*mcsv1beta1.ServiceImport{},
		slices:     map[types.NamespacedName]discoveryv1.EndpointSlice{},
		policies:   map[types.NamespacedName]*policyv1alpha1.FederatedNetworkPolicy{},
		local:      map[types.NamespacedName]*antreav1alpha2.ExternalEntity{},
		networks:   map[string]federationv1alpha1.Network{},
	}
}

// inputs are the world as the translation of p reads it.
func (w *world) inputs(p *policyv1alpha1.FederatedNetworkPolicy) *Inputs {
	var entities []federationv1alpha1.RemoteEntity
	for _, e := range w.entities {
		entities = append(entities, e)
	}
	services := map[types.NamespacedName]ServiceInput{}
	for k, imp := range w.imports {
		services[k] = ServiceInput{Import: imp}
	}
	for _, s := range w.slices {
		k := types.NamespacedName{Namespace: s.Namespace, Name: s.Labels[mcsv1beta1.LabelServiceName]}
		in := services[k]
		in.Slices = append(in.Slices, s)
		services[k] = in
	}
	for _, in := range services {
		sort.Slice(in.Slices, func(a, b int) bool { return in.Slices[a].Name < in.Slices[b].Name })
	}
	var nets []federationv1alpha1.Network
	for _, n := range w.networks {
		nets = append(nets, n)
	}
	return &Inputs{Member: w.member, Namespaces: w.namespaces, Entities: NewIndex(entities), Services: services,
		Networks: networks.NewTopology(networks.FromAPI(nets)), ClusterNetwork: networks.ClusterNetwork(nets, w.member.ClusterID),
		EntityNetworks: w.entityNetworks(p)}
}

// entityNetworks are the networks of the local ExternalEntities p applies
// to, by Namespace, as the member controller collects them.
func (w *world) entityNetworks(p *policyv1alpha1.FederatedNetworkPolicy) map[string][]string {
	byNS := map[string]map[string]bool{}
	applied := AppliedToEntities(p)
	for _, e := range w.local {
		if e.Namespace != p.Namespace || !applied(e.Labels) {
			continue
		}
		if byNS[e.Namespace] == nil {
			byNS[e.Namespace] = map[string]bool{}
		}
		byNS[e.Namespace][e.Labels[federationv1alpha1.LabelNetwork]] = true
	}
	out := map[string][]string{}
	for ns, set := range byNS {
		for n := range set {
			out[ns] = append(out[ns], n)
		}
		sort.Strings(out[ns])
	}
	return out
}

// apply upserts (or deletes) the YAML objects of text, chosen by kind.
func (w *world) apply(t *testing.T, text string, del bool) {
	t.Helper()
	decoder := yaml.NewYAMLOrJSONDecoder(strings.NewReader(text), 4096)
	for {
		var raw json.RawMessage
		err := decoder.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("decoding YAML: %v", err)
		}
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		if err := w.applyOne(raw, del); err != nil {
			t.Fatalf("applying %s: %v", raw, err)
		}
	}
}

func (w *world) applyOne(raw json.RawMessage, del bool) error {
	var meta struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return err
	}
	switch meta.Kind {
	case "Namespace":
		return upsert(raw, del, w.namespaces, func(n *corev1.Namespace) (string, map[string]string) { return n.Name, n.Labels })
	case "RemoteEntity":
		return upsert(raw, del, w.entities, func(e *federationv1alpha1.RemoteEntity) (types.NamespacedName, federationv1alpha1.RemoteEntity) {
			return key(e.Namespace, e.Name), *e
		})
	case "ServiceImport":
		return upsert(raw, del, w.imports, func(i *mcsv1beta1.ServiceImport) (types.NamespacedName, *mcsv1beta1.ServiceImport) {
			return key(i.Namespace, i.Name), i
		})
	case "EndpointSlice":
		return upsert(raw, del, w.slices, func(s *discoveryv1.EndpointSlice) (types.NamespacedName, discoveryv1.EndpointSlice) {
			return key(s.Namespace, s.Name), *s
		})
	case "FederatedNetworkPolicy":
		return upsert(raw, del, w.policies, func(p *policyv1alpha1.FederatedNetworkPolicy) (types.NamespacedName, *policyv1alpha1.FederatedNetworkPolicy) {
			return key(p.Namespace, p.Name), p
		})
	case "Network":
		return upsert(raw, del, w.networks, func(n *federationv1alpha1.Network) (string, federationv1alpha1.Network) { return n.Name, *n })
	case "ClusterMembership": // its status.withheld: what the federation holds back from this member
		cm := &federationv1alpha1.ClusterMembership{}
		if err := json.Unmarshal(raw, cm); err != nil {
			return err
		}
		w.member.Withheld = cm.Status.Withheld
		if del {
			w.member.Withheld = nil
		}
		return nil
	case "ExternalEntity":
		return upsert(raw, del, w.local, func(e *antreav1alpha2.ExternalEntity) (types.NamespacedName, *antreav1alpha2.ExternalEntity) {
			return key(e.Namespace, e.Name), e
		})
	}
	return fmt.Errorf("unknown kind %q", meta.Kind)
}

// upsert decodes raw into a new T and stores (or deletes) what entry makes
// of it in m.
func upsert[T any, K comparable, V any](raw json.RawMessage, del bool, m map[K]V, entry func(*T) (K, V)) error {
	obj := new(T)
	if err := json.Unmarshal(raw, obj); err != nil {
		return err
	}
	k, v := entry(obj)
	if del {
		delete(m, k)
	} else {
		m[k] = v
	}
	return nil
}

func key(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}
