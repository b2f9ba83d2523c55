package membership

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// namedRegistry is the registry of one supervisor.
type namedRegistry struct {
	supervisor string
	entries    []federationv1alpha1.MemberCluster
}

// registryCopy copies the entry of a member from one supervisor's registry to another's.
type registryCopy struct {
	from, to, clusterID string
}

// planRegistrySync lists the copies that give every registry every member
// any registry knows, taking each entry from the first registry that has
// it. Entries with the same ID but another API server are an error: the
// copies would hide the conflict.
func planRegistrySync(registries []namedRegistry) ([]registryCopy, error) {
	first := map[string]federationv1alpha1.MemberCluster{}
	from := map[string]string{}
	var ids []string
	for _, reg := range registries {
		for _, e := range reg.entries {
			seen, ok := first[e.Spec.ClusterID]
			if !ok {
				first[e.Spec.ClusterID], from[e.Spec.ClusterID] = e, reg.supervisor
				ids = append(ids, e.Spec.ClusterID)
				continue
			}
			if !sameServer(seen.Spec.Server, e.Spec.Server) {
				return nil, fmt.Errorf("the registries disagree on member %s: %s has %s, %s has %s: remove the wrong entry with 'kubectl --context CONTEXT -n %s delete membercluster %s', then join that member again",
					e.Spec.ClusterID, from[e.Spec.ClusterID], seen.Spec.Server, reg.supervisor, e.Spec.Server, federationv1alpha1.SystemNamespace, e.Spec.ClusterID)
			}
		}
	}
	slices.Sort(ids)
	var copies []registryCopy
	for _, reg := range registries {
		for _, id := range ids {
			has := slices.ContainsFunc(reg.entries, func(e federationv1alpha1.MemberCluster) bool { return e.Spec.ClusterID == id })
			if !has {
				copies = append(copies, registryCopy{from: from[id], to: reg.supervisor, clusterID: id})
			}
		}
	}
	return copies, nil
}

// syncRegistries gives every supervisor's registry the members the others know.
func syncRegistries(ctx context.Context, r reporter, supervisors []Cluster) error {
	clients := map[string]client.Client{}
	byName := map[string]Cluster{}
	var registries []namedRegistry
	for _, s := range supervisors {
		cl, err := s.Client()
		if err != nil {
			return err
		}
		entries, err := listRegistry(ctx, s, cl)
		if err != nil {
			return err
		}
		clients[s.Name], byName[s.Name] = cl, s
		registries = append(registries, namedRegistry{supervisor: s.Name, entries: entries})
	}
	copies, err := planRegistrySync(registries)
	if err != nil {
		return err
	}
	for _, c := range copies {
		reg, err := readRegistration(ctx, clients[c.from], c.clusterID)
		if err != nil {
			return fmt.Errorf("%s: %w", c.from, err)
		}
		r.step(c.to, "registering member %s, known to %s ...", c.clusterID, c.from)
		if err := writeRegistration(ctx, r, byName[c.to], clients[c.to], reg); err != nil {
			return err
		}
	}
	return nil
}

// readRegistration reads a member's registry entry and credentials.
func readRegistration(ctx context.Context, cl client.Client, clusterID string) (registration, error) {
	mc := &federationv1alpha1.MemberCluster{}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: clusterID}, mc); err != nil {
		return registration{}, fmt.Errorf("reading the registry entry of %s: %w", clusterID, err)
	}
	sec := &corev1.Secret{}
	key := client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: mc.Spec.CredentialsSecretRef.Name}
	if err := cl.Get(ctx, key, sec); err != nil {
		return registration{}, fmt.Errorf("reading the credentials of %s: %w", clusterID, err)
	}
	return registration{
		identity: identity{ClusterID: mc.Spec.ClusterID, Supervisor: mc.Spec.Supervisor},
		Server:   mc.Spec.Server,
		Labels:   userLabels(mc.Labels),
		Token:    sec.Data[federationv1alpha1.CredentialTokenKey],
		CA:       sec.Data[federationv1alpha1.CredentialCAKey],
	}, nil
}
