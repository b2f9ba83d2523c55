package inventory

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// Plan is the writes that make the imported objects match the cloud.
// Updates are copies of the existing objects (resourceVersion, status,
// foreign labels and annotations kept) with the spec and managed labels
// replaced, ready for an Update call.
type Plan struct {
	Create Objects
	Update Objects
	Delete Objects
}

// Writes is the number of API writes the plan takes.
func (p Plan) Writes() int { return p.Create.Len() + p.Update.Len() + p.Delete.Len() }

// Diff compares the desired objects with the existing ones the selector
// imported before (the caller lists them by the selector label). Existing
// objects in a region of staleRegions, whose poll failed, are left as they
// are: a failed poll never deletes. A poll where nothing changed yields an
// empty plan.
//
// Desired NetworkInterfaces get an owner reference to their
// VirtualMachine when that exists (it has a UID); for a VirtualMachine still
// to be created the caller sets it after the create.
func Diff(desired, existing Objects, staleRegions []string) Plan {
	var p Plan
	vmUIDs := map[string]*cloudv1alpha1.VirtualMachine{}
	for i := range existing.VirtualMachines {
		vmUIDs[existing.VirtualMachines[i].Name] = &existing.VirtualMachines[i]
	}
	for i := range desired.NetworkInterfaces {
		nic := &desired.NetworkInterfaces[i]
		if vm := vmUIDs[nic.Spec.VirtualMachine]; vm != nil && vm.UID != "" {
			nic.OwnerReferences = []metav1.OwnerReference{ownerRef(vm)}
		}
	}
	stale := func(region string) bool { return slices.Contains(staleRegions, region) }

	p.Create.VirtualMachines, p.Update.VirtualMachines, p.Delete.VirtualMachines = diffKind(
		desired.VirtualMachines, existing.VirtualMachines,
		func(o *cloudv1alpha1.VirtualMachine) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(o *cloudv1alpha1.VirtualMachine) string { return o.Spec.Region },
		func(want, have *cloudv1alpha1.VirtualMachine) bool {
			return equality.Semantic.DeepEqual(want.Spec, have.Spec)
		},
		func(want, have *cloudv1alpha1.VirtualMachine) { have.Spec = want.Spec },
		stale)
	p.Create.NetworkInterfaces, p.Update.NetworkInterfaces, p.Delete.NetworkInterfaces = diffKind(
		desired.NetworkInterfaces, existing.NetworkInterfaces,
		func(o *cloudv1alpha1.NetworkInterface) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(o *cloudv1alpha1.NetworkInterface) string { return o.Spec.Region },
		func(want, have *cloudv1alpha1.NetworkInterface) bool {
			return equality.Semantic.DeepEqual(want.Spec, have.Spec) &&
				(len(want.OwnerReferences) == 0 || equality.Semantic.DeepEqual(want.OwnerReferences, have.OwnerReferences))
		},
		func(want, have *cloudv1alpha1.NetworkInterface) {
			have.Spec = want.Spec
			if len(want.OwnerReferences) > 0 {
				have.OwnerReferences = want.OwnerReferences
			}
		},
		stale)
	p.Create.CloudNativeServices, p.Update.CloudNativeServices, p.Delete.CloudNativeServices = diffKind(
		desired.CloudNativeServices, existing.CloudNativeServices,
		func(o *cloudv1alpha1.CloudNativeService) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(o *cloudv1alpha1.CloudNativeService) string { return o.Spec.Region },
		func(want, have *cloudv1alpha1.CloudNativeService) bool {
			return equality.Semantic.DeepEqual(want.Spec, have.Spec)
		},
		func(want, have *cloudv1alpha1.CloudNativeService) { have.Spec = want.Spec },
		stale)
	return p
}

func ownerRef(vm *cloudv1alpha1.VirtualMachine) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{
		APIVersion:         cloudv1alpha1.GroupVersion.String(),
		Kind:               "VirtualMachine",
		Name:               vm.Name,
		UID:                vm.UID,
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
}

// diffKind diffs one kind. specEqual compares what the cloud controller
// owns besides labels; apply copies it from want onto have.
func diffKind[T any](
	desired, existing []T,
	meta func(*T) *metav1.ObjectMeta,
	region func(*T) string,
	specEqual func(want, have *T) bool,
	apply func(want, have *T),
	stale func(string) bool,
) (create, update, del []T) {
	have := make(map[string]*T, len(existing))
	for i := range existing {
		have[meta(&existing[i]).Name] = &existing[i]
	}
	wanted := make(map[string]bool, len(desired))
	for i := range desired {
		want := &desired[i]
		name := meta(want).Name
		wanted[name] = true
		old, ok := have[name]
		switch {
		case !ok:
			create = append(create, *want)
		case meta(old).DeletionTimestamp != nil:
			// Being deleted: recreate once it is gone.
		case !specEqual(want, old) || !managedLabelsEqual(meta(want).Labels, meta(old).Labels):
			update = append(update, updated(want, old, meta, apply))
		}
	}
	for i := range existing {
		old := &existing[i]
		if !wanted[meta(old).Name] && !stale(region(old)) && meta(old).DeletionTimestamp == nil {
			del = append(del, *old)
		}
	}
	return create, update, del
}

// updated is a copy of old with want's spec and managed labels.
func updated[T any](want, old *T, meta func(*T) *metav1.ObjectMeta, apply func(want, have *T)) T {
	out := *old
	m := meta(&out)
	*m = *meta(old).DeepCopy()
	labels := map[string]string{}
	for k, v := range m.Labels {
		if !isManagedLabel(k) {
			labels[k] = v
		}
	}
	for k, v := range meta(want).Labels {
		labels[k] = v
	}
	m.Labels = labels
	apply(want, &out)
	return out
}

// isManagedLabel reports whether the cloud controller owns a label.
func isManagedLabel(key string) bool {
	switch key {
	case cloudv1alpha1.LabelAccountName, cloudv1alpha1.LabelAccountNamespace, cloudv1alpha1.LabelSelectorName, cloudv1alpha1.LabelVirtualMachine:
		return true
	}
	return strings.HasPrefix(key, TagLabelPrefix)
}

func managedLabelsEqual(want, have map[string]string) bool {
	n := 0
	for k, v := range have {
		if !isManagedLabel(k) {
			continue
		}
		n++
		if w, ok := want[k]; !ok || w != v {
			return false
		}
	}
	return n == len(want)
}
