package locality

import (
	"reflect"
	"testing"
)

var (
	m1a = Place{Cluster: "member-1", Region: "eu", Zone: "eu-1a"}
	m1b = Place{Cluster: "member-1", Region: "eu", Zone: "eu-1b"}
	m2a = Place{Cluster: "member-2", Region: "eu", Zone: "eu-1a"}
	m2c = Place{Cluster: "member-2", Region: "eu", Zone: "eu-1c"}
	m3  = Place{Cluster: "member-3", Region: "us", Zone: "us-1a"}
	lb  = Place{Cluster: "member-2", Region: "eu"} // a load balancer: no zone
)

func TestTierOf(t *testing.T) {
	cases := []struct {
		client, ep Place
		want       Tier
	}{
		{m1a, m1a, LocalZone},
		{m1a, m1b, Local},
		{m1a, m2a, Zone},
		{m1a, m2c, Region},
		{m1a, lb, Region},
		{m1a, m3, Farther},
		{Place{}, Place{}, Farther}, // unknown matches nothing
		{Place{Cluster: "member-1"}, Place{Cluster: "member-1"}, Local},
		{Place{Cluster: "member-1", Zone: "z"}, Place{Cluster: "member-2", Zone: "z"}, Zone},
	}
	for _, c := range cases {
		if got := TierOf(c.client, c.ep); got != c.want {
			t.Errorf("TierOf(%+v, %+v) = %s, want %s", c.client, c.ep, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	eps := []Place{m3, m2c, m1b, m2a, m1b}
	cases := []struct {
		name   string
		client Place
		eps    []Place
		want   []int
	}{
		{"own cluster first, every zone of it", m1a, eps, []int{2, 4}},
		{"own cluster and zone before own cluster", m1b, []Place{m1a, m1b}, []int{1}},
		{"same zone of another cluster", Place{Cluster: "member-4", Region: "eu", Zone: "eu-1a"}, eps, []int{3}},
		{"same region", Place{Cluster: "member-4", Region: "eu", Zone: "eu-1z"}, eps, []int{1, 2, 3, 4}},
		{"nothing close: everything", Place{Cluster: "member-4", Region: "ap"}, eps, []int{0, 1, 2, 3, 4}},
		{"unknown client: everything", Place{}, eps, []int{0, 1, 2, 3, 4}},
		{"none", m1a, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Closest(c.client, c.eps); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Closest = %v, want %v", got, c.want)
			}
		})
	}
}

func TestHints(t *testing.T) {
	cases := []struct {
		name  string
		local string
		zones map[string]string
		eps   []Place
		want  [][]string
	}{
		{"local endpoints take every zone, the rest is farther", "member-1",
			map[string]string{"eu-1a": "eu", "eu-1b": "eu"}, []Place{m1a, m1b, m2a, m3},
			[][]string{{"eu-1a"}, {"eu-1b"}, {FartherZone}, {FartherZone}}},
		{"local endpoints in one zone serve both", "member-1",
			map[string]string{"eu-1a": "eu", "eu-1b": "eu"}, []Place{m1a, m2a},
			[][]string{{"eu-1a", "eu-1b"}, {FartherZone}}},
		{"importer without endpoints: zone, then region", "member-4",
			map[string]string{"eu-1a": "eu", "eu-1x": "eu", "us-9": "us"}, []Place{m2a, m2c, m3},
			[][]string{{"eu-1a", "eu-1x"}, {"eu-1x"}, {"us-9"}}},
		{"a zone with nothing close gets everything", "member-4",
			map[string]string{"ap-1": "ap"}, []Place{m2a, m3},
			[][]string{{"ap-1"}, {"ap-1"}}},
		{"no zones: no hints", "member-1", nil, []Place{m1a}, nil},
		{"only unnamed zones: no hints", "member-1", map[string]string{"": "eu"}, []Place{m1a}, nil},
		{"no endpoints", "member-1", map[string]string{"eu-1a": "eu"}, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Hints(c.local, c.zones, c.eps); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Hints = %v, want %v", got, c.want)
			}
		})
	}
}
