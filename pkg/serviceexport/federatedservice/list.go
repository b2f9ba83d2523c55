package federatedservice

import (
	"context"
	"fmt"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// Listing is every federated Service of a federation.
type Listing struct {
	FederationID string             `json:"federationID"`
	Services     []FederatedService `json:"services"`
	// Unreadable are the members that could not be read, with the error.
	Unreadable map[string]string `json:"unreadable,omitempty"`
}

// FederatedService is one exported name across the federation.
type FederatedService struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Type and Ports are those of the ServiceImports (empty until imported).
	Type      string     `json:"type,omitempty"`
	Ports     []string   `json:"ports,omitempty"`
	Exporters []Exporter `json:"exporters"`
	Importers []Importer `json:"importers"`
	Conflicts []string   `json:"conflicts,omitempty"`
}

// Exporter is one member's export.
type Exporter struct {
	Cluster     string `json:"cluster"`
	ServiceType string `json:"serviceType,omitempty"`
	// AddressType and Addresses are what the export offers (see serviceexport.ChooseAddresses).
	AddressType string           `json:"addressType,omitempty"`
	Addresses   []string         `json:"addresses,omitempty"`
	Ports       map[string]int32 `json:"ports,omitempty"`
	Valid       string           `json:"valid"`
	Ready       string           `json:"ready"`
	Conflict    string           `json:"conflict"`
	// Message is the Ready condition's message: the addresses offered, or what is missing.
	Message string `json:"message,omitempty"`
	// ConflictMessage details the conflict when Conflict is true.
	ConflictMessage string `json:"conflictMessage,omitempty"`
	// Scope is where the export may go: all, a selector over member
	// labels, ClusterIDs (annotations export-to-selector, export-to-clusters).
	Scope string `json:"scope"`
	// Exported is the leader's Exported condition: its status and message
	// (the members reached, and why not the others).
	Exported        string `json:"exported"`
	ExportedMessage string `json:"exportedMessage,omitempty"`
	// Joins is the federated Service the export joins instead of its own
	// name (annotation federation.antreaplus.io/joins), "" when none.
	Joins string `json:"joins,omitempty"`
}

// Importer is one member's import.
type Importer struct {
	Cluster string   `json:"cluster"`
	IPs     []string `json:"ips,omitempty"`
	// Endpoints counts the ready imported endpoints; Sources their clusters.
	Endpoints int      `json:"endpoints"`
	Sources   []string `json:"sources,omitempty"`
}

// MemberObjects is what the listing reads of one member: its exports and
// their Services, its EndpointSlices and nodes (the addresses exports
// offer), and the ServiceImports its leader wrote.
type MemberObjects struct {
	// ClusterID names the member.
	ClusterID string
	Exports   []mcsv1beta1.ServiceExport
	// Services are the exported Services by namespace and name.
	Services map[types.NamespacedName]*corev1.Service
	Slices   []discoveryv1.EndpointSlice
	Nodes    []corev1.Node
	// Imports are the ServiceImports the federation wrote.
	Imports []mcsv1beta1.ServiceImport
	// Err is why the member could not be read.
	Err error
}

// List reads every member (by cluster ID) concurrently and gathers the
// federated Services.
func List(ctx context.Context, federationID string, members map[string]*rest.Config) (*Listing, error) {
	objs := make([]MemberObjects, 0, len(members))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for id, cfg := range members {
		wg.Go(func() {
			o := readMember(ctx, id, cfg)
			mu.Lock()
			objs = append(objs, o)
			mu.Unlock()
		})
	}
	wg.Wait()
	return Build(federationID, objs), nil
}

