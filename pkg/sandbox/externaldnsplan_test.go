package sandbox

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestPlanExternalDNS(t *testing.T) {
	e := PlanExternalDNS(16443, "member-1")
	want := `cluster: member-1
domain: ext.antreaplus.test
etcdPeerPort: 16762
etcdPort: 16761
metricsPort: 16763
recordTTL: 30
server:
  addr: 127.0.54.1
  metricsPort: 16760
  port: 16758
  readyPort: 16759
`
	raw, err := yaml.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != want {
		t.Errorf("PlanExternalDNS(16443):\n%s\nwant:\n%s", raw, want)
	}
	// Every port of the stack is one of the sandbox's, above the others
	// and inside its span.
	plans, err := Plan(3, 16443)
	if err != nil {
		t.Fatal(err)
	}
	all := Ports(plans)
	for _, p := range e.Ports() {
		if !slices.Contains(all, p) || p >= 16443+PortSpan {
			t.Errorf("port %d is not in the sandbox's ports, or past its span", p)
		}
	}
	cloud := PlanCloud(16443)
	if low := slices.Min(e.Ports()); low <= cloud.Azure || low <= PlanCloudControllers(16443, maxCloudMembers-1).Policy {
		t.Errorf("port %d is not above the cloud's", low)
	}
	if got := e.Dig("web.shop.sandbox.svc.ext.antreaplus.test"); got != "dig @127.0.54.1 -p 16758 +short web.shop.sandbox.svc.ext.antreaplus.test" {
		t.Errorf("Dig: %s", got)
	}
}

// TestExternalDNSCorefile: the server answers the domain alone, on its
// address and ports, from the etcd ExternalDNS writes into, under the
// path its coredns provider writes.
func TestExternalDNSCorefile(t *testing.T) {
	const want = `# Written by 'antreaplus sandbox up --external-dns': the DNS server of the
# federation's names outside the members, published by ExternalDNS into etcd.
ext.antreaplus.test:16758 {
    bind 127.0.54.1
    errors
    ready 127.0.54.1:16759
    prometheus 127.0.54.1:16760
    etcd ext.antreaplus.test {
        path /skydns
        endpoint http://127.0.0.1:16761
    }
}
`
	if got := externalDNSCorefile(PlanExternalDNS(16443, "member-1")); got != want {
		t.Errorf("Corefile:\n%s\nwant:\n%s", got, want)
	}
}

func TestExternalDNSProcessArgs(t *testing.T) {
	e := PlanExternalDNS(16443, "member-1")
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{
			name: "etcd: one member on loopback, no fsync",
			got:  externalDNSEtcdArgs(e, "/sb/external-dns/etcd"),
			want: []string{
				"--name=external-dns",
				"--data-dir=/sb/external-dns/etcd",
				"--listen-client-urls=http://127.0.0.1:16761",
				"--advertise-client-urls=http://127.0.0.1:16761",
				"--listen-peer-urls=http://127.0.0.1:16762",
				"--initial-advertise-peer-urls=http://127.0.0.1:16762",
				"--initial-cluster=external-dns=http://127.0.0.1:16762",
				"--unsafe-no-fsync",
				"--log-level=warn",
			},
		},
		{
			name: "ExternalDNS: the DNSEndpoints of antreaplus-system into etcd, every 5 s and on events",
			got:  externalDNSArgs(e, "/sb/external-dns/kubeconfig", "antreaplus-system"),
			want: []string{
				"--kubeconfig=/sb/external-dns/kubeconfig",
				"--namespace=antreaplus-system",
				"--source=crd",
				"--crd-source-apiversion=externaldns.k8s.io/v1alpha1",
				"--crd-source-kind=DNSEndpoint",
				"--provider=coredns",
				"--registry=txt",
				"--txt-owner-id=sandbox",
				"--domain-filter=ext.antreaplus.test",
				"--policy=sync",
				"--interval=5s",
				"--events",
				"--metrics-address=127.0.0.1:16763",
			},
		},
		{
			name: "ExternalDNS's environment: the etcd the DNS server reads",
			got:  externalDNSEnv(e),
			want: []string{"ETCD_URLS=http://127.0.0.1:16761"},
		},
		{
			name: "the DNS server",
			got:  externalDNSServerArgs("/sb/external-dns/Corefile"),
			want: []string{"-conf", "/sb/external-dns/Corefile"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.got, tt.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(tt.got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

// TestDNSEndpointCRD: the embedded CRD is ExternalDNS's DNSEndpoint, the
// version the leader writes, with the status subresource ExternalDNS
// writes observedGeneration through.
func TestDNSEndpointCRD(t *testing.T) {
	crd, err := DNSEndpointCRD()
	if err != nil {
		t.Fatal(err)
	}
	if crd.Name != "dnsendpoints.externaldns.k8s.io" || crd.Spec.Names.Kind != "DNSEndpoint" || len(crd.Spec.Versions) != 1 {
		t.Fatalf("CRD %s kind %s, %d versions", crd.Name, crd.Spec.Names.Kind, len(crd.Spec.Versions))
	}
	v := crd.Spec.Versions[0]
	if v.Name != "v1alpha1" || !v.Served || !v.Storage || v.Subresources == nil || v.Subresources.Status == nil {
		t.Errorf("version %s served=%v storage=%v subresources=%+v", v.Name, v.Served, v.Storage, v.Subresources)
	}
}
