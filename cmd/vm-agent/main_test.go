package main

import (
	"slices"
	"testing"
)

func TestDNSOptions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		f          flags
		off, fails bool
	}{
		{name: "defaults", f: flags{dns: true, dnsListen: "127.0.0.153:53", dnsZones: "clusterset.local,cluster.local", resolvConf: "/etc/resolv.conf"}},
		{name: "off", f: flags{dns: false, dnsListen: "bad"}, off: true},
		{name: "a port a resolver file cannot name", f: flags{dns: true, dnsListen: "127.0.0.153:5353", dnsZones: "clusterset.local", resolvConf: "/etc/resolv.conf"}, fails: true},
		{name: "any port without a resolver file", f: flags{dns: true, dnsListen: "127.0.0.153:5353", dnsZones: "clusterset.local"}},
		{name: "no port", f: flags{dns: true, dnsListen: "127.0.0.153", dnsZones: "clusterset.local"}, fails: true},
		{name: "bad zone", f: flags{dns: true, dnsListen: "127.0.0.153:53", dnsZones: "a..b"}, fails: true},
	} {
		got, err := dnsOptions(&tc.f)
		switch {
		case (err != nil) != tc.fails:
			t.Errorf("%s: error %v, want failure %v", tc.name, err, tc.fails)
		case err == nil && (got == nil) != tc.off:
			t.Errorf("%s: options %+v, want off %v", tc.name, got, tc.off)
		}
	}
	got, _ := dnsOptions(&flags{dns: true, dnsListen: "127.0.0.153:53", dnsZones: "ClusterSet.local, cluster.local"})
	if want := []string{"clusterset.local.", "cluster.local."}; !slices.Equal(got.Zones, want) {
		t.Errorf("zones %v, want %v", got.Zones, want)
	}
}
