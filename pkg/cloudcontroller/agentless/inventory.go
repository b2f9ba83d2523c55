package agentless

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/pkg/cloud/sgtranslate"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/tenancy"
)

// Agentless enforcement reads the interfaces and their ExternalEntities
// (the cloud controller's rights: chart files/rbac/cloud-controller.yaml).
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=networkinterfaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=cloudnativeservices,verbs=get;list;watch
// +kubebuilder:rbac:groups=crd.antrea.io,resources=externalentities,verbs=get;list;watch

// inventory is what a round reads of the imported objects: every network
// interface and cloud-native service, by "namespace/name".
type inventory struct {
	nics     map[string]*cloudv1alpha1.NetworkInterface
	services map[string]*cloudv1alpha1.CloudNativeService
	// gate, if set, says which tenants' endpoints this replica places.
	gate tenancy.Gate
}

// readInventory reads the interfaces of the tenants gate owns (all when
// gate is nil).
func readInventory(ctx context.Context, r client.Reader, gate tenancy.Gate) (*inventory, error) {
	var list cloudv1alpha1.NetworkInterfaceList
	if err := r.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("listing NetworkInterfaces: %w", err)
	}
	var svcs cloudv1alpha1.CloudNativeServiceList
	if err := r.List(ctx, &svcs); err != nil {
		return nil, fmt.Errorf("listing CloudNativeServices: %w", err)
	}
	inv := &inventory{nics: make(map[string]*cloudv1alpha1.NetworkInterface, len(list.Items)),
		services: make(map[string]*cloudv1alpha1.CloudNativeService, len(svcs.Items)), gate: gate}
	for i := range list.Items {
		n := &list.Items[i]
		if gate != nil && !gate.Owns(n.Namespace) {
			continue
		}
		inv.nics[n.Namespace+"/"+n.Name] = n
	}
	for i := range svcs.Items {
		s := &svcs.Items[i]
		if gate != nil && !gate.Owns(s.Namespace) {
			continue
		}
		inv.services[s.Namespace+"/"+s.Name] = s
	}
	return inv, nil
}

// locations returns the location of every imported interface: the VPCs
// whose managed groups the syncer owns.
func (inv *inventory) locations() map[sgtranslate.Location]bool {
	out := map[sgtranslate.Location]bool{}
	for _, n := range inv.nics {
		if loc, ok := locationOf(n); ok {
			out[loc] = true
		}
	}
	for _, s := range inv.services {
		if loc, ok := serviceLocation(s); ok && enforcedOnService(s.Spec.Kind) {
			out[loc] = true
		}
	}
	return out
}

// serviceLocation is where a service's security groups live.
func serviceLocation(s *cloudv1alpha1.CloudNativeService) (sgtranslate.Location, bool) {
	account := types.NamespacedName{Namespace: cmp.Or(s.Spec.AccountRef.Namespace, s.Namespace), Name: s.Spec.AccountRef.Name}
	if account.Name == "" || s.Spec.VPCID == "" || s.Spec.Region == "" {
		return sgtranslate.Location{}, false
	}
	return sgtranslate.Location{Account: account, Region: s.Spec.Region, VPC: s.Spec.VPCID}, true
}

// enforcedOnService reports whether a kind of service carries security
// groups of its own.
func enforcedOnService(kind cloudv1alpha1.CloudNativeServiceKind) bool {
	switch provider.ServiceKind(kind) {
	case provider.AWSRDS, provider.AWSLoadBalancer, provider.AzureLoadBalancer:
		return true
	}
	return false
}

// placeService returns the service of an ExternalEntity of a cloud-native
// service, or why it has none.
func placeService(ee *antreav1alpha2.ExternalEntity, svc *cloudv1alpha1.CloudNativeService) (*sgtranslate.Service, string) {
	if svc == nil {
		return nil, fmt.Sprintf("CloudNativeService %s/%s is not imported", ee.Namespace, ee.Labels[cloudv1alpha1.LabelEntityName])
	}
	if !enforcedOnService(svc.Spec.Kind) {
		return nil, fmt.Sprintf("%sa service of kind %s carries no security groups AntreaPlus can set: its rules are not enforced", settledMark, svc.Spec.Kind)
	}
	loc, ok := serviceLocation(svc)
	if !ok {
		return nil, fmt.Sprintf("CloudNativeService %s/%s has no account, region or VPC", svc.Namespace, svc.Name)
	}
	out := &sgtranslate.Service{ID: svc.Spec.CloudID, Location: loc}
	ports := svc.Spec.Ports
	if provider.ServiceKind(svc.Spec.Kind) == provider.AzureLoadBalancer {
		// No group of its own: enforced on its backends, on the ports
		// they receive its traffic on.
		out.BackendPool, out.Backends, ports = true, svc.Spec.BackendNetworkInterfaces, svc.Spec.BackendPorts
	}
	for _, p := range ports {
		out.Ports = append(out.Ports, provider.Port{Name: p.Name, Protocol: p.Protocol, Port: p.Port})
	}
	return out, ""
}

