package fedplugin

import (
	"testing"

	"github.com/miekg/dns"
)

func TestParseFederation(t *testing.T) {
	const suffix = "fed.svc.cluster.local."
	tests := []struct {
		qname string
		want  name
		ok    bool
	}{
		{"web.demo.fed.svc.cluster.local.", name{service: "web", namespace: "demo"}, true},
		{"web.demo.member-1.fed.svc.cluster.local.", name{service: "web", namespace: "demo", cluster: "member-1"}, true},
		{"web.demo.us.east.fed.svc.cluster.local.", name{service: "web", namespace: "demo", cluster: "us.east"}, true},
		{"_http._tcp.web.demo.fed.svc.cluster.local.", name{port: "http", proto: "tcp", service: "web", namespace: "demo"}, true},
		{"_http._tcp.web.demo.member-1.fed.svc.cluster.local.", name{port: "http", proto: "tcp", service: "web", namespace: "demo", cluster: "member-1"}, true},
		{"demo.fed.svc.cluster.local.", name{}, false},
		{"fed.svc.cluster.local.", name{}, false},
		{"_http._tcp.web.fed.svc.cluster.local.", name{}, false},
		{"_http.web.demo.fed.svc.cluster.local.", name{}, false},
		{"web.demo._x.fed.svc.cluster.local.", name{}, false},
	}
	for _, tt := range tests {
		l, under := labels(tt.qname, suffix)
		if !under {
			t.Errorf("%s: not under %s", tt.qname, suffix)
			continue
		}
		got, ok := parseFederation(l)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseFederation(%s) = %+v, %v; want %+v, %v", tt.qname, got, ok, tt.want, tt.ok)
		}
	}
	if _, under := labels("web.demo.other.svc.cluster.local.", suffix); under {
		t.Error("a name of another federation is under this one")
	}
	if _, under := labels("xfed.svc.cluster.local.", suffix); under {
		t.Error("xfed.svc.cluster.local. is under fed.svc.cluster.local.")
	}
}

func TestParseClusterset(t *testing.T) {
	tests := []struct {
		qname string
		want  name
		form  clustersetForm
	}{
		{"clusterset.local.", name{}, apexForm},
		{"dns-version.clusterset.local.", name{}, versionForm},
		{"svc.clusterset.local.", name{}, svcForm},
		{"demo.svc.clusterset.local.", name{namespace: "demo"}, namespaceForm},
		{"web.demo.svc.clusterset.local.", name{service: "web", namespace: "demo"}, serviceForm},
		{"_http._tcp.web.demo.svc.clusterset.local.", name{port: "http", proto: "tcp", service: "web", namespace: "demo"}, serviceForm},
		{"c1.web.demo.svc.clusterset.local.", name{cluster: "c1", service: "web", namespace: "demo"}, clusterForm},
		{"h.c1.web.demo.svc.clusterset.local.", name{host: "h", cluster: "c1", service: "web", namespace: "demo"}, endpointForm},
		{"h.us.east.web.demo.svc.clusterset.local.", name{host: "h", cluster: "us.east", service: "web", namespace: "demo"}, endpointForm},
		{"_http._tcp.c1.web.demo.svc.clusterset.local.", name{}, invalidForm},
		{"_http._tcp.demo.svc.clusterset.local.", name{}, invalidForm},
		{"_http.web.demo.svc.clusterset.local.", name{}, invalidForm},
		{"web._demo.svc.clusterset.local.", name{}, invalidForm},
		{"web.demo.pod.clusterset.local.", name{}, invalidForm},
		{"dns-version.svc.clusterset.local.", name{namespace: "dns-version"}, namespaceForm},
		{"other.clusterset.local.", name{}, invalidForm},
	}
	for _, tt := range tests {
		l, _ := labels(tt.qname, "clusterset.local.")
		got, form := parseClusterset(l)
		if form != tt.form || got != tt.want {
			t.Errorf("parseClusterset(%s) = %+v, %v; want %+v, %v", tt.qname, got, form, tt.want, tt.form)
		}
	}
}

func FuzzParseFederation(f *testing.F) {
	for _, s := range []string{"web.demo.fed.svc.cluster.local.", "_a._b.c.d.e.fed.svc.cluster.local.", "._.fed.svc.cluster.local."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, qname string) {
		if _, ok := dns.IsDomainName(qname); !ok {
			return
		}
		l, under := labels(dns.Fqdn(qname), "fed.svc.cluster.local.")
		if !under {
			return
		}
		if n, ok := parseFederation(l); ok && (n.service == "" || n.namespace == "") {
			t.Fatalf("parsed %q without a service or namespace: %+v", qname, n)
		}
	})
}

func FuzzParseClusterset(f *testing.F) {
	for _, s := range []string{"web.demo.svc.clusterset.local.", "_a._b.c.d.svc.clusterset.local.", "h.c.s.n.svc.clusterset.local.", "._.svc.clusterset.local."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, qname string) {
		if _, ok := dns.IsDomainName(qname); !ok {
			return
		}
		l, under := labels(dns.Fqdn(qname), "clusterset.local.")
		if !under {
			return
		}
		n, form := parseClusterset(l)
		switch form {
		case serviceForm, clusterForm, endpointForm:
			if n.service == "" || n.namespace == "" {
				t.Fatalf("parsed %q as %v without a service or namespace: %+v", qname, form, n)
			}
		}
		if form == endpointForm && (n.host == "" || n.cluster == "") {
			t.Fatalf("parsed %q as an endpoint name without a host or cluster: %+v", qname, n)
		}
	})
}
