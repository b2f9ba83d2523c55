package services

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/test/framework"
)

// startMemberControllers builds cmd/member-controller and runs it against
// every cluster. The processes die with the test process (parent-death
// signal), and their pid files sit with the federation managers' so that
// the sandbox's clean-up stops them too.
func startMemberControllers(c *framework.Clusters) error {
	bin, err := framework.Binary("member-controller")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.Sandbox.ManagerDir(), 0o755); err != nil {
		return err
	}
	for _, name := range c.Names {
		if err := startMemberController(c.Sandbox, bin, name); err != nil {
			return err
		}
	}
	return nil
}

func startMemberController(sb *sandbox.Sandbox, bin, cluster string) error {
	id := cluster + "-member-controller"
	logFile, err := os.OpenFile(filepath.Join(sb.ManagerDir(), id+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.Command(bin, "--kubeconfig", sb.KubeconfigPath(), "--context", cluster)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the member controller of %s: %w", cluster, err)
	}
	pid := cmd.Process.Pid
	go func() { _ = cmd.Wait() }()
	if err := os.WriteFile(filepath.Join(sb.ManagerDir(), id+".pid"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return err
	}
	time.Sleep(200 * time.Millisecond)
	if !sandbox.Alive(pid) {
		return fmt.Errorf("the member controller of %s exited at once: see %s", cluster, logFile.Name())
	}
	return nil
}

// giveNodesAddresses plays the kubelet for the sandbox's simulated nodes,
// which kwok starts with a host name only: each node without an IP gets the
// InternalIP 172.31.<cluster>.<node>.
func giveNodesAddresses(c *framework.Clusters) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := scheme.New()
	if err != nil {
		return err
	}
	for ci, name := range c.Names {
		cfg, err := c.Sandbox.RESTConfig(name)
		if err != nil {
			return err
		}
		cl, err := client.New(cfg, client.Options{Scheme: s})
		if err != nil {
			return err
		}
		nodes := &corev1.NodeList{}
		if err := cl.List(ctx, nodes); err != nil {
			return fmt.Errorf("listing the nodes of %s: %w", name, err)
		}
		sort.Slice(nodes.Items, func(i, j int) bool { return nodes.Items[i].Name < nodes.Items[j].Name })
		for ni := range nodes.Items {
			n := &nodes.Items[ni]
			if hasIP(n) {
				continue
			}
			addr := corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("172.31.%d.%d", ci+1, ni+1)}
			// kwok writes the node's status too: re-read and retry on conflict.
			err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
				if err := cl.Get(ctx, client.ObjectKeyFromObject(n), n); err != nil {
					return err
				}
				n.Status.Addresses = append(n.Status.Addresses, addr)
				return cl.Status().Update(ctx, n)
			})
			if err != nil {
				return fmt.Errorf("giving node %s of %s an address: %w", n.Name, name, err)
			}
		}
	}
	return nil
}

func hasIP(n *corev1.Node) bool {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP || a.Type == corev1.NodeExternalIP {
			return true
		}
	}
	return false
}
