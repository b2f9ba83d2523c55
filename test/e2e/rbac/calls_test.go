package rbac

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
)

// Real requests each account makes, as itself: those the API server must
// refuse (403), and a few it must allow, so that the test fails both when
// the chart grants too much and when the refusals come from a broken
// client rather than from RBAC. Writes are dry runs: a wrong answer
// changes nothing.

// escalations are refused to every account: each is a way to more rights
// than its own, or to the cluster's nodes and workloads.
var escalations = []call{
	bindClusterAdmin(""),
	bindClusterAdmin(federationv1alpha1.SystemNamespace),
	impersonate("system:admin"),
	tokenOf("kube-system", "default"),
	create(federationv1alpha1.SystemNamespace, pod()),
	create(userNamespace, pod()),
	remove("namespaces", "", userNamespace),
	nodeProxy(),
	create("", object("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", "rbac-probe")),
	create("", object("apiextensions.k8s.io/v1", "CustomResourceDefinition", "probes.rbac.antreaplus.io")),
}

// readSecrets are refused to the accounts that read no Secret: in the
// system namespace, a user's, and the release's own (the federation
// account's token among them).
var readSecrets = []call{
	list("secrets", "kube-system"),
	list("secrets", userNamespace),
	list("secrets", federationv1alpha1.SystemNamespace),
	get("secrets", federationv1alpha1.SystemNamespace, federationv1alpha1.FederationTokenSecret),
}

// probes are an account's calls besides the escalations.
type probes struct {
	refused, allowed []call
}

var callsOf = map[string]probes{
	"antreaplus-member-controller": {
		refused: append([]call{
			create(userNamespace, serviceImport()),
			remove("serviceexports.multicluster.x-k8s.io", userNamespace, "probe"),
			update(userNamespace, object("federation.antreaplus.io/v1alpha1", "EntityExport", "probe")),
			create(userNamespace, object("federation.antreaplus.io/v1alpha1", "RemoteEntity", "probe")),
			update("", membership()),
			update(userNamespace, object("v1", "Service", "probe")),
			create(userNamespace, object("crd.antrea.io/v1alpha2", "ExternalEntity", "probe")),
			create(userNamespace, lease("antreaplus-member-controller")),
			update(federationv1alpha1.SystemNamespace, lease("antreaplus-policy-controller")),
		}, readSecrets...),
		allowed: []call{
			list("serviceexports.multicluster.x-k8s.io", ""),
			list("federatednetworkpolicies.policy.antreaplus.io", ""),
			list("networkpolicies.crd.antrea.io", userNamespace),
			get("clustermemberships.federation.antreaplus.io", "", membershipName),
			create(federationv1alpha1.SystemNamespace, lease("antreaplus-member-controller")),
		},
	},
	"antreaplus-policy-controller": {
		refused: []call{
			update(userNamespace, secret("vm-agent-token-probe")),
			remove("pods", userNamespace, "probe"),
			create(userNamespace, object("crd.antrea.io/v1alpha2", "ExternalEntity", "probe")),
			update(userNamespace, object("cloud.antreaplus.io/v1alpha1", "VirtualMachine", "probe")),
			update(userNamespace, object("crd.antrea.io/v1beta1", "NetworkPolicy", "probe")),
			create("", object("crd.antrea.io/v1beta1", "Tier", "probe")),
			create(userNamespace, lease("antreaplus-policy-controller")),
			update(federationv1alpha1.SystemNamespace, lease("antreaplus-member-controller")),
		},
		allowed: []call{
			list("pods", ""),
			list("tiers.crd.antrea.io", ""),
			list("virtualmachines.cloud.antreaplus.io", ""),
			create(userNamespace, secret("vm-agent-token-probe")),
			create(federationv1alpha1.SystemNamespace, lease("antreaplus-policy-controller")),
		},
	},
	"antreaplus-cloud-controller": {
		refused: []call{
			create(userNamespace, secret("probe")),
			update(userNamespace, secret("probe")),
			create(userNamespace, object("cloud.antreaplus.io/v1alpha1", "CloudProviderAccount", "probe")),
			remove("cloudprovideraccounts.cloud.antreaplus.io", userNamespace, "probe"),
			create(userNamespace, object("crd.antrea.io/v1beta1", "NetworkPolicy", "probe")),
			create(userNamespace, lease("antreaplus-cloud-controller")),
			create("kube-system", lease("tenant-probe")),
		},
		allowed: []call{
			list("secrets", userNamespace),
			create(federationv1alpha1.SystemNamespace, lease("tenant-probe")),
			list("virtualmachines.cloud.antreaplus.io", ""),
			list("externalentities.crd.antrea.io", ""),
			create(federationv1alpha1.SystemNamespace, lease("antreaplus-cloud-controller")),
		},
	},
	"antreaplus-federation-manager": {
		refused: []call{
			list("secrets", "kube-system"),
			list("secrets", userNamespace),
			create(federationv1alpha1.SystemNamespace, secret("member-probe")),
			list("memberclusters.federation.antreaplus.io", userNamespace),
			create(federationv1alpha1.SystemNamespace, object("federation.antreaplus.io/v1alpha1", "MemberCluster", "probe")),
			update(federationv1alpha1.SystemNamespace, object("federation.antreaplus.io/v1alpha1", "MemberCluster", "probe")),
			list("clustermemberships.federation.antreaplus.io", ""),
			update("", membership()),
			create(userNamespace, lease("antreaplus-federation-manager")),
		},
		allowed: []call{
			list("secrets", federationv1alpha1.SystemNamespace),
			list("memberclusters.federation.antreaplus.io", federationv1alpha1.SystemNamespace),
			get("clustermemberships.federation.antreaplus.io", "", membershipName),
			create(federationv1alpha1.SystemNamespace, lease("antreaplus-federation-manager")),
		},
	},
	"antreaplus-coredns": {
		refused: append([]call{
			get("services", "default", "kubernetes"),
			update(userNamespace, object("v1", "Service", "probe")),
			create(userNamespace, serviceImport()),
			list("clustermemberships.federation.antreaplus.io", ""),
			create(federationv1alpha1.SystemNamespace, lease("antreaplus-coredns")),
		}, readSecrets...),
		allowed: []call{
			list("serviceimports.multicluster.x-k8s.io", ""),
			list("endpointslices.discovery.k8s.io", ""),
			list("nodes", ""),
			listNamed("clustermemberships.federation.antreaplus.io", membershipName),
		},
	},
	// The console only reads, and asks who a viewer is and what they may list.
	"antreaplus-console": {
		refused: append([]call{
			update(userNamespace, object("v1", "Service", "probe")),
			create(userNamespace, serviceImport()),
			update("", membership()),
			create(userNamespace, object("policy.antreaplus.io/v1alpha1", "FederatedNetworkPolicy", "probe")),
			create(userNamespace, object("policy.antreaplus.io/v1alpha1", "Trace", "probe")),
			update(federationv1alpha1.SystemNamespace, lease("antreaplus-federation-leader")),
			list("leases.coordination.k8s.io", userNamespace),
			list("pods", ""),
		}, readSecrets...),
		allowed: []call{
			list("serviceexports.multicluster.x-k8s.io", ""),
			list("networkpolicies.crd.antrea.io", ""),
			list("virtualmachines.cloud.antreaplus.io", ""),
			list("leases.coordination.k8s.io", federationv1alpha1.SystemNamespace),
			list("memberclusters.federation.antreaplus.io", federationv1alpha1.SystemNamespace),
		},
	},
	"antreaplus-federation": {
		refused: append([]call{
			remove("serviceexports.multicluster.x-k8s.io", userNamespace, "probe"),
			create(userNamespace, object("federation.antreaplus.io/v1alpha1", "EntityExport", "probe")),
			create(userNamespace, object("crd.antrea.io/v1alpha2", "ExternalEntity", "probe")),
			update("", membership()),
			create(userNamespace, lease(federationv1alpha1.LeaderLease)),
			update(federationv1alpha1.SystemNamespace, lease("antreaplus-member-controller")),
			update(federationv1alpha1.SystemNamespace, lease("tenant-probe")),
			list("leases.coordination.k8s.io", userNamespace),
			list("configmaps", federationv1alpha1.SystemNamespace),
			update(federationv1alpha1.SystemNamespace, object("v1", "ConfigMap", "antreaplus-cloud-controller")),
			create(userNamespace, object("v1", "ConfigMap", tenancyv1alpha1.OverlapsConfigMap)),
			list("memberclusters.federation.antreaplus.io", userNamespace),
		}, readSecrets...),
		allowed: []call{
			list("serviceexports.multicluster.x-k8s.io", ""),
			list("remoteentities.federation.antreaplus.io", ""),
			create(userNamespace, object("v1", "Service", "probe", "spec", map[string]any{
				"ports": []any{map[string]any{"port": int64(80)}}})),
			create(federationv1alpha1.SystemNamespace, lease(federationv1alpha1.LeaderLease)),
			list("leases.coordination.k8s.io", federationv1alpha1.SystemNamespace),
			create(federationv1alpha1.SystemNamespace, object("v1", "ConfigMap", tenancyv1alpha1.OverlapsConfigMap)),
			list("memberclusters.federation.antreaplus.io", federationv1alpha1.SystemNamespace),
		},
	},
}

