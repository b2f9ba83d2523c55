package vmagent

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/test/framework"
)

// TestUpdateKeepsEstablishedConnections opens an allowed TCP connection,
// then changes the policy so that new connections of that kind are
// dropped: the change takes effect for new connections, and the open one
// keeps exchanging data, as the agent replaces its table atomically behind
// a rule that accepts established traffic.
func TestUpdateKeepsEstablishedConnections(t *testing.T) {
	l := newLab(t)
	tr := newTrio(t, l)
	c := clusters.Client(t, cluster)
	web, client := tr.role("web"), tr.role("client")
	policy := acnp(tr.ns+"-app", "application", 1, web, []antreav1beta1.Rule{
		rule(allow, from(client), tcp(9000)),
		rule(drop, tcp(9000)),
	}, nil)
	create(t, c, policy)
	tr.web.serve([]int{9000, 9001}, nil)
	expectFlows(t, 60*time.Second,
		tcpFlow(tr.client, tr.web, 9000, connected),
		tcpFlow(tr.other, tr.web, 9000, dropped))

	conn, err := tr.client.ns.Dial(t.Context(), "tcp", tr.web.ip+":9000")
	if err != nil {
		t.Fatalf("allowed connection: %v", err)
	}
	defer func() { _ = conn.Close() }()
	if err := netns.Exchange(conn, "before the update", 2*time.Second); err != nil {
		t.Fatal(err)
	}

	// The update: the client's new connections to 9000 are dropped, and
	// 9001 is dropped for everyone.
	// (The policy controller writes the policy's status meanwhile: Update retries conflicts.)
	current := &antreav1beta1.ClusterNetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: policy.Name}}
	updated := time.Now()
	framework.Update(t, c, current, func() { current.Spec.Ingress = []antreav1beta1.Rule{rule(drop, tcp(9000), tcp(9001))} })
	expectFlows(t, 30*time.Second,
		tcpFlow(tr.client, tr.web, 9000, dropped),
		tcpFlow(tr.client, tr.web, 9001, dropped))
	t.Logf("the update was in force after at most %s", time.Since(updated).Round(time.Millisecond))
	t.Logf("policy distribution metrics:\n  %s", strings.Join(l.metrics(), "\n  "))
	for i := range 3 {
		if err := netns.Exchange(conn, "after the update", 2*time.Second); err != nil {
			t.Fatalf("the established connection broke after the update (exchange %d): %v", i, err)
		}
	}
}
