package membership

import (
	"fmt"
	"net/url"
	"strings"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// resolveClusterID picks a member's cluster ID: the explicit one, else the
// one it already has in this federation (re-joining is idempotent), else its
// context name made a DNS label.
func resolveClusterID(context, explicit, federationID string, existing *federationv1alpha1.ClusterMembership) (string, error) {
	switch {
	case explicit != "":
		return explicit, ValidateClusterID(explicit)
	case existing != nil && existing.Spec.FederationID == federationID:
		return existing.Spec.ClusterID, nil
	default:
		return SanitizeClusterID(context)
	}
}

// checkMembership refuses to join a cluster that already belongs to another
// federation, or to change the ID of a member.
func checkMembership(context string, existing *federationv1alpha1.ClusterMembership, want identity) error {
	if existing == nil {
		return nil
	}
	if existing.Spec.FederationID != want.FederationID {
		return fmt.Errorf("%s already belongs to federation %s: run 'antreaplus federation leave --context %s' first",
			context, existing.Spec.FederationID, context)
	}
	if existing.Spec.ClusterID != want.ClusterID {
		return fmt.Errorf("%s is already member %s of federation %s and a member's ID cannot change: run 'antreaplus federation leave --context %s' first, then join it again with --cluster-id %s",
			context, existing.Spec.ClusterID, want.FederationID, context, want.ClusterID)
	}
	return nil
}

// checkSupervisor refuses a cluster that is not a supervisor of the
// federation. While a federation is being created (bootstrap) its
// supervisors may not have their identity yet.
func checkSupervisor(context, federationID string, existing *federationv1alpha1.ClusterMembership, bootstrap bool) error {
	create := fmt.Sprintf("'antreaplus federation create --federation-id %s --supervisor %s'", federationID, context)
	switch {
	case existing == nil && bootstrap:
		return nil
	case existing == nil:
		return fmt.Errorf("%s is not a supervisor of any federation: make it one with %s", context, create)
	case existing.Spec.FederationID != federationID:
		return fmt.Errorf("%s belongs to federation %s, not %s: choose the federation with --federation-id", context, existing.Spec.FederationID, federationID)
	case !existing.Spec.Supervisor && !bootstrap:
		return fmt.Errorf("%s is a member of federation %s but not a supervisor: make it one with %s", context, federationID, create)
	}
	return nil
}

// checkRegistry refuses a cluster ID that a supervisor's registry already
// gives to another API server, and an API server registered under another ID.
func checkRegistry(context, supervisor string, entries []federationv1alpha1.MemberCluster, clusterID, server string) error {
	for _, e := range entries {
		sameID := e.Spec.ClusterID == clusterID
		sameServer := sameServer(e.Spec.Server, server)
		switch {
		case sameID && !sameServer:
			return fmt.Errorf("cluster ID %s is already used by the member at %s: pick another --cluster-id", clusterID, e.Spec.Server)
		case !sameID && sameServer:
			return fmt.Errorf("the API server %s is already registered as member %s in the registry of %s: run 'antreaplus federation leave --context %s' first, or join with --cluster-id %s",
				server, e.Spec.ClusterID, supervisor, context, e.Spec.ClusterID)
		}
	}
	return nil
}

// sameServer compares API server URLs, ignoring case and a trailing slash.
func sameServer(a, b string) bool {
	return normalizeServer(a) == normalizeServer(b)
}

func normalizeServer(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), "/")
	if s != "" && !strings.Contains(s, "://") {
		s = "https://" + s // rest.Config's default scheme
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return strings.ToLower(s)
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if u.Port() == "" && u.Scheme == "https" {
		u.Host += ":443"
	}
	return u.String()
}
