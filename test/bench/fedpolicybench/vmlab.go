package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/pkg/policydistribution/agenttoken"
)

// nsPrefix starts the names of the bench's network namespaces, followed
// by the bench's pid: what a killed run left is deleted by the next one.
const nsPrefix = "apf-"

const apiPort = "8443"

// vmLab is member-2's agented VM: a network namespace running the
// vm-agent, linked by a veth pair to a control namespace running the
// policy controller, which reaches member-2's API server through a
// forwarder the bench runs inside the control namespace:
//
//	ctl 10.a.b.1 (policy-controller :8443) ---veth--- vm 10.a.b.11 (vm-agent)
type vmLab struct {
	e                 *env
	dir               string
	subnet            string
	ctl, vm           *netns.NS
	controller, agent *proc
}

// checkRoot fails with what is missing when the VM cannot be played.
func checkRoot() error {
	if err := netns.Check("nft"); err != nil {
		return fmt.Errorf("the agented VM is a network namespace with its own nftables (sudo -E go run ./test/bench/fedpolicybench): %w", err)
	}
	return nil
}

// startVMLab creates the namespaces, starts the policy controller, the
// VM's objects in member-2 and its agent, and waits until the agent has
// applied its first rules.
func startVMLab(ctx context.Context, e *env, cl *cleanup) (*vmLab, error) {
	netns.ReapOrphans(nsPrefix)
	l := &vmLab{e: e, dir: filepath.Join(e.dir, "vm"), subnet: fmt.Sprintf("10.%d.%d.", 200+rand.IntN(50), rand.IntN(256))}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return nil, err
	}
	prefix := fmt.Sprintf("%s%d-", nsPrefix, os.Getpid())
	var err error
	if l.ctl, err = netns.Create(prefix + "ctl"); err != nil {
		return nil, err
	}
	cl.add(func() { _ = l.ctl.Delete() })
	if l.vm, err = netns.Create(prefix + "vm"); err != nil {
		return nil, err
	}
	cl.add(func() { _ = l.vm.Delete() })
	cl.add(e.procs.stopAll) // the programs in the namespaces first
	if err := l.ctl.Veth("to-vm", l.vm, "eth0"); err != nil {
		return nil, err
	}
	if err := errors.Join(l.ctl.AddAddress("to-vm", l.controllerIP()+"/24"), l.vm.AddAddress("eth0", l.vmIP()+"/24")); err != nil {
		return nil, err
	}
	if err := l.forwardAPIServer(cl); err != nil {
		return nil, err
	}
	if err := l.startController(ctx); err != nil {
		return nil, err
	}
	c := e.members[enforcer].c
	vmEntity := externalEntity(namespace, "nic-"+vmName, l.vmIP(), vmName, map[string]string{labelApp: vmName, federationv1alpha1.LabelNetwork: localNetwork})
	for _, o := range []client.Object{network(l.subnet + "0/24"), virtualMachine(), vmEntity} {
		if err := c.Create(ctx, o); err != nil {
			return nil, fmt.Errorf("creating %T %s in %s: %w", o, o.GetName(), enforcer, err)
		}
	}
	if err := l.writeToken(ctx, c); err != nil {
		return nil, err
	}
	return l, l.startAgent()
}

func (l *vmLab) controllerIP() string { return l.subnet + "1" }
func (l *vmLab) vmIP() string         { return l.subnet + "11" }
func (l *vmLab) certDir() string      { return filepath.Join(l.dir, "certs") }
func (l *vmLab) tokenFile() string    { return filepath.Join(l.dir, "token") }
func (l *vmLab) stateFile() string    { return filepath.Join(l.dir, "state.json") }
func (l *vmLab) serverURL() string {
	return "https://" + net.JoinHostPort(l.controllerIP(), apiPort)
}

// forwardAPIServer listens inside the control namespace on the host and
// port of member-2's API server and forwards every connection to it.
func (l *vmLab) forwardAPIServer(cl *cleanup) error {
	u, err := url.Parse(l.e.members[enforcer].cfg.Host)
	if err != nil {
		return err
	}
	listener, err := l.ctl.Listen("tcp", u.Host)
	if err != nil {
		return fmt.Errorf("listening for the API server in the control namespace: %w", err)
	}
	cl.add(func() { _ = listener.Close() })
	go func() {
		for {
			in, err := listener.Accept()
			if err != nil {
				return
			}
			go forward(in, u.Host)
		}
	}()
	return nil
}

func forward(in net.Conn, to string) {
	defer func() { _ = in.Close() }()
	out, err := net.DialTimeout("tcp", to, 5*time.Second)
	if err != nil {
		return
	}
	defer func() { _ = out.Close() }()
	go func() { _, _ = io.Copy(out, in); _ = out.(*net.TCPConn).CloseWrite() }()
	_, _ = io.Copy(in, out)
}

// startController runs member-2's policy controller in the control
// namespace (its "Published" lines at -v 1 time the stage) and waits
// until its API answers.
func (l *vmLab) startController(ctx context.Context) error {
	args := []string{"--kubeconfig", l.e.sb.KubeconfigPath(), "--context", enforcer,
		"--listen-address", net.JoinHostPort(l.controllerIP(), apiPort), "--cert-dir", l.certDir(),
		"--tls-san", l.controllerIP(), "--heartbeat", "1s", "-v", "1"}
	var err error
	l.controller, err = l.e.procs.start("policy-controller "+enforcer, l.controllerLog(), l.ctl.Command(l.e.bins["policy-controller"], args...))
	if err != nil {
		return err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := l.httpClient().Get(l.serverURL() + "/v1/watch")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the policy controller did not answer within 60s (last error: %s):\n%s", errText(err), l.controller.tail(30))
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

func (l *vmLab) controllerLog() string {
	return filepath.Join(l.e.logs, enforcer+".policy-controller.log")
}
func (l *vmLab) agentLog() string { return filepath.Join(l.e.logs, enforcer+".vm-agent.log") }

// httpClient connects from inside the control namespace and trusts the
// controller's CA once it exists.
func (l *vmLab) httpClient() *http.Client {
	pool := x509.NewCertPool()
	if pem, err := os.ReadFile(filepath.Join(l.certDir(), "ca.crt")); err == nil {
		pool.AppendCertsFromPEM(pem)
	}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext:     l.ctl.Dial,
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
	}}
}

// writeToken waits for the token the policy controller issues the VM.
func (l *vmLab) writeToken(ctx context.Context, c client.Client) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := &corev1.Secret{}
		err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: agenttoken.SecretName(vmName)}, s)
		if err == nil && len(s.Data[policyv1alpha1.TokenSecretKey]) > 0 {
			return os.WriteFile(l.tokenFile(), s.Data[policyv1alpha1.TokenSecretKey], 0o600)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no token for the VM after 60s (last error: %s):\n%s", errText(err), l.controller.tail(20))
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// startAgent runs the vm-agent in the VM's namespace (its "Applied rules"
// lines, with the time the apply took, time the stage).
func (l *vmLab) startAgent() error {
	args := []string{"--server", l.serverURL(), "--token-file", l.tokenFile(),
		"--ca-file", filepath.Join(l.certDir(), "ca.crt"), "--state-file", l.stateFile(),
		"--heartbeat-timeout", "5s"}
	var err error
	l.agent, err = l.e.procs.start("vm-agent "+vmName, l.agentLog(), l.vm.Command(l.e.bins["vm-agent"], args...))
	return err
}
