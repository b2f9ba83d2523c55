package fedpolicy

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policyview"
	"antreaplus.io/antreaplus/test/framework"
)

// otherNS is a tenant's Namespace, in every member.
const otherNS = "other"

var devVMs = []string{"dev-build-1", "dev-build-2", "dev-build-3"}

var (
	fixturesOnce sync.Once
	fixturesErr  error
)

// federation makes, once for the package, what every test starts from:
// cloud-demo in member-3 too (Namespace sameness: it then imports the VMs
// of both clouds), the Namespace other everywhere, and member-1 and
// member-2 exporting their dev VMs; it waits until every member imported
// the other clouds' VMs.
func federation(t *testing.T) {
	t.Helper()
	fixturesOnce.Do(func() {
		for cluster, names := range map[string][]string{"member-1": {otherNS}, "member-2": {otherNS}, "member-3": {otherNS, ns}} {
			for _, name := range names {
				if err := cl(cluster).Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil && !apierrors.IsAlreadyExists(err) {
					fixturesErr = fmt.Errorf("creating namespace %s in %s: %w", name, cluster, err)
					return
				}
			}
		}
		for _, cluster := range []string{"member-1", "member-2"} {
			if err := cl(cluster).Create(bg, entityExport()); err != nil {
				fixturesErr = fmt.Errorf("exporting the dev VMs of %s: %w", cluster, err)
				return
			}
		}
	})
	if fixturesErr != nil {
		t.Fatal(fixturesErr)
	}
	framework.LogTailsOnFailure(t, map[string]string{
		"the federation manager of member-1": sbx.sb.ManagerLog("member-1"),
		"the federation manager of member-2": sbx.sb.ManagerLog("member-2"),
	}, 60, framework.ManagerLogNoise...)
	// The sandbox's first import of every VM: a minute was too short at a CI
	// load of 20 (a VM of member-1 still missing in member-2).
	waitImported(t, 3*time.Minute)
}

// waitImported waits until every member imported the dev VMs of both clouds.
func waitImported(t testing.TB, timeout time.Duration) {
	t.Helper()
	for _, c := range []struct{ into, from string }{{"member-2", "member-1"}, {"member-3", "member-1"}, {"member-1", "member-2"}, {"member-3", "member-2"}} {
		waitRemoteVMs(t, c.into, c.from, devVMs, timeout)
	}
}

// remoteVMs names the VMs a member imported from source (their Name tag), sorted.
func remoteVMs(t testing.TB, cluster, source string) []string {
	t.Helper()
	var out []string
	for _, e := range remoteEntities(t, cluster, source) {
		out = append(out, e.Labels[nameTag])
	}
	sort.Strings(out)
	return out
}

func remoteEntities(t testing.TB, cluster, source string) []federationv1alpha1.RemoteEntity {
	t.Helper()
	list := &federationv1alpha1.RemoteEntityList{}
	if err := cl(cluster).List(bg, list, client.InNamespace(ns), client.MatchingLabels{federationv1alpha1.LabelSourceCluster: source}); err != nil {
		t.Fatalf("listing the RemoteEntities of %s in %s: %v", source, cluster, err)
	}
	return list.Items
}

// remoteEntity is the RemoteEntity of a VM of source in a member, nil when none.
func remoteEntity(t testing.TB, cluster, source, name string) *federationv1alpha1.RemoteEntity {
	t.Helper()
	for _, e := range remoteEntities(t, cluster, source) {
		if e.Labels[nameTag] == name {
			return &e
		}
	}
	return nil
}

func endpointIPs(e *federationv1alpha1.RemoteEntity) []string {
	var out []string
	for _, ep := range e.Spec.Endpoints {
		out = append(out, ep.IP)
	}
	return out
}

// waitRemoteVMs waits until a member imported exactly the VMs want from source.
func waitRemoteVMs(t testing.TB, cluster, source string, want []string, timeout time.Duration) {
	t.Helper()
	framework.Eventually(t, timeout, func() error {
		if got := remoteVMs(t, cluster, source); !slices.Equal(got, want) {
			return fmt.Errorf("%s imported from %s the VMs %v, want %v", cluster, source, got, want)
		}
		return nil
	})
}

// getFNP reads a federated policy.
func getFNP(t testing.TB, cluster, namespace, name string) *policyv1alpha1.FederatedNetworkPolicy {
	t.Helper()
	p := &policyv1alpha1.FederatedNetworkPolicy{}
	if err := cl(cluster).Get(bg, client.ObjectKey{Namespace: namespace, Name: name}, p); err != nil {
		t.Fatalf("reading FederatedNetworkPolicy %s/%s in %s: %v", namespace, name, cluster, err)
	}
	return p
}

