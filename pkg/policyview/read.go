package policyview

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/federation/membership"
)

// DefaultTimeout bounds the reading of one member.
const DefaultTimeout = 5 * time.Second

// membershipKind names the identity read, in a snapshot's KindErrors.
const membershipKind = "ClusterMembership"

// ReadOptions say what Read reads.
type ReadOptions struct {
	// Namespace restricts the namespaced policies to one Namespace; empty
	// reads every Namespace. ClusterNetworkPolicies are always read.
	Namespace string
	// Timeout bounds the reading of each member (DefaultTimeout when 0).
	Timeout time.Duration
	// Stats reads the PolicyStats too.
	Stats bool
}

// Read reads the identity and the policies of every cluster concurrently,
// each within the timeout, and returns a snapshot per cluster in the order
// given. A cluster that cannot be read is a snapshot with Err set.
func Read(ctx context.Context, clusters []membership.Cluster, opts ReadOptions) []Snapshot {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	out := make([]Snapshot, len(clusters))
	s, err := scheme.New()
	if err != nil {
		for i, c := range clusters {
			out[i] = Snapshot{Context: c.Name, Err: err}
		}
		return out
	}
	var wg sync.WaitGroup
	for i, c := range clusters {
		wg.Go(func() { out[i] = readMember(ctx, c, s, opts) })
	}
	wg.Wait()
	return out
}

// readMember reads one member within opts.Timeout. It is unreadable when
// no read succeeded and none found its CRDs missing.
func readMember(ctx context.Context, c membership.Cluster, s *runtime.Scheme, opts ReadOptions) Snapshot {
	snap := Snapshot{Context: c.Name, KindErrors: map[string]error{}}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	cl, err := newClient(c, s, opts.Timeout)
	if err != nil {
		snap.Err = err
		return snap
	}
	r := &memberReader{ctx: ctx, timeout: opts.Timeout, snap: &snap}
	var cause error // why the identity could not be read
	r.read(membershipKind, func() error {
		snap.Membership, cause = readMembership(ctx, cl)
		if cause != nil && !meta.IsNoMatchError(cause) {
			return fmt.Errorf("reading its ClusterMembership: %w", cause)
		}
		return cause
	})
	ns := client.InNamespace(opts.Namespace)
	fnps := &policyv1alpha1.FederatedNetworkPolicyList{}
	r.read(KindFederated, func() error { return list(ctx, cl, KindFederated, fnps, ns) })
	nps := &antreav1beta1.NetworkPolicyList{}
	r.read(KindNetworkPolicy, func() error { return list(ctx, cl, KindNetworkPolicy, nps, ns) })
	cnps := &antreav1beta1.ClusterNetworkPolicyList{}
	r.read(KindClusterNetworkPolicy, func() error { return list(ctx, cl, KindClusterNetworkPolicy, cnps) })
	snap.Federated, snap.NetworkPolicies, snap.ClusterNetworkPolicies = fnps.Items, nps.Items, cnps.Items
	if opts.Stats {
		// Every Namespace: a ClusterNetworkPolicy's stats are in the policy
		// controller's.
		stats := &policyv1alpha1.PolicyStatsList{}
		r.read(KindStats, func() error { return list(ctx, cl, KindStats, stats) })
		snap.Stats = stats.Items
	}
	if !r.answered {
		// Nothing answered: the first read's error says why.
		snap.Err = fmt.Errorf("reading %s: %w", c.Config.Host, cmp.Or(cause, r.first))
		snap.KindErrors = nil
	}
	return snap
}

// memberReader runs the reads of one member and notes their outcome.
type memberReader struct {
	ctx      context.Context
	timeout  time.Duration
	snap     *Snapshot
	answered bool  // a read succeeded, or found its CRD missing
	first    error // the first read's error
}

// read runs one read, unless the member is out of time: discovery does not
// heed the context, so every read of a silent member would wait in full.
func (r *memberReader) read(kind string, f func() error) {
	var err error
	if r.ctx.Err() != nil {
		err = fmt.Errorf("no answer within %s", r.timeout)
	} else {
		err = f()
	}
	switch {
	case err == nil:
		r.answered = true
	case meta.IsNoMatchError(err):
		r.answered = true
		if kind != membershipKind {
			r.snap.NotInstalled = append(r.snap.NotInstalled, kind)
		}
	default:
		r.snap.KindErrors[kind] = err
		if r.first == nil {
			r.first = err
		}
	}
}

func newClient(c membership.Cluster, s *runtime.Scheme, timeout time.Duration) (client.Client, error) {
	if c.Config == nil {
		return nil, fmt.Errorf("%s has no client configuration", c.Name)
	}
	cfg := rest.CopyConfig(c.Config)
	if cfg.Timeout == 0 || cfg.Timeout > timeout {
		cfg.Timeout = timeout
	}
	cl, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return nil, fmt.Errorf("client of %s: %w", c.Name, err)
	}
	return cl, nil
}

// readMembership returns the member's identity, nil when it has none, and a
// NoMatch error when it does not serve the federation API.
func readMembership(ctx context.Context, cl client.Client) (*federationv1alpha1.ClusterMembership, error) {
	m := &federationv1alpha1.ClusterMembership{}
	err := cl.Get(ctx, client.ObjectKey{Name: federationv1alpha1.MembershipName}, m)
	switch {
	case err == nil:
		return m, nil
	case apierrors.IsNotFound(err):
		return nil, nil
	default:
		return nil, err
	}
}

func list(ctx context.Context, cl client.Client, kind string, l client.ObjectList, opts ...client.ListOption) error {
	err := cl.List(ctx, l, opts...)
	if err == nil || meta.IsNoMatchError(err) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("listing %s: no answer in time: %w", Plural(kind), err)
	}
	return fmt.Errorf("listing %s: %w", Plural(kind), err)
}
