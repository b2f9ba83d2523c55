package sandbox

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestPlanFlat(t *testing.T) {
	net := func(name, cidr string) federationv1alpha1.Network {
		return federationv1alpha1.Network{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: federationv1alpha1.NetworkSpec{CIDRs: []string{cidr}}}
	}
	plan := planFlat([]memberNetworks{
		{cluster: "member-1", networks: []federationv1alpha1.Network{net("aws.vpc-1", "10.10.0.0/16"), net("aws.vpc-2", "10.20.0.0/16")}},
		{cluster: "member-2", networks: []federationv1alpha1.Network{net("azure.prod", "10.30.0.0/16")}},
	})
	got := fmt.Sprint(plan["member-1"]["aws.vpc-1"], plan["member-2"]["azure.prod"])
	want := "[{aws.vpc-2 [10.20.0.0/16] Declared } {azure.prod [10.30.0.0/16] Declared }] [{aws.vpc-1 [10.10.0.0/16] Declared } {aws.vpc-2 [10.20.0.0/16] Declared }]"
	if got != want {
		t.Errorf("plan %s\nwant %s", got, want)
	}
}
