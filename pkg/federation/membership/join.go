package membership

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// DefaultTokenTimeout bounds the wait for the token controller to fill the
// federation account's token. It is filled within a second on a cluster
// whose controller manager runs; the bound is generous because a controller
// manager that has just started, on a busy machine, was seen to take over 30 s.
const DefaultTokenTimeout = 2 * time.Minute

// JoinOptions tune Join.
type JoinOptions struct {
	// FederationID is the federation to join; empty means the one the
	// supervisors belong to.
	FederationID string
	// Labels are the member's labels in every registry, for selection.
	Labels map[string]string
	// Supervisor makes the member a supervisor (Create sets it).
	Supervisor bool
	// TokenTimeout bounds the wait for the account's token; DefaultTokenTimeout when zero.
	TokenTimeout time.Duration
}

// Join makes member a member of the supervisors' federation with clusterID
// (empty: the ID it already has there, else its context name made a DNS
// label) and returns that ID. It refuses, before changing anything, a
// cluster of another federation and an ID the registry gives to another API
// server. Joining again with the same ID is idempotent and renews the
// credentials in every registry.
func Join(ctx context.Context, progress io.Writer, member Cluster, clusterID string, supervisors []Cluster, opts JoinOptions) (string, error) {
	return join(ctx, newReporter(progress), member, clusterID, supervisors, opts, false)
}

// supervisorConn is a supervisor with its client and registry as read before joining.
type supervisorConn struct {
	Cluster
	client     client.Client
	membership *federationv1alpha1.ClusterMembership
	registry   []federationv1alpha1.MemberCluster
	// installCRDs: the supervisor does not serve the federation API yet (Create only).
	installCRDs bool
}

// joinPlan is everything Join read and checked before writing anything.
type joinPlan struct {
	member       Cluster
	memberClient client.Client
	existing     *federationv1alpha1.ClusterMembership
	installCRDs  bool
	reg          registration
	supervisors  []supervisorConn
	tokenTimeout time.Duration
}

func join(ctx context.Context, r reporter, member Cluster, clusterID string, supervisors []Cluster, opts JoinOptions, bootstrap bool) (string, error) {
	p, err := planJoin(ctx, r, member, clusterID, supervisors, opts, bootstrap)
	if err != nil {
		return "", err
	}
	if err := p.setUpMember(ctx, r); err != nil {
		return "", err
	}
	if err := p.register(ctx, r); err != nil {
		return "", err
	}
	r.step(member.Name, "member %s of federation %s, registered in %d supervisor(s)", p.reg.ClusterID, p.reg.FederationID, len(p.supervisors))
	return p.reg.ClusterID, nil
}

// planJoin reads the member and every supervisor and refuses a join that
// cannot succeed, before anything is written.
func planJoin(ctx context.Context, r reporter, member Cluster, clusterID string, supervisors []Cluster, opts JoinOptions, bootstrap bool) (*joinPlan, error) {
	if len(supervisors) == 0 {
		return nil, errors.New("no supervisor given: create a federation first with 'antreaplus federation create --federation-id ID --supervisor CONTEXT'")
	}
	if err := validateMemberLabels(opts.Labels); err != nil {
		return nil, err
	}
	p := &joinPlan{member: member, tokenTimeout: opts.TokenTimeout}
	if p.tokenTimeout <= 0 {
		p.tokenTimeout = DefaultTokenTimeout
	}
	if err := p.readMember(ctx, r); err != nil {
		return nil, err
	}
	if err := p.readSupervisors(ctx, supervisors, bootstrap); err != nil {
		return nil, err
	}
	fed, err := federationOf(opts.FederationID, p.supervisors)
	if err != nil {
		return nil, err
	}
	id, err := resolveClusterID(member.Name, clusterID, fed, p.existing)
	if err != nil {
		return nil, err
	}
	p.reg.identity = identity{FederationID: fed, ClusterID: id, Supervisor: opts.Supervisor}
	if p.existing != nil && p.existing.Spec.FederationID == fed && p.existing.Spec.Supervisor {
		p.reg.Supervisor = true // joining again does not demote a supervisor
	}
	p.reg.Labels = opts.Labels
	return p, p.check(bootstrap)
}

func (p *joinPlan) readMember(ctx context.Context, r reporter) error {
	var err error
	if p.reg.Server, err = p.member.Server(); err != nil {
		return err
	}
	if p.reg.CA, err = p.member.CA(); err != nil {
		return err
	}
	r.step(p.member.Name, "reading its identity at %s ...", p.reg.Server)
	if p.memberClient, err = p.member.Client(); err != nil {
		return err
	}
	p.existing, err = readMembership(ctx, p.member, p.memberClient)
	if errors.Is(err, errNoCRDs) {
		p.installCRDs = true
		return nil
	}
	return err
}

func (p *joinPlan) readSupervisors(ctx context.Context, supervisors []Cluster, bootstrap bool) error {
	for _, s := range supervisors {
		cl, err := s.Client()
		if err != nil {
			return err
		}
		m, err := readMembership(ctx, s, cl)
		if errors.Is(err, errNoCRDs) && !bootstrap {
			return fmt.Errorf("%s is not a supervisor: it does not serve the federation API: make it one with 'antreaplus federation create --supervisor %s'", s.Name, s.Name)
		}
		if err != nil && !errors.Is(err, errNoCRDs) {
			return fmt.Errorf("%w: check that the supervisor is up, or leave it out", err)
		}
		sc := supervisorConn{Cluster: s, client: cl, membership: m, installCRDs: errors.Is(err, errNoCRDs)}
		if !sc.installCRDs {
			if sc.registry, err = listRegistry(ctx, s, cl); err != nil {
				return err
			}
		}
		p.supervisors = append(p.supervisors, sc)
	}
	return nil
}

// check applies the pure conflict rules to what was read.
func (p *joinPlan) check(bootstrap bool) error {
	if err := checkMembership(p.member.Name, p.existing, p.reg.identity); err != nil {
		return err
	}
	for _, s := range p.supervisors {
		if err := checkSupervisor(s.Name, p.reg.FederationID, s.membership, bootstrap); err != nil {
			return err
		}
		if err := checkRegistry(p.member.Name, s.Name, s.registry, p.reg.ClusterID, p.reg.Server); err != nil {
			return err
		}
	}
	return nil
}

// federationOf is the federation to join: the one asked for, which every
// supervisor that has an identity must belong to, else theirs.
func federationOf(asked string, supervisors []supervisorConn) (string, error) {
	fed := asked
	for _, s := range supervisors {
		if s.membership == nil {
			continue
		}
		switch {
		case fed == "":
			fed = s.membership.Spec.FederationID
		case s.membership.Spec.FederationID != fed:
			return "", fmt.Errorf("%s belongs to federation %s, not %s: pass only supervisors of one federation (--federation-id)", s.Name, s.membership.Spec.FederationID, fed)
		}
	}
	if fed == "" {
		return "", errors.New("none of the supervisors belongs to a federation: create one with 'antreaplus federation create --federation-id ID --supervisor CONTEXT'")
	}
	return fed, ValidateFederationID(fed)
}

// listRegistry lists the MemberClusters of a supervisor's registry.
func listRegistry(ctx context.Context, s Cluster, cl client.Client) ([]federationv1alpha1.MemberCluster, error) {
	list := &federationv1alpha1.MemberClusterList{}
	if err := cl.List(ctx, list, client.InNamespace(federationv1alpha1.SystemNamespace)); err != nil {
		return nil, fmt.Errorf("%s: reading its registry of members: %w", s.Name, err)
	}
	return list.Items, nil
}
