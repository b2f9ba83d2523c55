package externalentity

import (
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
)

// maxEndpoints is the API's limit of endpoints of one ExternalEntity.
const maxEndpoints = 64

// NameForInterface is the name of a NetworkInterface's ExternalEntity.
func NameForInterface(nic string) string { return "nic-" + nic }

// NameForService is the name of a CloudNativeService's ExternalEntity.
func NameForService(svc string) string { return "svc-" + svc }

// ForNetworkInterface is the ExternalEntity of an interface of vm (nil when
// it is not known yet).
func ForNetworkInterface(nic *cloudv1alpha1.NetworkInterface, vm *cloudv1alpha1.VirtualMachine, agentlessNode string) *antreav1alpha2.ExternalEntity {
	tags := map[string]string{}
	node := agentlessNode
	if vm != nil {
		maps.Copy(tags, vm.Spec.Tags)
		if vm.Spec.EnforcementMode == cloudv1alpha1.EnforcementAgented {
			node = vm.Name
		}
	}
	maps.Copy(tags, nic.Spec.Tags)
	labels := entityLabels(&nic.ObjectMeta, tags, cloudv1alpha1.EntityKindVirtualMachine, nic.Spec.VirtualMachine, nic.Spec.VPCID, nic.Spec.Region)
	labels[cloudv1alpha1.LabelEntityNetworkInterface] = nic.Name
	network := inventory.NetworkName(string(nic.Spec.Provider), nic.Spec.VPCID)
	if network != "" {
		labels[federationv1alpha1.LabelNetwork] = network
	}
	ee := &antreav1alpha2.ExternalEntity{
		ObjectMeta: metav1.ObjectMeta{Name: NameForInterface(nic.Name), Namespace: nic.Namespace, Labels: labels,
			Annotations:     addressesAnnotation(interfaceAddresses(network, &nic.Spec)),
			OwnerReferences: []metav1.OwnerReference{owner("NetworkInterface", nic.Name, &nic.ObjectMeta)}},
		Spec: antreav1alpha2.ExternalEntitySpec{Endpoints: endpoints(nic.Name, nic.Spec.PrivateIPs, nic.Spec.PublicIPs), ExternalNode: node},
	}
	return ee
}

// ForCloudNativeService is the ExternalEntity of a cloud-native service.
func ForCloudNativeService(svc *cloudv1alpha1.CloudNativeService, agentlessNode string) *antreav1alpha2.ExternalEntity {
	labels := entityLabels(&svc.ObjectMeta, svc.Spec.Tags, cloudv1alpha1.EntityKindCloudNativeService, svc.Name, svc.Spec.VPCID, svc.Spec.Region)
	labels[cloudv1alpha1.LabelEntityServiceKind] = string(svc.Spec.Kind)
	network := inventory.NetworkName(string(svc.Spec.Provider), svc.Spec.VPCID)
	if network != "" {
		labels[federationv1alpha1.LabelNetwork] = network
	}
	ee := &antreav1alpha2.ExternalEntity{
		ObjectMeta: metav1.ObjectMeta{Name: NameForService(svc.Name), Namespace: svc.Namespace, Labels: labels,
			Annotations:     addressesAnnotation(serviceAddresses(network, svc.Spec.PrivateIPs, svc.Spec.PublicIPs)),
			OwnerReferences: []metav1.OwnerReference{owner("CloudNativeService", svc.Name, &svc.ObjectMeta)}},
		Spec: antreav1alpha2.ExternalEntitySpec{Endpoints: endpoints(svc.Name, svc.Spec.PrivateIPs, svc.Spec.PublicIPs), ExternalNode: agentlessNode},
	}
	for _, p := range svc.Spec.Ports {
		np := antreav1alpha2.NamedPort{Protocol: corev1.Protocol(p.Protocol), Port: p.Port}
		if np.Protocol == "" {
			np.Protocol = corev1.ProtocolTCP
		}
		if len(validation.IsValidPortName(p.Name)) == 0 {
			np.Name = p.Name
		}
		ee.Spec.Ports = append(ee.Spec.Ports, np)
	}
	return ee
}

func entityLabels(src *metav1.ObjectMeta, tags map[string]string, kind, name, vpc, region string) map[string]string {
	labels, _ := inventory.TagLabels(tags)
	if labels == nil {
		labels = map[string]string{}
	}
	for _, k := range []string{cloudv1alpha1.LabelAccountName, cloudv1alpha1.LabelAccountNamespace, cloudv1alpha1.LabelSelectorName} {
		if v, ok := src.Labels[k]; ok {
			labels[k] = v
		}
	}
	labels[cloudv1alpha1.LabelEntityKind] = kind
	labels[cloudv1alpha1.LabelEntityName] = name
	labels[cloudv1alpha1.LabelEntityNamespace] = src.Namespace
	labels[cloudv1alpha1.LabelEntityRegion] = inventory.LabelValue(region)
	if vpc != "" {
		// AWS: the VPC id. Azure: the VNet's name and a hash of its id,
		// as its ARM id is no label value.
		labels[cloudv1alpha1.LabelEntityVPC] = inventory.ObjectName(vpc, "")
	}
	return labels
}

func endpoints(name string, private, public []string) []antreav1alpha2.Endpoint {
	var out []antreav1alpha2.Endpoint
	for _, ip := range append(append([]string(nil), private...), public...) {
		if len(out) == maxEndpoints {
			break
		}
		out = append(out, antreav1alpha2.Endpoint{IP: ip, Name: name})
	}
	return out
}

func owner(kind, name string, m *metav1.ObjectMeta) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: cloudv1alpha1.GroupVersion.String(), Kind: kind, Name: name, UID: m.UID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
}

// isManaged reports whether this controller owns a label.
func isManaged(key string) bool {
	return strings.HasPrefix(key, cloudv1alpha1.LabelPrefix) || strings.HasPrefix(key, inventory.TagLabelPrefix) || key == federationv1alpha1.LabelNetwork
}
