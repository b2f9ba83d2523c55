package dnsforward_test

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"

	"antreaplus.io/antreaplus/pkg/vmagent/dnsforward"
)

// A VM's resolver file pointed at the forwarder, its original kept (the
// agent keeps it in its state), the forwarder's upstreams taken from the
// original, and the file put back on uninstall.
func ExamplePlanResolvConf() {
	dir, err := os.MkdirTemp("", "dnsforward-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = os.RemoveAll(dir) }()
	path := filepath.Join(dir, "resolv.conf")
	if err := os.WriteFile(path, []byte("nameserver 192.0.2.53\nsearch corp.example\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	fwd := netip.MustParseAddr("127.0.0.153") // the forwarder's address (DefaultListen)
	zones := dnsforward.DefaultZones

	current, _ := dnsforward.ReadFile(path)
	plan := dnsforward.PlanResolvConf(current, nil, true, fwd, zones)
	if err := dnsforward.WriteInPlace(path, plan.Write); err != nil { // through the inode: bind mounts stay
		fmt.Println(err)
		return
	}
	fmt.Println("managed:", dnsforward.Managed(plan.Write), "nameservers:", dnsforward.Nameservers(plan.Write))
	fmt.Println("upstreams:", dnsforward.Upstreams([]byte(*plan.Original), fwd)) // Routes.Upstreams of the forwarder

	current, _ = dnsforward.ReadFile(path)
	again := dnsforward.PlanResolvConf(current, plan.Original, true, fwd, zones)
	fmt.Println("next run writes:", again.Write != nil)

	wrote, err := dnsforward.Restore(path, plan.Original)
	restored, _ := os.ReadFile(path)
	fmt.Printf("restored: %v %v %q\n", wrote, err, restored)
	// Output:
	// managed: true nameservers: [127.0.0.153 192.0.2.53]
	// upstreams: [192.0.2.53:53]
	// next run writes: false
	// restored: true <nil> "nameserver 192.0.2.53\nsearch corp.example\n"
}