// waitFNP waits until check passes on a federated policy, and returns it;
// a failure shows the policy's status.
func waitFNP(t testing.TB, cluster, namespace, name string, timeout time.Duration, check func(*policyv1alpha1.FederatedNetworkPolicy) error) *policyv1alpha1.FederatedNetworkPolicy {
	t.Helper()
	var p *policyv1alpha1.FederatedNetworkPolicy
	framework.Eventually(t, timeout, func() error {
		p = getFNP(t, cluster, namespace, name)
		if err := check(p); err != nil {
			return fmt.Errorf("FederatedNetworkPolicy %s/%s in %s: %w; its status:\n%s", namespace, name, cluster, err, statusJSON(p))
		}
		return nil
	})
	return p
}

func statusJSON(p *policyv1alpha1.FederatedNetworkPolicy) string {
	out, _ := json.MarshalIndent(struct {
		Generation int64                                       `json:"generation"`
		Status     policyv1alpha1.FederatedNetworkPolicyStatus `json:"status"`
	}{p.Generation, p.Status}, "", "  ")
	return string(out)
}

// realized checks that the status is of the policy's generation and Realized.
func realized(p *policyv1alpha1.FederatedNetworkPolicy) error {
	if p.Status.ObservedGeneration != p.Generation || p.Status.Phase != policyv1alpha1.FederatedPolicyRealized {
		return fmt.Errorf("phase %q for generation %d, want Realized for generation %d", p.Status.Phase, p.Status.ObservedGeneration, p.Generation)
	}
	return nil
}

// conditionIs checks a condition's status and reason.
func conditionIs(p *policyv1alpha1.FederatedNetworkPolicy, typ string, status metav1.ConditionStatus, reason string) error {
	c := meta.FindStatusCondition(p.Status.Conditions, typ)
	if c == nil || c.Status != status || c.Reason != reason || c.ObservedGeneration != p.Generation {
		return fmt.Errorf("condition %s is %+v, want %s/%s for generation %d", typ, c, status, reason, p.Generation)
	}
	return nil
}

// allOf passes when every check passes.
func allOf(checks ...func(*policyv1alpha1.FederatedNetworkPolicy) error) func(*policyv1alpha1.FederatedNetworkPolicy) error {
	return func(p *policyv1alpha1.FederatedNetworkPolicy) error {
		for _, c := range checks {
			if err := c(p); err != nil {
				return err
			}
		}
		return nil
	}
}

// resolved checks the one remote source of a policy: resolved from
// clusters, or not resolved when clusters is empty.
func resolved(clusters ...string) func(*policyv1alpha1.FederatedNetworkPolicy) error {
	return func(p *policyv1alpha1.FederatedNetworkPolicy) error {
		if len(p.Status.RemoteSources) != 1 {
			return fmt.Errorf("%d remote sources, want 1", len(p.Status.RemoteSources))
		}
		s := p.Status.RemoteSources[0]
		if s.Resolved != (len(clusters) > 0) || !slices.Equal(s.Clusters, clusters) {
			return fmt.Errorf("remote source %s resolved=%v from %v, want resolved=%v from %v", s.Name, s.Resolved, s.Clusters, len(clusters) > 0, clusters)
		}
		return nil
	}
}

// derivedCIDRs are the ipBlocks of the Groups derived from a federated policy.
func derivedCIDRs(t testing.TB, cluster, namespace, name string) []string {
	t.Helper()
	groups := &antreav1beta1.GroupList{}
	if err := cl(cluster).List(bg, groups, client.InNamespace(namespace), client.MatchingLabels{policyview.FederatedPolicyLabel: name}); err != nil {
		t.Fatalf("listing the Groups derived from %s in %s: %v", name, cluster, err)
	}
	var out []string
	for _, g := range groups.Items {
		for _, b := range g.Spec.IPBlocks {
			out = append(out, b.CIDR)
		}
	}
	sort.Strings(out)
	return out
}

// derivedPolicy reads the Antrea NetworkPolicy derived from a federated policy.
func derivedPolicy(t testing.TB, cluster, namespace, name string) *antreav1beta1.NetworkPolicy {
	t.Helper()
	p := &antreav1beta1.NetworkPolicy{}
	if err := cl(cluster).Get(bg, client.ObjectKey{Namespace: namespace, Name: "fnp-" + name}, p); err != nil {
		t.Fatalf("reading the derived NetworkPolicy fnp-%s in %s: %v", name, cluster, err)
	}
	return p
}

// policyStatus is `antreaplus policy status NAME -n NS --context CLUSTER -o json`.
func policyStatus(t testing.TB, cluster, namespace, name string) policyview.PolicyStatus {
	t.Helper()
	out := antreaplus(t, "policy", "status", name, "-n", namespace, "--context", cluster, "-o", "json")
	var st policyview.PolicyStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("policy status %s -o json: %v\n%s", name, err, out)
	}
	return st
}

// federatedDetail is the federated policy's row of a policy status.
func federatedDetail(t testing.TB, st policyview.PolicyStatus) policyview.Detail {
	t.Helper()
	for _, d := range st.Policies {
		if d.Federated {
			return d
		}
	}
	t.Fatalf("policy status %s shows no FederatedNetworkPolicy: %+v", st.Name, st.Policies)
	return policyview.Detail{}
}
