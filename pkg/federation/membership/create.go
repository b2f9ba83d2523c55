package membership

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// CreateOptions tune Create.
type CreateOptions struct {
	// ClusterIDs gives a supervisor (by context name) an explicit cluster
	// ID; the others get their context name made a DNS label.
	ClusterIDs map[string]string
	// Labels are given to every supervisor's registry entry.
	Labels map[string]string
	// TokenTimeout bounds the wait for each account's token; DefaultTokenTimeout when zero.
	TokenTimeout time.Duration
}

// Create makes every given cluster a supervisor of federationID: each joins
// as a member with supervisor=true, registered in the registry of all of
// them. Supervisors that already belong to the federation keep their
// identity, so Create also adds supervisors to an existing federation (pass
// the existing supervisors too): the registries of the new ones are filled
// with every member the others know. Create refuses, before changing
// anything, a cluster that belongs to another federation.
func Create(ctx context.Context, progress io.Writer, federationID string, supervisors []Cluster, opts CreateOptions) error {
	r := newReporter(progress)
	if err := ValidateFederationID(federationID); err != nil {
		return err
	}
	if len(supervisors) == 0 {
		return errors.New("no supervisor given: name at least one kubeconfig context with --supervisor")
	}
	if err := checkCreate(ctx, federationID, supervisors); err != nil {
		return err
	}
	for _, s := range supervisors {
		jo := JoinOptions{FederationID: federationID, Labels: opts.Labels, Supervisor: true, TokenTimeout: opts.TokenTimeout}
		if _, err := join(ctx, r, s, opts.ClusterIDs[s.Name], supervisors, jo, true); err != nil {
			return err
		}
	}
	return syncRegistries(ctx, r, supervisors)
}

// checkCreate refuses supervisors that belong to another federation.
func checkCreate(ctx context.Context, federationID string, supervisors []Cluster) error {
	seen := map[string]bool{}
	for _, s := range supervisors {
		if seen[s.Name] {
			return fmt.Errorf("%s is named twice as a supervisor", s.Name)
		}
		seen[s.Name] = true
		cl, err := s.Client()
		if err != nil {
			return err
		}
		m, err := readMembership(ctx, s, cl)
		if errors.Is(err, errNoCRDs) {
			continue
		}
		if err != nil {
			return err
		}
		if m != nil && m.Spec.FederationID != federationID {
			return fmt.Errorf("%s already belongs to federation %s: run 'antreaplus federation leave --context %s' first", s.Name, m.Spec.FederationID, s.Name)
		}
	}
	return nil
}
