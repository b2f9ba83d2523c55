package membership

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// DefaultProbeTimeout bounds the probe of one context in Discover. The
// contexts are probed at once, so it is waited for only when one does not
// answer at all (a refused connection fails at once). The probe's first
// request also discovers the API server's groups: on a loaded machine
// (CI) 2 s were too few for an API server that was alive, and `join`
// then said no supervisor answered.
const DefaultProbeTimeout = 10 * time.Second

// Discovery is what Discover found among a kubeconfig's contexts.
type Discovery struct {
	FederationID string
	// Supervisors are the contexts of the federation's supervisors.
	Supervisors []Cluster
	// Members are the contexts of the federation's members (supervisors
	// included), by cluster ID.
	Members map[string]Cluster
	// Unanswered are the contexts that did not answer, with their error.
	Unanswered map[string]string
	// Missing are supervisors a registry names whose API server matches no
	// answering supervisor context.
	Missing []MissingSupervisor
}

// MissingSupervisor is a supervisor in the registry that Discover could not reach.
type MissingSupervisor struct {
	ClusterID string
	Server    string
	// Context is the kubeconfig context that points at Server but did not
	// answer, empty when none points at it.
	Context string
	// Reason says why, and what to do.
	Reason string
}

// MissingError is nil when every supervisor of the registry was found, else
// an error naming each missing one and what to do.
func (d *Discovery) MissingError() error {
	if len(d.Missing) == 0 {
		return nil
	}
	var lines []string
	for _, m := range d.Missing {
		lines = append(lines, fmt.Sprintf("supervisor %s at %s: %s", m.ClusterID, m.Server, m.Reason))
	}
	return fmt.Errorf("the registry names supervisors that cannot be reached: %s", strings.Join(lines, "; "))
}

// probe is one context's identity as Discover read it.
type probe struct {
	cluster    Cluster
	membership *federationv1alpha1.ClusterMembership
	err        error
}

// Discover probes every context concurrently, each with timeout, for its
// ClusterMembership, and returns the supervisors of federationID (or of the
// only federation found when empty) and its members.
func Discover(ctx context.Context, clusters []Cluster, federationID string, timeout time.Duration) (*Discovery, error) {
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	probes := probeAll(ctx, clusters, timeout)
	fed, err := pickFederation(probes, federationID)
	if err != nil {
		return nil, err
	}
	d := &Discovery{FederationID: fed, Members: map[string]Cluster{}, Unanswered: map[string]string{}}
	for _, p := range probes {
		switch {
		case p.err != nil:
			d.Unanswered[p.cluster.Name] = p.err.Error()
		case p.membership == nil || p.membership.Spec.FederationID != fed:
		case p.membership.Spec.Supervisor:
			d.Supervisors = append(d.Supervisors, p.cluster)
			d.Members[p.membership.Spec.ClusterID] = p.cluster
		default:
			d.Members[p.membership.Spec.ClusterID] = p.cluster
		}
	}
	d.Missing = missingSupervisors(probes, fed, readAllRegistries(ctx, d.Supervisors, timeout))
	return d, nil
}

func probeAll(ctx context.Context, clusters []Cluster, timeout time.Duration) []probe {
	probes := make([]probe, len(clusters))
	var wg sync.WaitGroup
	for i, c := range clusters {
		wg.Go(func() {
			pctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			probes[i] = probe{cluster: c}
			cl, err := c.clientWithTimeout(timeout)
			if err == nil {
				probes[i].membership, err = readMembership(pctx, c, cl)
			}
			if errors.Is(err, errNoCRDs) {
				err = nil
			}
			probes[i].err = err
		})
	}
	wg.Wait()
	return probes
}

