package inventory

import (
	"slices"
	"strings"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// entity is what an EntityMatch looks at.
type entity struct {
	id, name string
	tags     map[string]string
}

// matchEntity reports whether e meets every criterion m sets. Ids compare
// case-insensitively (Azure resource ids are), names and tags exactly.
func matchEntity(m *cloudv1alpha1.EntityMatch, e entity) bool {
	if m == nil {
		return true
	}
	if len(m.IDs) > 0 && !slices.ContainsFunc(m.IDs, func(id string) bool { return strings.EqualFold(id, e.id) }) {
		return false
	}
	if len(m.Names) > 0 && !slices.Contains(m.Names, e.name) {
		return false
	}
	for k, v := range m.Tags {
		if have, ok := e.tags[k]; !ok || have != v {
			return false
		}
	}
	return true
}

// vpcEntity is the VPC with the given id as the snapshot has it; a VPC the
// snapshot lacks is known by its id alone.
func vpcEntity(vpcs map[string]provider.VPC, id string) entity {
	v, ok := vpcs[strings.ToLower(id)]
	if !ok {
		return entity{id: id}
	}
	return entity{id: v.ID, name: v.Name, tags: v.Tags}
}

// selectVM returns the enforcement mode of the first entry that selects vm.
func selectVM(entries []cloudv1alpha1.VirtualMachineMatch, vm provider.VM, vpcs map[string]provider.VPC) (cloudv1alpha1.EnforcementMode, bool) {
	for _, e := range entries {
		if e.VPCMatch != nil && !matchEntity(e.VPCMatch, vpcEntity(vpcs, vm.VPCID)) {
			continue
		}
		if !matchEntity(e.VMMatch, entity{id: vm.ID, name: vm.Name, tags: vm.Tags}) {
			continue
		}
		if e.EnforcementMode == "" {
			return cloudv1alpha1.EnforcementAgentless, true
		}
		return e.EnforcementMode, true
	}
	return "", false
}

// providerKinds are the service kinds of each provider.
var providerKinds = map[provider.Cloud][]cloudv1alpha1.CloudNativeServiceKind{
	provider.AWS:   {cloudv1alpha1.ServiceKindAWSLoadBalancer, cloudv1alpha1.ServiceKindAWSRDS},
	provider.Azure: {cloudv1alpha1.ServiceKindAzureLoadBalancer, cloudv1alpha1.ServiceKindAzureSQL},
}

func selectService(entries []cloudv1alpha1.CloudNativeServiceMatch, cloud provider.Cloud, svc provider.Service, vpcs map[string]provider.VPC) bool {
	kind := cloudv1alpha1.CloudNativeServiceKind(svc.Kind)
	if !slices.Contains(providerKinds[cloud], kind) {
		return false
	}
	for _, e := range entries {
		if len(e.Kinds) > 0 && !slices.Contains(e.Kinds, kind) {
			continue
		}
		if e.VPCMatch != nil && !matchEntity(e.VPCMatch, vpcEntity(vpcs, svc.VPCID)) {
			continue
		}
		if matchEntity(e.ServiceMatch, entity{id: svc.ID, name: svc.Name, tags: svc.Tags}) {
			return true
		}
	}
	return false
}
