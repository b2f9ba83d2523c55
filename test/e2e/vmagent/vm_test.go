package vmagent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/agenttoken"
	"antreaplus.io/antreaplus/test/framework"
)

// vm is an agented VM: a network namespace on the lab's bridge, its
// VirtualMachine and ExternalEntity in a Kubernetes namespace, and its
// agent process.
type vm struct {
	lab       *lab
	namespace string
	name, ip  string
	ns        *netns.NS
	dir       string
	agent     *process
}

// addVM creates a VM whose ExternalEntity carries labels, and waits for
// its token.
func (l *lab) addVM(c client.Client, namespace, name string, labels map[string]string) *vm {
	l.t.Helper()
	v := &vm{lab: l, namespace: namespace, name: name, ip: l.subnet + strconv.Itoa(int(l.hosts.Add(1))),
		dir: filepath.Join(l.dir, "vm-"+name)}
	var err error
	if v.ns, err = l.attach(name, v.ip); err != nil {
		l.t.Fatal(err)
	}
	if err := os.MkdirAll(v.dir, 0o700); err != nil {
		l.t.Fatal(err)
	}
	l.vms = append(l.vms, v)
	create(l.t, c, virtualMachine(namespace, name), externalEntity(namespace, name, v.ip, labels))
	framework.Eventually(l.t, 30*time.Second, func() error {
		s := &corev1.Secret{}
		if err := c.Get(context.Background(), types.NamespacedName{Namespace: namespace, Name: agenttoken.SecretName(name)}, s); err != nil {
			return err
		}
		return os.WriteFile(v.tokenFile(), s.Data[policyv1alpha1.TokenSecretKey], 0o600)
	})
	return v
}

func (v *vm) tokenFile() string { return filepath.Join(v.dir, "token") }
func (v *vm) stateFile() string { return filepath.Join(v.dir, "state.json") }

func (v *vm) token() string {
	raw, _ := os.ReadFile(v.tokenFile())
	return string(raw)
}

// startAgent runs the vm-agent inside the VM's namespace.
func (v *vm) startAgent() {
	v.lab.t.Helper()
	_, agent := binaries(v.lab.t)
	args := []string{"--server", v.lab.serverURL(), "--token-file", v.tokenFile(),
		"--ca-file", filepath.Join(v.lab.certDir(), "ca.crt"), "--state-file", v.stateFile(),
		"--heartbeat-timeout", "3s", "--report-interval", "3s", "-v", "2"}
	v.agent = startProcess(v.lab.t, "vm-agent "+v.name, filepath.Join(v.dir, "agent.log"), v.ns.Command(agent, args...))
}

// serve echoes TCP and UDP on ports of the VM's address.
func (v *vm) serve(tcp []int, udp []int) {
	v.lab.t.Helper()
	for _, p := range tcp {
		if err := v.lab.echo.TCP(v.ns, net.JoinHostPort(v.ip, strconv.Itoa(p))); err != nil {
			v.lab.t.Fatal(err)
		}
	}
	for _, p := range udp {
		if err := v.lab.echo.UDP(v.ns, net.JoinHostPort(v.ip, strconv.Itoa(p))); err != nil {
			v.lab.t.Fatal(err)
		}
	}
}

// agentStatus returns what the controller's /agents page says of the VM.
func (v *vm) agentStatus() (policydistribution.AgentStatus, error) {
	resp, err := v.lab.httpClient(v.lab.ctl, "").Get("http://127.0.0.1:" + metricsPort + "/agents")
	if err != nil {
		return policydistribution.AgentStatus{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	var all []policydistribution.AgentStatus
	if err := json.NewDecoder(resp.Body).Decode(&all); err != nil {
		return policydistribution.AgentStatus{}, err
	}
	for _, a := range all {
		if a.VirtualMachine == v.namespace+"/"+v.name {
			return a, nil
		}
	}
	return policydistribution.AgentStatus{}, fmt.Errorf("no agent status for %s/%s", v.namespace, v.name)
}

// metrics returns the controller's policy distribution metrics, as
// "name{labels} value" lines.
func (l *lab) metrics() []string {
	resp, err := l.httpClient(l.ctl, "").Get("http://127.0.0.1:" + metricsPort + "/metrics")
	if err != nil {
		return []string{err.Error()}
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "antreaplus_policydistribution_") && !strings.Contains(line, "_bucket{") {
			out = append(out, line)
		}
	}
	return out
}

// waitRealized waits until the VM's agent reports enforcing the newest
// change of its rules.
func (v *vm) waitRealized(t *testing.T) policydistribution.AgentStatus {
	t.Helper()
	var st policydistribution.AgentStatus
	framework.Eventually(t, 30*time.Second, func() error {
		var err error
		if st, err = v.agentStatus(); err != nil {
			return err
		}
		if !st.Connected || st.Behind {
			return fmt.Errorf("agent of %s: connected %v, behind %v", v.name, st.Connected, st.Behind)
		}
		return nil
	})
	return st
}
