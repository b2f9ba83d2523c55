package netns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// Do runs f on an OS thread that is inside the namespace: sockets f
// creates belong to the namespace for their whole life, whatever thread
// uses them later. f must not start goroutines that create sockets.
func (ns *NS) Do(f func() error) error {
	runtime.LockOSThread()
	self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer self.Close()
	if err := unix.Setns(ns.Fd(), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		if os.Geteuid() != 0 {
			err = ErrNotRoot
		}
		return fmt.Errorf("entering network namespace %s: %w", ns.Name, err)
	}
	ferr := f()
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		// The thread stays locked, so the runtime ends it with the goroutine.
		return errors.Join(ferr, fmt.Errorf("leaving network namespace %s: %w", ns.Name, err))
	}
	runtime.UnlockOSThread()
	return ferr
}

// Dial connects from inside the namespace.
func (ns *NS) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	var conn net.Conn
	err := ns.Do(func() error {
		var err error
		conn, err = (&net.Dialer{}).DialContext(ctx, network, address)
		return err
	})
	return conn, err
}

// Listen listens inside the namespace.
func (ns *NS) Listen(network, address string) (net.Listener, error) {
	var l net.Listener
	err := ns.Do(func() error {
		var err error
		l, err = net.Listen(network, address)
		return err
	})
	return l, err
}

// ListenPacket listens for datagrams inside the namespace.
func (ns *NS) ListenPacket(network, address string) (net.PacketConn, error) {
	var pc net.PacketConn
	err := ns.Do(func() error {
		var err error
		pc, err = net.ListenPacket(network, address)
		return err
	})
	return pc, err
}
