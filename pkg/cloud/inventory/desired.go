package inventory

import (
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// Input is what one poll of one account found, and the selector bound to
// the account.
type Input struct {
	// Selector is the CloudEntitySelector; its namespace is where objects go.
	Selector *cloudv1alpha1.CloudEntitySelector
	// Account names the CloudProviderAccount, namespace included.
	Account cloudv1alpha1.CloudProviderAccountReference
	// Snapshots are the regions whose poll succeeded.
	Snapshots []*provider.Snapshot
}

// Objects are imported objects of the three kinds, each sorted by name.
type Objects struct {
	VirtualMachines     []cloudv1alpha1.VirtualMachine
	NetworkInterfaces   []cloudv1alpha1.NetworkInterface
	CloudNativeServices []cloudv1alpha1.CloudNativeService
}

// Len is the number of objects.
func (o Objects) Len() int {
	return len(o.VirtualMachines) + len(o.NetworkInterfaces) + len(o.CloudNativeServices)
}

// Desired returns the objects the selector imports from the snapshots:
// every selected VM that is not terminated, each of its network interfaces,
// and every selected cloud-native service. It is a pure function of its
// input.
func Desired(in Input) Objects {
	var out Objects
	for _, snap := range in.Snapshots {
		vpcs := make(map[string]provider.VPC, len(snap.VPCs))
		for _, v := range snap.VPCs {
			vpcs[strings.ToLower(v.ID)] = v
		}
		for _, vm := range snap.VMs {
			if vm.State == provider.VMTerminated {
				continue
			}
			mode, ok := selectVM(in.Selector.Spec.VirtualMachines, vm, vpcs)
			if !ok {
				continue
			}
			v := in.virtualMachine(snap, vm, mode)
			out.VirtualMachines = append(out.VirtualMachines, v)
			for _, nic := range vm.NICs {
				out.NetworkInterfaces = append(out.NetworkInterfaces, in.networkInterface(snap, v.Name, nic))
			}
		}
		for _, svc := range snap.Services {
			if selectService(in.Selector.Spec.CloudNativeServices, snap.Cloud, svc, vpcs) {
				out.CloudNativeServices = append(out.CloudNativeServices, in.cloudNativeService(snap, svc))
			}
		}
	}
	sortObjects(&out)
	return out
}

// meta returns the object metadata of an imported object: the selector's
// namespace and the well-known labels, plus the tag labels.
func (in Input) meta(name string, tags map[string]string, extra map[string]string) metav1.ObjectMeta {
	labels, _ := TagLabels(tags)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[cloudv1alpha1.LabelAccountName] = in.Account.Name
	labels[cloudv1alpha1.LabelAccountNamespace] = in.Account.Namespace
	labels[cloudv1alpha1.LabelSelectorName] = in.Selector.Name
	maps.Copy(labels, extra)
	return metav1.ObjectMeta{Name: name, Namespace: in.Selector.Namespace, Labels: labels}
}

func (in Input) virtualMachine(snap *provider.Snapshot, vm provider.VM, mode cloudv1alpha1.EnforcementMode) cloudv1alpha1.VirtualMachine {
	name := ObjectName(vm.ID, vm.Name)
	v := cloudv1alpha1.VirtualMachine{
		ObjectMeta: in.meta(name, vm.Tags, nil),
		Spec: cloudv1alpha1.VirtualMachineSpec{
			Provider:        cloudv1alpha1.CloudProvider(snap.Cloud),
			AccountRef:      in.Account,
			CloudID:         vm.ID,
			CloudName:       vm.Name,
			Region:          snap.Region,
			Zone:            vm.Zone,
			VPCID:           vm.VPCID,
			InstanceType:    vm.InstanceType,
			State:           cloudv1alpha1.VirtualMachineState(vm.State),
			Tags:            cloneTags(vm.Tags),
			EnforcementMode: mode,
		},
	}
	for _, nic := range vm.NICs {
		v.Spec.NetworkInterfaces = append(v.Spec.NetworkInterfaces, ObjectName(nic.ID, ""))
	}
	return v
}

func (in Input) networkInterface(snap *provider.Snapshot, vmName string, nic provider.NIC) cloudv1alpha1.NetworkInterface {
	return cloudv1alpha1.NetworkInterface{
		ObjectMeta: in.meta(ObjectName(nic.ID, ""), nic.Tags, map[string]string{cloudv1alpha1.LabelVirtualMachine: vmName}),
		Spec: cloudv1alpha1.NetworkInterfaceSpec{
			Provider:         cloudv1alpha1.CloudProvider(snap.Cloud),
			CloudID:          nic.ID,
			VirtualMachine:   vmName,
			Primary:          nic.Primary,
			Region:           snap.Region,
			VPCID:            nic.VPCID,
			SubnetID:         nic.SubnetID,
			MACAddress:       nic.MAC,
			PrivateIPs:       slices.Clone(nic.PrivateIPs),
			PublicIPs:        slices.Clone(nic.PublicIPs),
			EgressIPs:        slices.Clone(nic.EgressIPs),
			NATGatewayID:     nic.NATGatewayID,
			SecurityGroupIDs: slices.Clone(nic.SecurityGroupIDs),
			Tags:             cloneTags(nic.Tags),
		},
	}
}

func (in Input) cloudNativeService(snap *provider.Snapshot, svc provider.Service) cloudv1alpha1.CloudNativeService {
	s := cloudv1alpha1.CloudNativeService{
		ObjectMeta: in.meta(ObjectName(svc.ID, svc.Name), svc.Tags, nil),
		Spec: cloudv1alpha1.CloudNativeServiceSpec{
			Provider:         cloudv1alpha1.CloudProvider(snap.Cloud),
			AccountRef:       in.Account,
			Kind:             cloudv1alpha1.CloudNativeServiceKind(svc.Kind),
			CloudID:          svc.ID,
			CloudName:        svc.Name,
			Region:           snap.Region,
			VPCID:            svc.VPCID,
			DNSName:          svc.DNSName,
			PrivateIPs:       slices.Clone(svc.PrivateIPs),
			PublicIPs:        slices.Clone(svc.PublicIPs),
			SecurityGroupIDs: slices.Clone(svc.SecurityGroupIDs),
			Tags:             cloneTags(svc.Tags),
		},
	}
	s.Spec.BackendNetworkInterfaces = slices.Clone(svc.BackendInterfaces)
	for _, p := range svc.BackendPorts {
		s.Spec.BackendPorts = append(s.Spec.BackendPorts, cloudv1alpha1.ServicePort{Name: p.Name, Protocol: p.Protocol, Port: p.Port})
	}
	for _, p := range svc.Ports {
		s.Spec.Ports = append(s.Spec.Ports, cloudv1alpha1.ServicePort{Name: p.Name, Protocol: p.Protocol, Port: p.Port})
	}
	return s
}

func cloneTags(tags map[string]string) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	return maps.Clone(tags)
}

// sortObjects sorts each kind by name and keeps the first of any name seen
// twice (a resource listed in two snapshots).
func sortObjects(o *Objects) {
	o.VirtualMachines = sortByName(o.VirtualMachines, func(v *cloudv1alpha1.VirtualMachine) string { return v.Name })
	o.NetworkInterfaces = sortByName(o.NetworkInterfaces, func(n *cloudv1alpha1.NetworkInterface) string { return n.Name })
	o.CloudNativeServices = sortByName(o.CloudNativeServices, func(s *cloudv1alpha1.CloudNativeService) string { return s.Name })
}

func sortByName[T any](items []T, name func(*T) string) []T {
	slices.SortStableFunc(items, func(a, b T) int { return strings.Compare(name(&a), name(&b)) })
	return slices.CompactFunc(items, func(a, b T) bool { return name(&a) == name(&b) })
}