// locationOf is where an interface's security groups live.
func locationOf(n *cloudv1alpha1.NetworkInterface) (sgtranslate.Location, bool) {
	account := types.NamespacedName{Namespace: n.Labels[cloudv1alpha1.LabelAccountNamespace], Name: n.Labels[cloudv1alpha1.LabelAccountName]}
	if account.Name == "" || account.Namespace == "" || n.Spec.VPCID == "" || n.Spec.Region == "" {
		return sgtranslate.Location{}, false
	}
	return sgtranslate.Location{Account: account, Region: n.Spec.Region, VPC: n.Spec.VPCID}, true
}

// place returns the interface of an ExternalEntity, or why it has none.
func place(ee *antreav1alpha2.ExternalEntity, nic *cloudv1alpha1.NetworkInterface) (*sgtranslate.Interface, string) {
	switch {
	case ee == nil:
		return nil, "the ExternalEntity is not in the cloud controller's cache yet"
	case ee.Labels[cloudv1alpha1.LabelEntityNetworkInterface] == "":
		return nil, "the ExternalEntity was not imported from a cloud network interface"
	case nic == nil:
		return nil, fmt.Sprintf("NetworkInterface %s/%s is not imported", ee.Namespace, ee.Labels[cloudv1alpha1.LabelEntityNetworkInterface])
	case nic.Spec.CloudID == "":
		return nil, fmt.Sprintf("NetworkInterface %s/%s has no cloud id", nic.Namespace, nic.Name)
	}
	loc, ok := locationOf(nic)
	if !ok {
		return nil, fmt.Sprintf("NetworkInterface %s/%s has no account, region or VPC", nic.Namespace, nic.Name)
	}
	return &sgtranslate.Interface{ID: nic.Spec.CloudID, Location: loc}, ""
}

// endpoints places every endpoint of the view.
func (inv *inventory) endpoints(ctx context.Context, r client.Reader, view *wire.View) ([]sgtranslate.Endpoint, error) {
	out := make([]sgtranslate.Endpoint, 0, len(view.Endpoints))
	for _, name := range view.Names() {
		ep := view.Endpoints[name]
		te := sgtranslate.Endpoint{Name: name, Rules: make([]wire.Rule, 0, len(ep.Order))}
		for _, id := range ep.Order {
			te.Rules = append(te.Rules, ep.Rules[id])
		}
		key, err := splitName(name)
		if err != nil {
			return nil, err
		}
		if inv.gate != nil && !inv.gate.Owns(key.Namespace) {
			continue // another replica or instance enforces its tenant
		}
		var ee *antreav1alpha2.ExternalEntity
		got := &antreav1alpha2.ExternalEntity{}
		switch err := r.Get(ctx, key, got); {
		case err == nil:
			ee = got
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading ExternalEntity %s: %w", name, err)
		}
		switch {
		case ee != nil && ee.Labels[cloudv1alpha1.LabelEntityKind] == cloudv1alpha1.EntityKindCloudNativeService:
			te.Service, te.Unplaced = placeService(ee, inv.services[ee.Namespace+"/"+ee.Labels[cloudv1alpha1.LabelEntityName]])
		default:
			var nic *cloudv1alpha1.NetworkInterface
			if ee != nil {
				nic = inv.nics[ee.Namespace+"/"+ee.Labels[cloudv1alpha1.LabelEntityNetworkInterface]]
			}
			te.Interface, te.Unplaced = place(ee, nic)
		}
		out = append(out, te)
	}
	return out, nil
}

// settledMark starts the Unplaced reason of an endpoint that no later
// round will place: rounds do not retry for it. It is cut from the
// finding.
const settledMark = "\x00"

// settled reports whether an endpoint will never be placed, and cuts the
// mark.
func settled(ep *sgtranslate.Endpoint) bool {
	rest, ok := strings.CutPrefix(ep.Unplaced, settledMark)
	ep.Unplaced = rest
	return ok
}

func splitName(name string) (types.NamespacedName, error) {
	for i := range len(name) {
		if name[i] == '/' {
			return types.NamespacedName{Namespace: name[:i], Name: name[i+1:]}, nil
		}
	}
	return types.NamespacedName{}, fmt.Errorf("endpoint %q is not namespace/name", name)
}
