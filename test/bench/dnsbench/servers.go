package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"antreaplus.io/antreaplus/test/bench/procstat"
)

// The Corefiles of the servers compared; each runs the same binary. The
// first three arguments are the address, the ready port and the metrics
// port.
const (
	// oursCorefile is the member's DNS as deployed (docs/dns.md), less
	// what the bench's names never reach or the baselines lack (health,
	// cache, forward, loadbalance): the federation plugin
	// answering clusterset.local and the federation names, the stock
	// kubernetes plugin cluster.local (kubeconfig, context).
	oursCorefile = `. {
    bind %[1]s
    ready %[1]s:%[2]d
    prometheus %[1]s:%[3]d
    errors
    federation cluster.local {
        kubeconfig %[4]s %[5]s
        federation_id ` + federationID + `
    }
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig %[4]s %[5]s
        pods insecure
        ttl 30
    }
}
`
	// kubernetesCorefile is stock CoreDNS serving clusterset.local alone
	// from the same imports (kubeconfig, context).
	kubernetesCorefile = `clusterset.local {
    bind %[1]s
    ready %[1]s:%[2]d
    prometheus %[1]s:%[3]d
    errors
    kubernetes clusterset.local {
        kubeconfig %[4]s %[5]s
        multicluster clusterset.local
        labels multicluster.kubernetes.io/service-name
    }
}
`
	// fileCorefile is stock CoreDNS serving the same records from a zone
	// file (path).
	fileCorefile = `cluster.local {
    bind %[1]s
    ready %[1]s:%[2]d
    prometheus %[1]s:%[3]d
    errors
    file %[4]s
}
`
)

// server is one running CoreDNS process.
type server struct {
	name        string
	addr        string
	port        int
	readyPort   int
	metricsPort int
	cmd         *exec.Cmd
	logPath     string
}

func (s *server) target() string { return net.JoinHostPort(s.addr, strconv.Itoa(s.port)) }

func (s *server) pid() int { return s.cmd.Process.Pid }

// rssMiB is the server's resident memory.
func (s *server) rssMiB() float64 { return procstat.RSSMiB(s.pid()) }

// startServer runs bin with the Corefile on a loopback address of its own
// and waits until it is ready.
func startServer(bin, dir, name, corefile string, args ...any) (*server, error) {
	addr, ports, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &server{name: name, addr: addr, port: ports[0], readyPort: ports[1], metricsPort: ports[2], logPath: filepath.Join(dir, name+".log")}
	conf := filepath.Join(dir, name+".Corefile")
	content := fmt.Sprintf(corefile, append([]any{addr, s.readyPort, s.metricsPort}, args...)...)
	if err := os.WriteFile(conf, []byte(content), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	defer func() { _ = logf.Close() }()
	s.cmd = exec.Command(bin, "-conf", conf, "-dns.port", strconv.Itoa(s.port))
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	if err := s.waitReady(2 * time.Minute); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *server) waitReady(timeout time.Duration) error {
	url := fmt.Sprintf("http://%s:%d/ready", s.addr, s.readyPort)
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%s not ready within %s (log %s)", s.name, timeout, s.logPath)
}

func (s *server) stop() {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// freeAddr picks a loopback address of 127.54.0.0/16 with three distinct
// free ports: DNS (UDP and TCP), ready and metrics.
func freeAddr() (string, [3]int, error) {
	for range 100 {
		addr := fmt.Sprintf("127.54.%d.%d", rand.IntN(250)+1, rand.IntN(250)+1)
		p := [3]int{20000 + rand.IntN(10000), 20000 + rand.IntN(10000), 20000 + rand.IntN(10000)}
		if p[0] != p[1] && p[1] != p[2] && p[0] != p[2] && free("udp", addr, p[0]) &&
			free("tcp", addr, p[0]) && free("tcp", addr, p[1]) && free("tcp", addr, p[2]) {
			return addr, p, nil
		}
	}
	return "", [3]int{}, fmt.Errorf("no free loopback address")
}

// gcLive matches the live heap a gctrace line reports: "45->46->22 MB".
var gcLive = regexp.MustCompile(`(\d+)->(\d+)->(\d+) MB`)

// liveHeapMiB is the live heap the server's last garbage collection marked,
// from its GODEBUG=gctrace=1 output.
func (s *server) liveHeapMiB() (float64, error) {
	f, err := os.Open(s.logPath)
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }()
	live := -1.0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "gc ") {
			continue
		}
		if m := gcLive.FindStringSubmatch(sc.Text()); m != nil {
			live, _ = strconv.ParseFloat(m[3], 64)
		}
	}
	if live < 0 {
		return 0, fmt.Errorf("%s: no garbage collection traced in %s", s.name, s.logPath)
	}
	return live, sc.Err()
}

func free(network, addr string, port int) bool {
	hp := net.JoinHostPort(addr, strconv.Itoa(port))
	if network == "udp" {
		c, err := net.ListenPacket(network, hp)
		if err != nil {
			return false
		}
		return c.Close() == nil
	}
	l, err := net.Listen(network, hp)
	if err != nil {
		return false
	}
	return l.Close() == nil
}
