package fedplugin

import (
	"slices"
	"testing"
	"time"

	"github.com/coredns/caddy"
)

func TestParse(t *testing.T) {
	tests := []struct {
		input      string
		keys       []string
		zones      []string
		reverse    []string
		clusterset string
		fed        string
		cluster    string
		ttl        uint32
		kubeconfig string
		context    string
		timeout    time.Duration
		err        bool
	}{
		{input: "federation", keys: []string{"clusterset.local.:53", "cluster.local.:53", "in-addr.arpa.:53"},
			zones: []string{"cluster.local."}, reverse: []string{"in-addr.arpa."}, clusterset: "clusterset.local.", ttl: 5, timeout: 5 * time.Second},
		{input: "federation example.org", keys: []string{"example.org."},
			zones: []string{"example.org."}, clusterset: "clusterset.local.", ttl: 5, timeout: 5 * time.Second},
		{input: `federation cluster.local {
			kubeconfig /tmp/kubeconfig member-2
			federation_id Fed1
			cluster_id Member-2
			clusterset off
			ttl 30
			startup_timeout 1s
			fallthrough
		}`, zones: []string{"cluster.local."}, fed: "fed1", cluster: "member-2", ttl: 30, kubeconfig: "/tmp/kubeconfig", context: "member-2", timeout: time.Second},
		{input: "federation {\n clusterset mcs.example.\n}", keys: []string{"mcs.example.", "example."},
			zones: []string{"example."}, clusterset: "mcs.example.", ttl: 5, timeout: 5 * time.Second},
		{input: "federation clusterset.local", err: true},
		{input: "federation {\n ttl 99999\n}", err: true},
		{input: "federation {\n ttl\n}", err: true},
		{input: "federation {\n cluster_id\n}", err: true},
		{input: "federation cluster.local", keys: []string{".:53"}, zones: []string{"cluster.local."}, clusterset: "clusterset.local.", ttl: 5, timeout: 5 * time.Second},
		{input: "federation {\n bogus\n}", err: true},
		{input: "federation {\n kubeconfig\n}", err: true},
		{input: "federation {\n startup_timeout soon\n}", err: true},
		{input: "federation {\n clusterset not..a..zone\n}", err: true},
		{input: "federation\nfederation", err: true},
	}
	for _, tt := range tests {
		c := caddy.NewTestController("dns", tt.input)
		c.ServerBlockKeys = tt.keys
		o, err := parse(c)
		if tt.err {
			if err == nil {
				t.Errorf("%q: no error", tt.input)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.input, err)
			continue
		}
		if !slices.Equal(o.zones, tt.zones) || !slices.Equal(o.reverse, tt.reverse) || o.clusterset != tt.clusterset || o.federationID != tt.fed || o.clusterID != tt.cluster || o.ttl != tt.ttl ||
			o.kubeconfig != tt.kubeconfig || o.context != tt.context || o.startupTimeout != tt.timeout {
			t.Errorf("%q: parsed %+v", tt.input, o)
		}
	}
}
