package dnsforward

import (
	"slices"
	"testing"
)

func TestNormalizeZones(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
		err  bool
	}{
		{in: []string{"clusterset.local", "Cluster.Local."}, want: []string{"clusterset.local.", "cluster.local."}},
		{in: []string{" clusterset.local ", "clusterset.local.", ""}, want: []string{"clusterset.local."}},
		{in: []string{"."}, want: []string{"."}},
		{in: nil, want: []string{}},
		{in: []string{"a..b"}, err: true},
	} {
		got, err := NormalizeZones(tc.in)
		if (err != nil) != tc.err || (!tc.err && !slices.Equal(got, tc.want)) {
			t.Errorf("NormalizeZones(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestInZones(t *testing.T) {
	zones := []string{"clusterset.local.", "cluster.local."}
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"web.shop.svc.clusterset.local.", true},
		{"WEB.Shop.SVC.ClusterSet.Local", true},
		{"clusterset.local.", true},
		{"dns-version.clusterset.local.", true},
		{"web.shop.sandbox.svc.cluster.local.", true},
		{"_http._tcp.web.shop.member-1.sandbox.svc.cluster.local.", true},
		{"notclusterset.local.", false},
		{"local.", false},
		{"example.com.", false},
		{"clusterset.local.example.com.", false},
		{".", false},
	} {
		if got := InZones(tc.name, zones); got != tc.want {
			t.Errorf("InZones(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !InZones("example.com.", []string{"."}) {
		t.Error("the root zone does not hold every name")
	}
	if InZones("web.shop.svc.clusterset.local.", nil) {
		t.Error("no zone holds a name")
	}
}
