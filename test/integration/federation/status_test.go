package federation

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/membership"
)

func TestStatusShowsEveryMember(t *testing.T) {
	form(t)
	ctx := testContext(t)
	members := map[string]membership.Cluster{}
	for _, n := range clusters.Names {
		members[n] = cl(t, n)
	}
	st, err := membership.Status(ctx, []membership.Cluster{cl(t, "member-1")}, members)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		FederationID string `json:"federationID"`
		Members      []struct {
			ClusterID  string  `json:"clusterID"`
			Supervisor *bool   `json:"supervisor"`
			Leader     *string `json:"leader"`
			Ready      *bool   `json:"ready"`
		} `json:"members"`
		Supervisors []map[string]any `json:"supervisors"`
		Problems    []string         `json:"problems"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.FederationID != "acme" || len(doc.Members) != 3 || len(doc.Supervisors) != 1 || doc.Supervisors[0]["reachable"] != true {
		t.Fatalf("status JSON = %s", raw)
	}
	for i, m := range doc.Members {
		if m.ClusterID != clusters.Names[i] || m.Supervisor == nil || *m.Supervisor != (i == 0) || m.Leader == nil || *m.Leader != "" || m.Ready == nil || *m.Ready {
			t.Errorf("member %d in JSON = %+v", i, m)
		}
	}
	if !containsText(doc.Problems, "member-2: no supervisor leads it") {
		t.Errorf("problems = %v", doc.Problems)
	}
}

func TestStatusReadsTheLeaseInTheMemberAndReportsDeadSupervisors(t *testing.T) {
	form(t)
	ctx := testContext(t)
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.LeaderLease},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptrTo("member-1"), LeaseDurationSeconds: ptrTo[int32](60),
			RenewTime: &metav1.MicroTime{Time: time.Now()}},
	}
	if err := clientFor(t, memberCredentials(t, "member-1", "member-2")).Create(ctx, lease); err != nil {
		t.Fatal(err)
	}
	dead := membership.Cluster{Name: "dead", Config: &rest.Config{Host: "https://127.0.0.1:1"}}
	st, err := membership.Status(ctx, []membership.Cluster{cl(t, "member-1"), dead}, map[string]membership.Cluster{"member-2": cl(t, "member-2")})
	if err != nil {
		t.Fatal(err)
	}
	var m2 membership.MemberStatus
	for _, m := range st.Members {
		if m.ClusterID == "member-2" {
			m2 = m
		}
	}
	if m2.Leader != "member-1" || m2.LeaseSource != membership.LeaseFromMember || m2.LeaseRenewTime == nil {
		t.Errorf("member-2 = %+v, want leader member-1 from its Lease", m2)
	}
	if !containsText(st.Problems, "supervisor dead did not answer") || st.Supervisors[1].Reachable {
		t.Errorf("problems = %v", st.Problems)
	}
}

func containsText(lines []string, text string) bool {
	for _, l := range lines {
		if strings.Contains(l, text) {
			return true
		}
	}
	return false
}
