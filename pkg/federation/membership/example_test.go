package membership_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"antreaplus.io/antreaplus/pkg/federation/membership"
)

// The life of a federation, as the CLI drives it: member-1 becomes the
// supervisor of federation "acme", member-2 joins, the status is read, and
// member-2 leaves. Join and Create check everything before they write, and
// both are idempotent.
func Example() {
	run := func(ctx context.Context, kubeconfig string) error {
		kc, err := membership.LoadKubeconfig(kubeconfig)
		if err != nil {
			return err
		}
		sup, err := kc.Cluster("member-1")
		if err != nil {
			return err
		}
		if err := membership.Create(ctx, os.Stderr, "acme", []membership.Cluster{sup}, membership.CreateOptions{}); err != nil {
			return err
		}
		m2, err := kc.Cluster("member-2")
		if err != nil {
			return err
		}
		id, err := membership.Join(ctx, os.Stderr, m2, "", []membership.Cluster{sup}, membership.JoinOptions{}) // "": the ID it has, else its context name
		if err != nil {
			return err
		}
		st, err := membership.Status(ctx, []membership.Cluster{sup}, map[string]membership.Cluster{id: m2})
		if err != nil {
			return err
		}
		for _, m := range st.Members {
			fmt.Println(m.ClusterID, "led by", m.Leader)
		}
		return membership.Leave(ctx, os.Stderr, m2, []membership.Cluster{sup}, false)
	}
	_ = run
}

// Every context of a kubeconfig probed at once for the supervisors and
// members of federation "acme".
func ExampleDiscover() {
	run := func(ctx context.Context, kc *membership.Kubeconfig) error {
		d, err := membership.Discover(ctx, kc.Clusters, "acme", 2*time.Second)
		if err != nil {
			return err
		}
		fmt.Println(len(d.Supervisors), "supervisors,", len(d.Members), "members,", len(d.Unanswered), "contexts unanswered")
		return d.MissingError() // registry supervisors without a context
	}
	_ = run
}

// A kubeconfig context's name made a cluster ID.
func ExampleSanitizeClusterID() {
	id, err := membership.SanitizeClusterID("arn:aws:eks:eu-west-1:123456789012:cluster/Prod_EU")
	fmt.Println(id, err)
	// Output:
	// arn-aws-eks-eu-west-1-123456789012-cluster-prod-eu <nil>
}