// Build gathers the federated Services of what was read of the members.
func Build(federationID string, members []MemberObjects) *Listing {
	out := &Listing{FederationID: federationID, Unreadable: map[string]string{}}
	services := map[types.NamespacedName]*FederatedService{}
	get := func(k types.NamespacedName) *FederatedService {
		if s, ok := services[k]; ok {
			return s
		}
		s := &FederatedService{Namespace: k.Namespace, Name: k.Name, Exporters: []Exporter{}, Importers: []Importer{}}
		services[k] = s
		return s
	}
	sort.Slice(members, func(i, j int) bool { return members[i].ClusterID < members[j].ClusterID })
	for _, m := range members {
		if m.Err != nil {
			out.Unreadable[m.ClusterID] = m.Err.Error()
			continue
		}
		exporters, importers := memberRows(m)
		for k, e := range exporters {
			s := get(k)
			s.Exporters = append(s.Exporters, e)
		}
		for i := range m.Imports {
			imp := &m.Imports[i]
			k := client.ObjectKeyFromObject(imp)
			s := get(k)
			s.Importers = append(s.Importers, importers[k])
			if s.Type == "" {
				s.Type = string(imp.Spec.Type)
				for _, p := range imp.Spec.Ports {
					s.Ports = append(s.Ports, fmt.Sprintf("%s %d/%s", orUnnamed(p.Name), p.Port, p.Protocol))
				}
			}
		}
	}
	for _, s := range services {
		sort.Slice(s.Exporters, func(i, j int) bool { return s.Exporters[i].Cluster < s.Exporters[j].Cluster })
		sort.Slice(s.Importers, func(i, j int) bool { return s.Importers[i].Cluster < s.Importers[j].Cluster })
		seen := map[string]bool{}
		for _, e := range s.Exporters {
			if e.ConflictMessage != "" && !seen[e.ConflictMessage] {
				seen[e.ConflictMessage] = true
				s.Conflicts = append(s.Conflicts, e.ConflictMessage)
			}
		}
		out.Services = append(out.Services, *s)
	}
	sort.Slice(out.Services, func(i, j int) bool {
		a, b := out.Services[i], out.Services[j]
		return a.Namespace < b.Namespace || a.Namespace == b.Namespace && a.Name < b.Name
	})
	return out
}

// memberRows are a member's exporters and importers by Service.
func memberRows(m MemberObjects) (map[types.NamespacedName]Exporter, map[types.NamespacedName]Importer) {
	byService := map[types.NamespacedName][]discoveryv1.EndpointSlice{}
	imported := map[types.NamespacedName][]discoveryv1.EndpointSlice{}
	for _, s := range m.Slices {
		if s.Labels[discoveryv1.LabelManagedBy] == federationv1alpha1.EndpointSliceManagedBy {
			k := types.NamespacedName{Namespace: s.Namespace, Name: s.Labels[mcsv1beta1.LabelServiceName]}
			imported[k] = append(imported[k], s)
		} else if svc := s.Labels[discoveryv1.LabelServiceName]; svc != "" {
			k := types.NamespacedName{Namespace: s.Namespace, Name: svc}
			byService[k] = append(byService[k], s)
		}
	}
	exporters := map[types.NamespacedName]Exporter{}
	for i := range m.Exports {
		exp := &m.Exports[i]
		k := client.ObjectKeyFromObject(exp)
		exporters[k] = exporter(m.ClusterID, exp, m.Services[k], byService[k], m.Nodes)
	}
	importers := map[types.NamespacedName]Importer{}
	for i := range m.Imports {
		imp := &m.Imports[i]
		k := client.ObjectKeyFromObject(imp)
		importers[k] = importer(m.ClusterID, imp, imported[k])
	}
	return exporters, importers
}

