// Package netnstest gives tests named Linux network namespaces to play VMs
// in: it creates and deletes them with iproute2, runs commands inside them,
// and opens sockets inside them from the test process itself.
//
// # Usage
//
//	ns, err := netnstest.Create("apv-1234-vm1") // needs root and ip(8)
//	defer ns.Delete()
//	_ = ns.Run("ip", "link", "set", "lo", "up")
//	var l net.Listener
//	_ = ns.Do(func() error { l, err = net.Listen("tcp", "10.0.0.1:80"); return err })
//	conn, err := ns.Dial(ctx, "tcp", "10.0.0.2:80")
package netnstest