func pod() *unstructured.Unstructured {
	return object("v1", "Pod", "rbac-probe", "spec", map[string]any{
		"containers": []any{map[string]any{"name": "probe", "image": "registry.k8s.io/pause:3.10"}}})
}

func lease(name string) *unstructured.Unstructured {
	return object("coordination.k8s.io/v1", "Lease", name)
}

func secret(name string) *unstructured.Unstructured { return object("v1", "Secret", name) }

func serviceImport() *unstructured.Unstructured {
	return object("multicluster.x-k8s.io/v1beta1", "ServiceImport", "probe")
}

// TestRefused: every account is refused, by RBAC, the escalations and
// its own probes' refused calls.
func TestRefused(t *testing.T) {
	installChart(t)
	mapper := newMapper(t)
	for _, a := range accounts {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			c := newCaller(t, a.name, mapper)
			for _, cl := range append(append([]call(nil), escalations...), callsOf[a.name].refused...) {
				if err := cl.do(t.Context(), c); !refusedByRBAC(err) {
					t.Errorf("%s: got %v, want refused by RBAC (403, cannot ...)", cl.what, err)
				}
			}
		})
	}
}

// TestAllowed: every account may make its probes' allowed calls.
func TestAllowed(t *testing.T) {
	installChart(t)
	mapper := newMapper(t)
	for _, a := range accounts {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			c := newCaller(t, a.name, mapper)
			for _, cl := range callsOf[a.name].allowed {
				if err := cl.do(t.Context(), c); err != nil {
					t.Errorf("%s: %v", cl.what, err)
				}
			}
		})
	}
}
