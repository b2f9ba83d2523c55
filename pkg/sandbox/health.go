package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
)

// answers reports whether a cluster's API server is ready.
func (s *Sandbox) answers(ctx context.Context, name string) bool {
	return s.readyz(ctx, name) == nil
}

// readyz asks a cluster's API server whether it is ready.
func (s *Sandbox) readyz(ctx context.Context, name string) error {
	cfg, err := s.restConfig(name)
	if err != nil {
		return err
	}
	cfg.Timeout = 3 * time.Second
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("API server not ready: %w", err)
	}
	if strings.TrimSpace(string(body)) != "ok" {
		return fmt.Errorf("API server not ready: %s", body)
	}
	return nil
}

// checkPortsFree fails when any port of a cluster is taken.
func checkPortsFree(p ClusterPlan) error {
	for _, port := range p.All() {
		if err := checkPortFree(port); err != nil {
			return err
		}
	}
	return nil
}

// waitPortsFree waits up to timeout for the ports of a cluster whose
// processes were just stopped to be released.
func waitPortsFree(ctx context.Context, p ClusterPlan, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := checkPortsFree(p)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// checkPortFree fails with the owning process, when it can be found, if a
// TCP port on the loopback address is taken.
func checkPortFree(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err == nil {
		return l.Close()
	}
	owner := portOwner(port)
	if owner != "" {
		owner = " by " + owner
	}
	return fmt.Errorf("port %d is in use%s: stop that process or choose other ports with --api-port-base", port, owner)
}

// portOwner names the process listening on a TCP port, from /proc, or "".
func portOwner(port int) string {
	inode := listeningInode(port)
	if inode == "" {
		return ""
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range procs {
		target, err := os.Readlink(fd)
		if err != nil || target != "socket:["+inode+"]" {
			continue
		}
		pid := strings.Split(fd, "/")[2]
		cmd, _ := os.ReadFile(filepath.Join("/proc", pid, "comm"))
		return fmt.Sprintf("pid %s (%s)", pid, strings.TrimSpace(string(cmd)))
	}
	return ""
}

func listeningInode(port int) string {
	want := fmt.Sprintf(":%04X", port)
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// local_address is field 1, state 0A is LISTEN, inode is field 9.
			if len(fields) > 9 && strings.HasSuffix(fields[1], want) && fields[3] == "0A" {
				f.Close()
				return fields[9]
			}
		}
		f.Close()
	}
	return ""
}

// ephemeralRange is the kernel's range of local ports for outgoing connections.
func ephemeralRange() (lo, hi int, ok bool) {
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0, false
	}
	f := strings.Fields(string(raw))
	if len(f) != 2 {
		return 0, 0, false
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	return lo, hi, err1 == nil && err2 == nil
}

// checkListen fails if endpoint (host:port) cannot be listened on with network (tcp or udp).
func checkListen(network, endpoint string) error {
	var err error
	if network == "udp" {
		var pc net.PacketConn
		if pc, err = net.ListenPacket(network, endpoint); err == nil {
			return pc.Close()
		}
	} else {
		var l net.Listener
		if l, err = net.Listen(network, endpoint); err == nil {
			return l.Close()
		}
	}
	owner := ""
	if _, port, perr := net.SplitHostPort(endpoint); perr == nil && network == "tcp" {
		if n, aerr := strconv.Atoi(port); aerr == nil {
			if o := portOwner(n); o != "" {
				owner = " by " + o
			}
		}
	}
	return fmt.Errorf("%s %s is in use%s (%w): stop that process or choose other ports with --api-port-base", network, endpoint, owner, err)
}