func readMember(ctx context.Context, id string, cfg *rest.Config) MemberObjects {
	o := MemberObjects{ClusterID: id, Services: map[types.NamespacedName]*corev1.Service{}}
	c, err := newClient(cfg)
	if err != nil {
		o.Err = err
		return o
	}
	exports := &mcsv1beta1.ServiceExportList{}
	imports := &mcsv1beta1.ServiceImportList{}
	slices := &discoveryv1.EndpointSliceList{}
	nodes := &corev1.NodeList{}
	for _, l := range []struct {
		list client.ObjectList
		opts []client.ListOption
	}{{exports, nil}, {imports, []client.ListOption{client.MatchingLabels{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}}}, {slices, nil}, {nodes, nil}} {
		if err := c.List(ctx, l.list, l.opts...); err != nil {
			o.Err = fmt.Errorf("listing %T: %w", l.list, err)
			return o
		}
	}
	o.Exports, o.Imports, o.Slices, o.Nodes = exports.Items, imports.Items, slices.Items, nodes.Items
	// The exported Services: one list, not a read per export (at client-go's
	// default 5 requests per second, 1,000 exports took over three minutes).
	// A user who may read the exported Services but not list them all gets
	// a read per export.
	services := &corev1.ServiceList{}
	listed := len(exports.Items) == 0
	if !listed {
		err := c.List(ctx, services)
		switch {
		case err == nil:
			listed = true
		case !apierrors.IsForbidden(err):
			o.Err = fmt.Errorf("listing Services: %w", err)
			return o
		}
	}
	exported := map[types.NamespacedName]bool{}
	for i := range exports.Items {
		k := client.ObjectKeyFromObject(&exports.Items[i])
		exported[k] = true
		if !listed {
			if svc := (&corev1.Service{}); c.Get(ctx, k, svc) == nil {
				o.Services[k] = svc
			}
		}
	}
	for i := range services.Items {
		if k := client.ObjectKeyFromObject(&services.Items[i]); exported[k] {
			o.Services[k] = &services.Items[i]
		}
	}
	return o
}

// scopeOf is where an export may go, as the CLI shows it.
func scopeOf(exp *mcsv1beta1.ServiceExport) string {
	s, err := exportscope.FromAnnotations(exp.Annotations)
	if err != nil {
		return "invalid"
	}
	return s.String()
}

func exporter(id string, exp *mcsv1beta1.ServiceExport, svc *corev1.Service, slices []discoveryv1.EndpointSlice, nodes []corev1.Node) Exporter {
	e := Exporter{Cluster: id, Valid: conditionWord(exp, mcsv1beta1.ServiceExportConditionValid),
		Ready: conditionWord(exp, mcsv1beta1.ServiceExportConditionReady), Conflict: conditionWord(exp, mcsv1beta1.ServiceExportConditionConflict)}
	if c := meta.FindStatusCondition(exp.Status.Conditions, string(mcsv1beta1.ServiceExportConditionConflict)); c != nil && c.Status == metav1.ConditionTrue {
		e.ConflictMessage = c.Message
	}
	if c := meta.FindStatusCondition(exp.Status.Conditions, string(mcsv1beta1.ServiceExportConditionReady)); c != nil {
		e.Message = c.Message
	}
	e.Scope, e.Joins = scopeOf(exp), exp.Annotations[federationv1alpha1.AnnotationJoins]
	if c := meta.FindStatusCondition(exp.Status.Conditions, federationv1alpha1.ConditionExported); c != nil {
		e.Exported, e.ExportedMessage = string(c.Status), c.Message
	}
	if svc == nil {
		return e
	}
	x, validity := serviceexport.FromCluster(id, exp, svc, slices, nodes)
	if !validity.Valid {
		e.ServiceType = string(svc.Spec.Type)
		return e
	}
	e.ServiceType, e.AddressType, e.Ports = string(x.ServiceType), string(x.Addresses.Type), x.Addresses.Ports
	if x.Headless {
		e.ServiceType += " (headless)"
	}
	for _, ep := range x.Addresses.Endpoints {
		if ep.Ready {
			e.Addresses = append(e.Addresses, ep.Address)
		}
	}
	return e
}

func importer(id string, imp *mcsv1beta1.ServiceImport, slices []discoveryv1.EndpointSlice) Importer {
	i := Importer{Cluster: id, IPs: imp.Spec.IPs}
	for _, c := range imp.Status.Clusters {
		i.Sources = append(i.Sources, c.Cluster)
	}
	for _, s := range slices {
		for _, ep := range s.Endpoints {
			if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
				i.Endpoints++
			}
		}
	}
	return i
}

// conditionWord is "True", "False (Reason)" or "" when the condition is absent.
func conditionWord(exp *mcsv1beta1.ServiceExport, t mcsv1beta1.ServiceExportConditionType) string {
	c := meta.FindStatusCondition(exp.Status.Conditions, string(t))
	if c == nil {
		return ""
	}
	if c.Status == metav1.ConditionTrue && t != mcsv1beta1.ServiceExportConditionConflict {
		return string(c.Status)
	}
	return fmt.Sprintf("%s (%s)", c.Status, c.Reason)
}

func orUnnamed(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	return name
}
