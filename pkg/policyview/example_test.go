package policyview_test

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/policyview"
)

// A federated policy and the Antrea policy derived from it are two rows
// and one policy; a member that did not answer is reported.
func ExampleList() {
	fnp := policyv1alpha1.FederatedNetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Generation: 1}}
	fnp.Status.ObservedGeneration, fnp.Status.Phase = 1, policyv1alpha1.FederatedPolicyRealized
	fnp.Status.EnforcementPoints = []policyv1alpha1.EnforcementPointStatus{{Name: "antrea", Realized: true}}
	derived := antreav1beta1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "fnp-web", Generation: 1,
		Labels: map[string]string{policyview.FederatedPolicyLabel: "web"}}}
	derived.Status = antreav1beta1.NetworkPolicyStatus{Phase: antreav1beta1.NetworkPolicyRealized, ObservedGeneration: 1, CurrentNodesRealized: 2, DesiredNodesRealized: 2}

	l := policyview.List([]policyview.Snapshot{
		{Context: "member-1", Federated: []policyv1alpha1.FederatedNetworkPolicy{fnp}, NetworkPolicies: []antreav1beta1.NetworkPolicy{derived}},
		{Context: "member-2", Err: errors.New("connection refused")},
	})
	for _, r := range l.Policies {
		fmt.Printf("%s %s %s/%s federated=%v derivedFrom=%q %s %d/%d\n", r.Context, r.Kind, r.Namespace, r.Name, r.Federated, r.DerivedFrom, r.Phase, r.Realized, r.Desired)
	}
	fmt.Printf("%d policies, %d derived, %d member(s) unreadable\n", l.Summary.Policies, l.Summary.Derived, l.Summary.MembersUnreadable)
	// Output:
	// member-1 FederatedNetworkPolicy shop/web federated=true derivedFrom="" Realized 1/1
	// member-1 NetworkPolicy shop/fnp-web federated=false derivedFrom="web" Realized 2/2
	// 1 policies, 1 derived, 1 member(s) unreadable
}

// What 'antreaplus policy list -n shop' and 'policy status web -n shop' do:
// every context of a kubeconfig read at once, then the listing and the
// status of one policy in every member.
func ExampleRead() {
	run := func(ctx context.Context, kubeconfig string) error {
		kc, err := membership.LoadKubeconfig(kubeconfig)
		if err != nil {
			return err
		}
		snaps := policyview.Read(ctx, kc.Clusters, policyview.ReadOptions{Namespace: "shop"})
		for _, r := range policyview.List(snaps).Policies {
			fmt.Println(r.Context, r.Kind, r.Namespace, r.Name, r.Phase)
		}
		st := policyview.Status(snaps, "web")
		for _, d := range st.Policies {
			fmt.Println(d.Context, d.Kind, len(d.Conditions), "conditions", len(d.EnforcementPoints), "enforcement points")
		}
		return nil
	}
	_ = run
}
