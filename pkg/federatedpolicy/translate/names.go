package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// Names of derived objects.
const (
	// PolicyPrefix starts the name of every derived NetworkPolicy.
	PolicyPrefix = "fnp-"
)

// maxNameLength is the longest name of a NetworkPolicy or Group.
const maxNameLength = 253

// PolicyName is the name of the Antrea NetworkPolicy derived from the
// federated policy name: fnp-<name>, shortened with a hash beyond 253
// characters.
func PolicyName(name string) string {
	return shorten(PolicyPrefix + name)
}

// entitiesGroupName is the Group of the remote entities of peer j of rule
// i of a direction; chunk > 0 numbers the further Groups of a source split
// at maxIPBlocks.
func entitiesGroupName(policy, dir string, i, j, chunk int) string {
	return chunked(fmt.Sprintf("%s%s-%s-%d-peer-%d", PolicyPrefix, policy, dir, i, j), chunk)
}

// serviceGroupName is the Group of the addresses that offer one port set
// (portsKey) of the federated Service of toServices entry j of egress rule i.
func serviceGroupName(policy string, i, j int, portsKey string, chunk int) string {
	return chunked(fmt.Sprintf("%s%s-egress-%d-svc-%d-%s", PolicyPrefix, policy, i, j, portsKey), chunk)
}

func chunked(name string, chunk int) string {
	if chunk > 0 {
		name = fmt.Sprintf("%s-%d", name, chunk+1)
	}
	return shorten(name)
}

// shorten keeps a name within maxNameLength, replacing its end with a hash
// of the whole name. The result stays a DNS subdomain.
func shorten(name string) string {
	if len(name) <= maxNameLength {
		return name
	}
	head := strings.TrimRight(name[:maxNameLength-9], "-.")
	return head + "-" + shortHash(name)
}

// PolicyLabelValue is the FederatedPolicyLabel value of the derived objects
// of the federated policy name: the name, shortened with a hash beyond the
// 63 characters of a label value.
func PolicyLabelValue(name string) string {
	if len(name) <= 63 {
		return name
	}
	return strings.TrimRight(name[:54], "-.") + "-" + shortHash(name)
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])[:8]
}

// derivedMeta is the metadata of a derived object of policy p.
func derivedMeta(p *policyv1alpha1.FederatedNetworkPolicy, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:      name,
		Namespace: p.Namespace,
		Labels:    map[string]string{federationv1alpha1.LabelManagedBy: policyv1alpha1.ManagedByMemberController, policyv1alpha1.LabelFederatedPolicy: PolicyLabelValue(p.Name)},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion:         policyv1alpha1.GroupVersion.String(),
			Kind:               "FederatedNetworkPolicy",
			Name:               p.Name,
			UID:                p.UID,
			Controller:         ptr.To(true),
			BlockOwnerDeletion: ptr.To(true),
		}},
	}
}
