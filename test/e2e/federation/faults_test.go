package federation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/test/framework"
)

// registryEntry reads a supervisor's registry entry of a member. A
// supervisor's API server that times out or answers 5xx (a loaded machine:
// "the server was unable to return a response in the time allotted" ended
// a whole run of these tests once) is asked again for up to 30 s; any
// other error fails the test.
func registryEntry(t *testing.T, supervisor, member string) *federationv1alpha1.MemberCluster {
	t.Helper()
	mc := &federationv1alpha1.MemberCluster{}
	framework.Eventually(t, 30*time.Second, func() error {
		err := clusters.Client(t, supervisor).Get(t.Context(), client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: member}, mc)
		if err != nil && !transient(err) {
			t.Fatalf("reading %s's registry entry of %s: %v", supervisor, member, err)
		}
		if err != nil {
			return fmt.Errorf("reading %s's registry entry of %s: %w", supervisor, member, err)
		}
		return nil
	})
	return mc
}

// transient tells whether an API error may go away by itself: a timeout,
// throttling or a server error.
func transient(err error) bool {
	return apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || errors.Is(err, context.DeadlineExceeded)
}

// condition returns a condition's status and reason, "" when absent.
func condition(mc *federationv1alpha1.MemberCluster, typ string) (metav1.ConditionStatus, string) {
	c := meta.FindStatusCondition(mc.Status.Conditions, typ)
	if c == nil {
		return "", ""
	}
	return c.Status, c.Reason
}

// managerPids records every supervisor's manager pid, to check none restarted.
func managerPids(f *framework.Federation) map[string]int {
	out := map[string]int{}
	for _, s := range f.Supervisors {
		out[s] = f.ManagerPid(s)
	}
	return out
}

func checkNoRestart(t *testing.T, f *framework.Federation, before map[string]int) {
	t.Helper()
	for s, pid := range managerPids(f) {
		if pid == 0 || pid != before[s] {
			t.Errorf("the manager of %s is pid %d, was %d: it crashed or restarted", s, pid, before[s])
		}
	}
}

const victimMember = "member-4" // not a supervisor

func TestMemberAPIServerOutage(t *testing.T) {
	f := federation(t)
	pids := managerPids(f)
	before := f.WaitSettled(t, time.Minute)
	pidFile := filepath.Join(clusters.Sandbox.ClusterDir(victimMember), "pids", "kube-apiserver.pid")
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	down := time.Now()
	restarted := false
	// Whatever ends this test, the member's API server runs again for the
	// next ones (which all lead it: a failure here once failed them too).
	t.Cleanup(func() {
		if restarted {
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 2*time.Minute)
		defer cancel()
		if _, err := clusters.Sandbox.Up(ctx, nClusters); err != nil {
			t.Errorf("restarting %s after the test: %v", victimMember, err)
		}
	})

	// Within the grace: every supervisor sees it unreachable, none says it is gone for good.
	framework.Eventually(t, 15*time.Second, func() error {
		for _, s := range f.Supervisors {
			if mc := registryEntry(t, s, victimMember); mc.Status.Reachable || mc.Status.UnreachableSince != nil {
				return fmt.Errorf("%s: reachable=%v unreachableSince=%v", s, mc.Status.Reachable, mc.Status.UnreachableSince)
			}
		}
		return nil
	})
	// Past the grace (20 s): marked unreachable from all supervisors.
	framework.Eventually(t, 40*time.Second, func() error {
		for _, s := range f.Supervisors {
			mc := registryEntry(t, s, victimMember)
			if _, reason := condition(mc, federationv1alpha1.MemberReachable); reason != federationv1alpha1.ReasonUnreachableFromAllSupervisors || mc.Status.UnreachableSince == nil {
				return fmt.Errorf("%s: Reachable reason %q, unreachableSince %v", s, reason, mc.Status.UnreachableSince)
			}
		}
		return nil
	})
	if took := time.Since(down); took < 20*time.Second {
		t.Errorf("marked unreachable after %s, before the 20s grace", took)
	}
	// The others are unaffected.
	for m, l := range f.Leaders(t) {
		if m != victimMember && l != before[m] {
			t.Errorf("member %s changed leader from %s to %s during another member's outage", m, before[m], l)
		}
	}
	// Down for a minute, then back: led again and ready.
	time.Sleep(time.Until(down.Add(time.Minute)))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if _, err := clusters.Sandbox.Up(ctx, nClusters); err != nil {
		t.Fatalf("restarting %s: %v", victimMember, err)
	}
	restarted = true
	f.WaitAllLed(t, 30*time.Second)
	framework.Eventually(t, 30*time.Second, func() error {
		for _, s := range f.Supervisors {
			mc := registryEntry(t, s, victimMember)
			if st, _ := condition(mc, federationv1alpha1.MemberReady); st != metav1.ConditionTrue || mc.Status.UnreachableSince != nil {
				return fmt.Errorf("%s: Ready %q, unreachableSince %v", s, st, mc.Status.UnreachableSince)
			}
		}
		return nil
	})
	checkNoRestart(t, f, pids)
}

