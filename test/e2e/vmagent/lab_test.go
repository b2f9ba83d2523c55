package vmagent

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"antreaplus.io/antreaplus/internal/netns"
)

// lab is one test's network: a bridge namespace, a control namespace that
// runs the policy-controller, and VM namespaces added on the bridge, all
// on a random /24 that exists only inside these namespaces:
//
//	ctl 10.a.b.1 (policy-controller :8443, metrics :18080)
//	  |
//	 br0 (namespace <prefix>br) --- vm 10.a.b.11, 10.a.b.12, ...
//
// The controller reaches the kube-apiserver through a forwarder that the
// test process runs inside the control namespace, on the address the
// kubeconfig names.
type lab struct {
	t          *testing.T
	prefix     string
	subnet     string
	dir        string
	br, ctl    *netns.NS
	echo       *netns.Echo
	hosts      atomic.Int32
	controller *process
	vms        []*vm
}

var labCount atomic.Int32

const (
	apiPort     = "8443"
	metricsPort = "18080"
)

func newLab(t *testing.T) *lab {
	t.Helper()
	l := &lab{t: t, prefix: fmt.Sprintf("%s%d-", namespacePrefix(), labCount.Add(1)), dir: t.TempDir(), echo: &netns.Echo{},
		subnet: fmt.Sprintf("10.%d.%d.", 200+rand.IntN(50), rand.IntN(256))}
	l.hosts.Store(10)
	t.Cleanup(l.dumpOnFailure)
	t.Cleanup(l.echo.Close)
	var err error
	if l.br, err = l.namespace("br"); err != nil {
		t.Fatal(err)
	}
	if err := l.br.Bridge("br0"); err != nil {
		t.Fatal(err)
	}
	if l.ctl, err = l.attach("ctl", l.controllerIP()); err != nil {
		t.Fatal(err)
	}
	l.forwardAPIServer()
	l.startController()
	return l
}

func (l *lab) controllerIP() string { return l.subnet + "1" }

// serverURL is where agents reach the distribution API.
func (l *lab) serverURL() string { return "https://" + net.JoinHostPort(l.controllerIP(), apiPort) }

func (l *lab) certDir() string { return filepath.Join(l.dir, "certs") }

// namespace creates a network namespace that goes with the test.
func (l *lab) namespace(name string) (*netns.NS, error) {
	ns, err := netns.Create(l.prefix + name)
	if err != nil {
		return nil, err
	}
	l.t.Cleanup(func() { _ = ns.Delete() })
	return ns, nil
}

// attach creates a namespace linked to the bridge, with ip on its eth0.
func (l *lab) attach(name, ip string) (*netns.NS, error) {
	ns, err := l.namespace(name)
	if err != nil {
		return nil, err
	}
	port := "p-" + name
	if len(port) > 15 {
		port = port[:15]
	}
	if err := l.br.Attach("br0", port, ns, "eth0", ip+"/24"); err != nil {
		return nil, err
	}
	return ns, nil
}

// forwardAPIServer listens inside the control namespace on the host and
// port of the kube-apiserver and forwards every connection to it.
func (l *lab) forwardAPIServer() {
	u, err := url.Parse(clusters.Config(l.t, cluster).Host)
	if err != nil {
		l.t.Fatal(err)
	}
	listener, err := l.ctl.Listen("tcp", u.Host)
	if err != nil {
		l.t.Fatalf("listening for the API server in the control namespace: %v", err)
	}
	l.t.Cleanup(func() { _ = listener.Close() })
	go func() {
		for {
			in, err := listener.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = in.Close() }()
				out, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
				if err != nil {
					return
				}
				defer func() { _ = out.Close() }()
				go func() { _, _ = io.Copy(out, in); _ = out.(*net.TCPConn).CloseWrite() }()
				_, _ = io.Copy(in, out)
			}()
		}
	}()
}

// startController starts the policy-controller in the control namespace
// and waits until its API answers.
func (l *lab) startController() {
	controller, _ := binaries(l.t)
	args := []string{"--kubeconfig", clusters.Sandbox.KubeconfigPath(), "--context", cluster,
		"--listen-address", net.JoinHostPort(l.controllerIP(), apiPort), "--cert-dir", l.certDir(),
		"--tls-san", l.controllerIP(), "--heartbeat", "1s",
		"--metrics-bind-address", "127.0.0.1:" + metricsPort, "-v", "2"}
	l.controller = startProcess(l.t, "policy-controller", filepath.Join(l.dir, "policy-controller.log"), l.ctl.Command(controller, args...))
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := l.httpClient(l.ctl, "").Get(l.serverURL() + "/v1/watch")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == 401 {
				return
			}
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("the policy-controller did not answer within 30s: %v\n%s", err, l.controller.tail(30))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stopController kills the controller, as a crash would.
func (l *lab) stopController() {
	l.controller.kill()
}

// dumpOnFailure logs the end of every process's log and every VM's
// ruleset when the test failed.
func (l *lab) dumpOnFailure() {
	if !l.t.Failed() {
		return
	}
	if l.controller != nil {
		l.t.Logf("--- policy-controller log:\n%s", l.controller.tail(40))
	}
	for _, v := range l.vms {
		if v.agent != nil {
			l.t.Logf("--- vm-agent of %s log:\n%s", v.name, v.agent.tail(25))
		}
		out, _ := v.ns.Output("nft", "list", "ruleset")
		l.t.Logf("--- ruleset of %s:\n%s", v.name, out)
	}
}
