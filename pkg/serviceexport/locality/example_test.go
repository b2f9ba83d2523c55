package locality_test

import (
	"fmt"

	"antreaplus.io/antreaplus/pkg/serviceexport/locality"
)

var endpoints = []locality.Place{
	{Cluster: "member-1", Region: "eu", Zone: "eu-1a"},
	{Cluster: "member-1", Region: "eu", Zone: "eu-1b"},
	{Cluster: "member-2", Region: "eu", Zone: "eu-1a"},
	{Cluster: "member-3", Region: "us", Zone: "us-1a"},
}

// The DNS server answers a client of member-1 in zone eu-1a with its own
// cluster's endpoint in its zone; a client of member-4 in eu-1b, with the
// endpoint of another cluster in its zone.
func ExampleClosest() {
	fmt.Println(locality.Closest(locality.Place{Cluster: "member-1", Region: "eu", Zone: "eu-1a"}, endpoints))
	fmt.Println(locality.Closest(locality.Place{Cluster: "member-4", Region: "eu", Zone: "eu-1b"}, endpoints))
	fmt.Println(locality.TierOf(locality.Place{Cluster: "member-4", Region: "us", Zone: "us-1b"}, endpoints[3]) == locality.Region)
	// Output:
	// [0]
	// [1]
	// true
}

// The topology hints of each endpoint in the EndpointSlices imported into
// member-1, whose nodes are in zones eu-1a and eu-1b.
func ExampleHints() {
	hints := locality.Hints("member-1", map[string]string{"eu-1a": "eu", "eu-1b": "eu"}, endpoints)
	for i, h := range hints {
		fmt.Println(endpoints[i].Cluster, endpoints[i].Zone, h)
	}
	// Output:
	// member-1 eu-1a [eu-1a]
	// member-1 eu-1b [eu-1b]
	// member-2 eu-1a [antreaplus.farther]
	// member-3 us-1a [antreaplus.farther]
}
