package chart

// chartCase is one combination of roles and values.
type chartCase struct {
	name   string
	values map[string]any
	// deployments are the components the case runs.
	deployments []string
}

// serviceIP is in member-1's Service range (10.201.0.0/16, sandbox.Plan),
// so that the API server accepts it as a fixed ClusterIP.
const serviceIP = "10.201.0.53"

var memberDeployments = []string{"member-controller", "policy-controller", "coredns"}

func with(base []string, more ...string) []string {
	return append(append([]string(nil), base...), more...)
}

var cases = []chartCase{
	{name: "member", values: map[string]any{}, deployments: memberDeployments},
	{name: "member+supervisor", values: map[string]any{"supervisor": map[string]any{"enabled": true}},
		deployments: with(memberDeployments, "federation-manager")},
	{name: "member+cloud", values: map[string]any{"cloud": map[string]any{"enabled": true}},
		deployments: with(memberDeployments, "cloud-controller")},
	{name: "member+cloud agentless, VM networks, own TLS, no Pods", values: map[string]any{
		"cloud": map[string]any{"enabled": true, "agentless": true},
		"policyController": map[string]any{
			"tls":          map[string]any{"secretName": "policy-distribution-tls"},
			"allowedCIDRs": []string{"10.0.0.0/16", "fd00:10::/64"},
			"dnsServer":    "10.96.0.53:53",
			"watchPods":    false,
			"service":      map[string]any{"type": "LoadBalancer", "port": 443, "annotations": map[string]string{"example.com/internal": "true"}},
		},
		"cloudController": map[string]any{"allowCrossNamespaceSecrets": true},
	}, deployments: with(memberDeployments, "cloud-controller")},
	{name: "every role, two replicas, dns corefile", values: map[string]any{
		"supervisor":       map[string]any{"enabled": true},
		"cloud":            map[string]any{"enabled": true},
		"dns":              map[string]any{"mode": "corefile", "federationID": "prod"},
		"logVerbosity":     2,
		"memberController": map[string]any{"replicas": 2, "nodeSelector": map[string]string{"kubernetes.io/os": "linux"}},
		"policyController": map[string]any{"replicas": 2, "tolerations": []map[string]string{{"key": "dedicated", "operator": "Exists"}}},
		"cloudController":  map[string]any{"replicas": 2, "extraArgs": []string{"--poll-timeout=2m"}},
		"federationManager": map[string]any{"extraArgs": []string{"--unreachable-grace=30s"},
			"affinity": map[string]any{"podAntiAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []map[string]any{{
				"weight": 1, "podAffinityTerm": map[string]any{"topologyKey": "kubernetes.io/hostname",
					"labelSelector": map[string]any{"matchLabels": map[string]string{"app.kubernetes.io/component": "federation-manager"}}},
			}}}}},
		"networkPolicy": map[string]any{"metricsFrom": []map[string]any{{"namespaceSelector": map[string]any{
			"matchLabels": map[string]string{"kubernetes.io/metadata.name": "monitoring"}}}}},
		"imagePullSecrets": []map[string]string{{"name": "registry"}},
	}, deployments: []string{"member-controller", "policy-controller", "federation-manager", "cloud-controller"}},
	{name: "dns deployment at a fixed IP, federation ID", values: map[string]any{
		"dns":     map[string]any{"federationID": "prod"},
		"coredns": map[string]any{"replicas": 1, "service": map[string]any{"clusterIP": serviceIP}},
	}, deployments: memberDeployments},
	{name: "dns none, no NetworkPolicies", values: map[string]any{
		"dns":           map[string]any{"mode": "none"},
		"networkPolicy": map[string]any{"enabled": false},
	}, deployments: []string{"member-controller", "policy-controller"}},
}

// refusal is values the chart refuses to render, with the reason it gives.
type refusal struct {
	name, namespace string
	values          map[string]any
	want            string
}

var refusals = []refusal{
	{name: "another namespace", namespace: "default", values: map[string]any{}, want: "must be antreaplus-system"},
	{name: "unknown dns mode", values: map[string]any{"dns": map[string]any{"mode": "stub"}}, want: `dns.mode "stub"`},
	{name: "supervisor without member", values: map[string]any{"member": map[string]any{"enabled": false}, "supervisor": map[string]any{"enabled": true}},
		want: "need member.enabled"},
	{name: "two federation managers", values: map[string]any{"supervisor": map[string]any{"enabled": true}, "federationManager": map[string]any{"replicas": 2}},
		want: "federationManager.replicas must be 1"},
	{name: "agentless without the policy controller's CA", values: map[string]any{"cloud": map[string]any{"enabled": true, "agentless": true}},
		want: "cloud.agentless needs policyController.tls.secretName"},
}