func TestSupervisorCutOffFromOneMember(t *testing.T) {
	f := federation(t)
	pids := managerPids(f)
	leaders := f.WaitSettled(t, time.Minute)
	cutOff := leaders[victimMember]
	mc := registryEntry(t, cutOff, victimMember)
	server := mc.Spec.Server
	proxy, err := framework.NewTCPProxy(strings.TrimPrefix(server, "https://"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = proxy.Close() }()
	setServer := func(url string) {
		// The managers write the entry's status meanwhile: Update retries conflicts.
		entry := registryEntry(t, cutOff, victimMember)
		framework.Update(t, clusters.Client(t, cutOff), entry, func() { entry.Spec.Server = url })
	}
	_, term := f.Lease(t, victimMember)
	setServer("https://" + proxy.Addr())
	defer setServer(server)
	// The supervisor reconnects through the proxy (its old session releases
	// the Lease: a new term) and, preferred, leads the member again.
	f.WaitAllLed(t, 40*time.Second)
	framework.Eventually(t, 40*time.Second, func() error {
		if l, now := f.Lease(t, victimMember); l != cutOff || now <= term {
			return fmt.Errorf("%s led by %s in term %d, waiting for %s in a term after %d", victimMember, l, now, cutOff, term)
		}
		return nil
	})

	proxy.Cut()
	start := time.Now()
	framework.Eventually(t, bound, func() error {
		if l, _ := f.Lease(t, victimMember); l == "" || l == cutOff {
			return fmt.Errorf("%s still led by %q", victimMember, l)
		}
		return nil
	})
	t.Logf("%s cut off from %s: taken over in %s", cutOff, victimMember, time.Since(start).Round(10*time.Millisecond))
	framework.Eventually(t, 15*time.Second, func() error {
		mc := registryEntry(t, cutOff, victimMember)
		if st, reason := condition(mc, federationv1alpha1.MemberReachable); st != metav1.ConditionFalse || reason != federationv1alpha1.ReasonProbeFailed {
			return fmt.Errorf("%s's view of %s: Reachable %q %q", cutOff, victimMember, st, reason)
		}
		return nil
	})
	// Other supervisors still reach it, so it is never marked unreachable from all.
	time.Sleep(22 * time.Second)
	for _, s := range f.Supervisors {
		if mc := registryEntry(t, s, victimMember); mc.Status.UnreachableSince != nil {
			t.Errorf("%s marks %s unreachable from all supervisors although others reach it", s, victimMember)
		}
	}
	if err := proxy.Restore(); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 40*time.Second, func() error {
		if l, _ := f.Lease(t, victimMember); l != cutOff {
			return fmt.Errorf("%s led by %s, waiting for %s to take it back", victimMember, l, cutOff)
		}
		return nil
	})
	checkNoRestart(t, f, pids)
}