// pickFederation chooses the federation whose supervisors answered: the one
// asked for, or the only one found.
func pickFederation(probes []probe, asked string) (string, error) {
	feds := map[string]bool{}
	var unanswered []string
	for _, p := range probes {
		if p.err != nil {
			unanswered = append(unanswered, fmt.Sprintf("%s (%v)", p.cluster.Name, p.err))
		}
		if p.membership != nil && p.membership.Spec.Supervisor {
			feds[p.membership.Spec.FederationID] = true
		}
	}
	hint := ""
	if len(unanswered) > 0 {
		hint = "; these contexts did not answer: " + strings.Join(unanswered, ", ")
	}
	found := slices.Sorted(maps.Keys(feds))
	switch {
	case asked != "" && feds[asked]:
		return asked, nil
	case asked != "":
		return "", fmt.Errorf("no supervisor of federation %s among the %d contexts of the kubeconfig (federations found: %v): create it with 'antreaplus federation create --federation-id %s --supervisor CONTEXT', or pass the right --kubeconfig (and, if given, a --context that names a supervisor)%s",
			asked, len(probes), found, asked, hint)
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0:
		return "", fmt.Errorf("no federation supervisor among the %d contexts of the kubeconfig: create a federation with 'antreaplus federation create --federation-id ID --supervisor CONTEXT', or pass the right --kubeconfig (and, if given, a --context that names a supervisor)%s",
			len(probes), hint)
	default:
		return "", fmt.Errorf("the kubeconfig reaches supervisors of several federations (%s): choose one with --federation-id", strings.Join(found, ", "))
	}
}

// readAllRegistries reads the registry of each supervisor; those that fail are left out.
func readAllRegistries(ctx context.Context, supervisors []Cluster, timeout time.Duration) [][]federationv1alpha1.MemberCluster {
	out := make([][]federationv1alpha1.MemberCluster, len(supervisors))
	var wg sync.WaitGroup
	for i, s := range supervisors {
		wg.Go(func() {
			if cl, err := s.clientWithTimeout(timeout); err == nil {
				out[i], _ = listRegistry(ctx, s, cl)
			}
		})
	}
	wg.Wait()
	return out
}

// missingSupervisors are the supervisors the registries name that no
// answering supervisor context of the federation points at.
func missingSupervisors(probes []probe, fed string, registries [][]federationv1alpha1.MemberCluster) []MissingSupervisor {
	seen := map[string]bool{}
	var out []MissingSupervisor
	for _, reg := range registries {
		for _, e := range reg {
			if !e.Spec.Supervisor || seen[e.Spec.ClusterID] {
				continue
			}
			seen[e.Spec.ClusterID] = true
			if reason, ctx := supervisorReachability(probes, fed, e); reason != "" {
				out = append(out, MissingSupervisor{ClusterID: e.Spec.ClusterID, Server: e.Spec.Server, Context: ctx, Reason: reason})
			}
		}
	}
	return out
}

// supervisorReachability is "" when a context reaches the supervisor e,
// else why not and what to do, and the context that did not answer.
func supervisorReachability(probes []probe, fed string, e federationv1alpha1.MemberCluster) (string, string) {
	for _, p := range probes {
		if !sameServer(p.cluster.Config.Host, e.Spec.Server) {
			continue
		}
		switch m := p.membership; {
		case p.err != nil:
			return fmt.Sprintf("its context %s did not answer (%v): bring it back, or remove it with 'antreaplus federation leave --context %s --force'", p.cluster.Name, p.err, p.cluster.Name), p.cluster.Name
		case m == nil || m.Spec.FederationID != fed || !m.Spec.Supervisor:
			return fmt.Sprintf("its context %s does not show it as a supervisor of %s: remove the stale entry with 'kubectl -n %s delete membercluster %s' in every supervisor", p.cluster.Name, fed, federationv1alpha1.SystemNamespace, e.Spec.ClusterID), ""
		default:
			return "", ""
		}
	}
	return "no context of the kubeconfig points at that server: add one for it (kubectl config set-cluster/set-context), or pass a kubeconfig that has it with --kubeconfig", ""
}
