package membership

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// Leave removes member from its federation: its entry and credentials from
// the registry of every supervisor, then everything Join created in it (the
// identity, the account, its token and roles, the Leases, the imports the
// federation wrote) and the namespace once nothing else is in it.
//
// Without force it changes nothing when a supervisor cannot be reached (its
// registry would keep the member), or when member is a supervisor (its
// registry of members would be lost). With force it leaves anyway, deletes
// the member's own registry, and prints how to clean unreachable supervisors
// later. supervisors may include member itself.
func Leave(ctx context.Context, progress io.Writer, member Cluster, supervisors []Cluster, force bool) error {
	r := newReporter(progress)
	cl, err := member.Client()
	if err != nil {
		return err
	}
	m, err := readMembership(ctx, member, cl)
	if err != nil && !errors.Is(err, errNoCRDs) {
		return fmt.Errorf("%w: is %s up?", err, member.Name)
	}
	own, err := ownRegistry(ctx, member, cl, errors.Is(err, errNoCRDs))
	if err != nil {
		return err
	}
	reachable, unreachable := readRegistries(ctx, others(member, supervisors))
	id := memberID(member, m, reachable)
	if err := checkLeave(member.Name, m, len(own), unreachable, force); err != nil {
		return err
	}
	if id == "" {
		r.step(member.Name, "is not a member of any federation; removing what is left of one ...")
	}
	for _, s := range reachable {
		if err := removeRegistration(ctx, r, s, id); err != nil {
			return err
		}
	}
	for _, e := range own {
		if err := removeRegistration(ctx, r, supervisorConn{Cluster: member, client: cl}, e.Spec.ClusterID); err != nil {
			return err
		}
	}
	if err := cleanMember(ctx, r, member, cl); err != nil {
		return err
	}
	if m != nil && m.Spec.Supervisor && len(reachable)+len(unreachable) == 0 {
		r.step(member.Name, "was the last supervisor of %s: its other members keep their identity; make another cluster a supervisor with 'antreaplus federation create --federation-id %s --supervisor CONTEXT' and join them again, or leave them",
			m.Spec.FederationID, m.Spec.FederationID)
	}
	for _, u := range unreachable {
		r.step(u.name, "could not be reached (%s): its registry may still list %s; once it is back run 'kubectl --context %s -n %s delete membercluster/%s secret/%s'",
			u.err, id, u.name, federationv1alpha1.SystemNamespace, id, federationv1alpha1.MemberSecretName(id))
	}
	r.step(member.Name, "left the federation")
	return nil
}

type unreachableSupervisor struct {
	name string
	err  error
}

// checkLeave refuses a leave that would lose a registry or leave entries
// behind, unless forced.
func checkLeave(context string, m *federationv1alpha1.ClusterMembership, ownEntries int, unreachable []unreachableSupervisor, force bool) error {
	if force {
		return nil
	}
	if len(unreachable) > 0 {
		var msgs []string
		for _, u := range unreachable {
			msgs = append(msgs, fmt.Sprintf("%s (%v)", u.name, u.err))
		}
		return fmt.Errorf("supervisors could not be reached: %s; nothing was changed: retry when they answer, or run 'antreaplus federation leave --context %s --force' to leave anyway and clean their registries later",
			strings.Join(msgs, ", "), context)
	}
	if (m != nil && m.Spec.Supervisor) || ownEntries > 0 {
		return fmt.Errorf("%s is a supervisor and its registry holds %d member(s): leaving deletes that registry (the other supervisors keep theirs); nothing was changed: run 'antreaplus federation leave --context %s --force' to do it",
			context, ownEntries, context)
	}
	return nil
}

// others are the supervisors other than member.
func others(member Cluster, supervisors []Cluster) []Cluster {
	var out []Cluster
	for _, s := range supervisors {
		if s.Name != member.Name && !sameServer(s.Config.Host, member.Config.Host) {
			out = append(out, s)
		}
	}
	return out
}

// memberID is the member's cluster ID: from its identity, else from a
// registry entry with its API server (the identity may be gone already).
func memberID(member Cluster, m *federationv1alpha1.ClusterMembership, registries []supervisorConn) string {
	if m != nil {
		return m.Spec.ClusterID
	}
	for _, s := range registries {
		for _, e := range s.registry {
			if sameServer(e.Spec.Server, member.Config.Host) {
				return e.Spec.ClusterID
			}
		}
	}
	return ""
}

func ownRegistry(ctx context.Context, member Cluster, cl client.Client, noCRDs bool) ([]federationv1alpha1.MemberCluster, error) {
	if noCRDs {
		return nil, nil
	}
	return listRegistry(ctx, member, cl)
}

// readRegistries reads the registry of every supervisor it reaches.
func readRegistries(ctx context.Context, supervisors []Cluster) ([]supervisorConn, []unreachableSupervisor) {
	var ok []supervisorConn
	var failed []unreachableSupervisor
	for _, s := range supervisors {
		cl, err := s.Client()
		var reg []federationv1alpha1.MemberCluster
		if err == nil {
			reg, err = listRegistry(ctx, s, cl)
		}
		if err != nil {
			failed = append(failed, unreachableSupervisor{name: s.Name, err: err})
			continue
		}
		ok = append(ok, supervisorConn{Cluster: s, client: cl, registry: reg})
	}
	return ok, failed
}

// removeRegistration deletes a member's registry entry and credential Secret.
func removeRegistration(ctx context.Context, r reporter, s supervisorConn, clusterID string) error {
	if clusterID == "" {
		return nil
	}
	entry := &federationv1alpha1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: clusterID}}
	secrets := []string{federationv1alpha1.MemberSecretName(clusterID)}
	if err := s.client.Get(ctx, client.ObjectKeyFromObject(entry), entry); err == nil && entry.Spec.CredentialsSecretRef.Name != secrets[0] {
		secrets = append(secrets, entry.Spec.CredentialsSecretRef.Name)
	}
	removed, err := remove(ctx, s.client, entry)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	for _, name := range secrets {
		if _, err := remove(ctx, s.client, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: name}}); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	if removed {
		r.step(s.Name, "removed member %s from its registry", clusterID)
	}
	return nil
}