func TestRevokedCredentials(t *testing.T) {
	f := federation(t)
	pids := managerPids(f)
	f.WaitAllLed(t, 30*time.Second)
	// Deleting the member's token Secret revokes the token every supervisor uses.
	member := clusters.Client(t, victimMember)
	tok := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.FederationTokenSecret}}
	if err := member.Delete(t.Context(), tok); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func() error {
		for _, s := range f.Supervisors {
			mc := registryEntry(t, s, victimMember)
			if st, reason := condition(mc, federationv1alpha1.MemberCredentialsValid); st != metav1.ConditionFalse || reason != federationv1alpha1.ReasonUnauthorized {
				return fmt.Errorf("%s: CredentialsValid %q %q (%s)", s, st, reason, mc.Status.LastError)
			}
		}
		return nil
	})
	checkNoRestart(t, f, pids)
	// Joining again issues new credentials and the member is led again.
	var sups []membership.Cluster
	for _, s := range f.Supervisors {
		sups = append(sups, membership.Cluster{Name: s, Config: clusters.Config(t, s)})
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if _, err := membership.Join(ctx, os.Stderr, membership.Cluster{Name: victimMember, Config: clusters.Config(t, victimMember)}, victimMember, sups, membership.JoinOptions{}); err != nil {
		t.Fatalf("joining %s again: %v", victimMember, err)
	}
	f.WaitAllLed(t, 30*time.Second)
	framework.Eventually(t, 30*time.Second, func() error {
		for _, s := range f.Supervisors {
			if st, _ := condition(registryEntry(t, s, victimMember), federationv1alpha1.MemberReady); st != metav1.ConditionTrue {
				return fmt.Errorf("%s: %s not Ready", s, victimMember)
			}
		}
		return nil
	})
	checkNoRestart(t, f, pids)
}

func TestRegistryEntryAtDeadAddress(t *testing.T) {
	f := federation(t)
	pids := managerPids(f)
	f.WaitAllLed(t, 30*time.Second)
	ctx := t.Context()
	for _, s := range f.Supervisors {
		cl := clusters.Client(t, s)
		// Valid-looking credentials (a real CA), but nothing listens at the address.
		real := &corev1.Secret{}
		if err := cl.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.MemberSecretName(victimMember)}, real); err != nil {
			t.Fatal(err)
		}
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.MemberSecretName("ghost")},
			Data: map[string][]byte{federationv1alpha1.CredentialTokenKey: []byte("x"), federationv1alpha1.CredentialCAKey: real.Data[federationv1alpha1.CredentialCAKey]}}
		mc := &federationv1alpha1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: "ghost"},
			Spec: federationv1alpha1.MemberClusterSpec{ClusterID: "ghost", Server: "https://127.0.0.1:9", CredentialsSecretRef: federationv1alpha1.SecretReference{Name: sec.Name}}}
		for _, o := range []client.Object{sec, mc} {
			if err := cl.Create(ctx, o); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			t.Cleanup(func() { _ = cl.Delete(context.WithoutCancel(t.Context()), o) })
		}
	}
	framework.Eventually(t, 45*time.Second, func() error {
		for _, s := range f.Supervisors {
			mc := registryEntry(t, s, "ghost")
			_, reason := condition(mc, federationv1alpha1.MemberReachable)
			if reason != federationv1alpha1.ReasonUnreachableFromAllSupervisors || !strings.Contains(mc.Status.LastError, "connection refused") {
				return fmt.Errorf("%s: Reachable reason %q, lastError %q", s, reason, mc.Status.LastError)
			}
		}
		return nil
	})
	t.Logf("dead address reported as: %s", registryEntry(t, f.Supervisors[0], "ghost").Status.LastError)
	// The real members stay led and no manager restarts.
	for m, l := range f.Leaders(t) {
		if l == "" {
			t.Errorf("member %s lost its leader because of a dead registry entry", m)
		}
	}
	checkNoRestart(t, f, pids)
}
