package entityexport_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/entityexport"
)

func Example() {
	exp := federationv1alpha1.EntityExport{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-vms", Generation: 1},
		Spec: federationv1alpha1.EntityExportSpec{ExternalEntitySelector: metav1.LabelSelector{
			MatchLabels: map[string]string{"tag.cloud.antreaplus.io/role": "web"}}},
	}
	nic := antreav1alpha2.ExternalEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "nic-a", Labels: map[string]string{
			"tag.cloud.antreaplus.io/role": "web", "cloud.antreaplus.io/kind": "VirtualMachine",
			"federation.antreaplus.io/source-cluster": "spoofed"}},
		Spec: antreav1alpha2.ExternalEntitySpec{Endpoints: []antreav1alpha2.Endpoint{{IP: "10.0.0.5"}}},
	}
	entities := []antreav1alpha2.ExternalEntity{nic}

	// The member controller: the export's status.
	cond := entityexport.ValidCondition(&exp, entityexport.Validate(&exp), len(entityexport.Selected(&exp, entities)))
	fmt.Println(cond.Type, cond.Status, cond.Reason)

	// The leader of another member: what it imports from member-1.
	src := entityexport.Source{ClusterID: "member-1", Labels: map[string]string{"topology.kubernetes.io/region": "eu"}}
	for _, r := range entityexport.Desired(src, []federationv1alpha1.EntityExport{exp}, entities) {
		fmt.Println(r.Namespace, r.Name, r.Spec.Kind, r.Spec.Endpoints[0].IP)
		fmt.Println(r.Labels["federation.antreaplus.io/source-cluster"], r.Labels["member.federation.antreaplus.io/region"])
	}
	// Output:
	// Valid True Valid
	// shop member-1.nic-a VirtualMachine 10.0.0.5
	// member-1 eu
}
