package records_test

import (
	"fmt"
	"strings"

	"antreaplus.io/antreaplus/pkg/externaldns/records"
)

// A Service exported through a load balancer in member-1 (region r1, zone
// z1) and on the node ports of member-2 (region r2), published under
// example.com.
func ExampleDesired() {
	http := records.Port{Name: "http", Protocol: "TCP", Port: 80, NodePort: 30080}
	r := records.Desired(records.Input{
		Domain: "example.com", FederationID: "fed", Namespace: "shop", Service: "web",
		Exporters: []records.Exporter{{
			ClusterID: "member-1", Region: "r1", Zones: []string{"z1"}, Kind: records.KindLoadBalancer,
			LoadBalancerIPs: []string{"203.0.113.10"}, Ports: []records.Port{http}, Ready: true, Reachable: true,
		}, {
			ClusterID: "member-2", Region: "r2", Kind: records.KindNodePort,
			NodeAddresses: []records.NodeAddress{{IP: "198.51.100.2", Ready: true}},
			Ports:         []records.Port{http}, Ready: true, Reachable: true,
		}},
	})
	for _, e := range r.Endpoints {
		fmt.Println(e.DNSName, e.RecordTTL, e.RecordType, strings.Join(e.Targets, ", "))
	}
	// Output:
	// _http._tcp.web.shop.fed.svc.example.com 30 SRV 0 50 30080 web.shop.member-2.fed.svc.example.com., 0 50 80 web.shop.member-1.fed.svc.example.com.
	// _http._tcp.web.shop.fed.svc.r1.example.com 30 SRV 0 100 80 web.shop.member-1.fed.svc.r1.example.com.
	// _http._tcp.web.shop.fed.svc.r2.example.com 30 SRV 0 100 30080 web.shop.member-2.fed.svc.r2.example.com.
	// _http._tcp.web.shop.fed.svc.z1.r1.example.com 30 SRV 0 100 80 web.shop.member-1.fed.svc.z1.r1.example.com.
	// web.shop.fed.svc.example.com 30 A 198.51.100.2, 203.0.113.10
	// web.shop.fed.svc.r1.example.com 30 A 203.0.113.10
	// web.shop.fed.svc.r2.example.com 30 A 198.51.100.2
	// web.shop.fed.svc.z1.r1.example.com 30 A 203.0.113.10
	// web.shop.member-1.fed.svc.example.com 30 A 203.0.113.10
	// web.shop.member-1.fed.svc.r1.example.com 30 A 203.0.113.10
	// web.shop.member-1.fed.svc.z1.r1.example.com 30 A 203.0.113.10
	// web.shop.member-2.fed.svc.example.com 30 A 198.51.100.2
	// web.shop.member-2.fed.svc.r2.example.com 30 A 198.51.100.2
}
