package netns_test

import (
	"context"
	"fmt"
	"time"

	"antreaplus.io/antreaplus/internal/netns"
)

// Two machines on a bridge, one serving TCP echo, the other probing it.
// (Compiled, not run: it needs root.)
func Example() {
	var created []*netns.NS
	defer func() {
		for _, ns := range created {
			_ = ns.Delete()
		}
	}()
	for _, name := range []string{"ex-br", "ex-vm1", "ex-vm2"} {
		ns, err := netns.Create(name) // fails with netns.ErrNotRoot unless root
		if err != nil {
			fmt.Println(err)
			return
		}
		created = append(created, ns)
	}
	br, vm1, vm2 := created[0], created[1], created[2]
	if err := br.Bridge("br0"); err != nil {
		fmt.Println(err)
		return
	}
	for i, vm := range []*netns.NS{vm1, vm2} {
		if err := br.Attach("br0", vm.Name, vm, "eth0", fmt.Sprintf("10.0.0.%d/24", i+11)); err != nil {
			fmt.Println(err)
			return
		}
	}
	echo := &netns.Echo{}
	defer echo.Close()
	if err := echo.TCP(vm2, "10.0.0.12:8080"); err != nil {
		fmt.Println(err)
		return
	}
	got, err := netns.ProbeTCP(context.Background(), vm1, "10.0.0.12:8080", time.Second)
	fmt.Println(got, err) // connected <nil>
}
