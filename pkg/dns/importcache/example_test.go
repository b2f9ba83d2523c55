package importcache_test

import (
	"fmt"
	"net/netip"
	"time"

	"k8s.io/client-go/rest"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
)

// The Watcher fills an Index from the member's API server (cfg) and keeps
// serving its last state while the server is away; the DNS plugin reads
// the Index for every query.
func ExampleWatcher() {
	serve := func(cfg *rest.Config, client netip.Addr) error {
		w, err := importcache.NewWatcher(cfg, importcache.WatcherOptions{})
		if err != nil {
			return err
		}
		w.Start() // the informers run until Stop
		defer w.Stop()
		if !w.WaitSynced(5 * time.Second) {
			fmt.Println("answering from what is synced so far")
		}
		fmt.Println("federation", w.FederationID(), "cluster", w.ClusterID()) // "" until the ClusterMembership is read
		if svc := w.Index().Service("demo", "web"); svc != nil {
			fmt.Println(svc.IPs, svc.Ready())
		}
		zone, region, _ := w.Index().Locate(client) // the client's place, for PreferClose imports
		fmt.Println(zone, region)
		return nil
	}
	_ = serve
}

// The Index alone, as the Watcher fills it: an import and the slice of
// its one source cluster make a ready Service, found by name and by its
// cluster-set IP.
func ExampleIndex() {
	x := importcache.NewIndex()
	ip := netip.MustParseAddr("10.98.0.10")
	x.SetImport(&importcache.Import{Namespace: "demo", Name: "web", IPs: []netip.Addr{ip},
		Ports: []importcache.Port{{Name: "http", Protocol: "TCP", Port: 80}}})
	x.SetSlice(nil, &importcache.Slice{Namespace: "demo", Name: "web-member-1-abcde", Service: "web", Cluster: "member-1",
		Endpoints: []importcache.Endpoint{{Addrs: []netip.Addr{netip.MustParseAddr("203.0.113.10")}}}})

	svc := x.Service("demo", "web")
	fmt.Println(svc.Name, svc.IPs, svc.Ready(), svc.Cluster("member-1").Ready())
	for _, s := range x.ByAddr(ip) {
		fmt.Println(s.Namespace, s.Name)
	}
	fmt.Println(x.HasNamespace("demo"), x.Service("demo", "db") == nil)
	// Output:
	// web [10.98.0.10] true true
	// demo web
	// true true
}
