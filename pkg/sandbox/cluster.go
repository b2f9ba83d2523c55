package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"antreaplus.io/antreaplus/internal/crdinstall"
	"antreaplus.io/antreaplus/pkg/toolchain"
)

// kwokDir is kwokctl's work directory (KWOK_WORKDIR) inside the sandbox.
func (s *Sandbox) kwokDir() string { return filepath.Join(s.opts.Dir, "kwok") }

// ClusterDir holds one cluster's kwokctl files: its configuration, pids and logs.
func (s *Sandbox) ClusterDir(name string) string {
	return filepath.Join(s.kwokDir(), "clusters", name)
}

// LogDir holds one cluster's component logs.
func (s *Sandbox) LogDir(name string) string { return filepath.Join(s.ClusterDir(name), "logs") }

func (s *Sandbox) clusterKubeconfig(name string) string {
	return filepath.Join(s.ClusterDir(name), "kubeconfig.yaml")
}

// RESTConfig returns an admin client configuration for one cluster.
func (s *Sandbox) RESTConfig(name string) (*rest.Config, error) { return s.restConfig(name) }

// restConfig returns an admin client configuration for one cluster.
// clientset is the admin configuration and clientset of a cluster.
func (s *Sandbox) clientset(name string) (*rest.Config, *kubernetes.Clientset, error) {
	cfg, err := s.restConfig(name)
	if err != nil {
		return nil, nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	return cfg, cs, err
}

func (s *Sandbox) restConfig(name string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", s.clusterKubeconfig(name))
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig of %s: %w", name, err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	return cfg, nil
}

// ensureCluster starts one cluster unless it already answers, then makes
// sure its nodes and CRDs are there.
func (s *Sandbox) ensureCluster(ctx context.Context, tools toolchain.Toolchain, p ClusterPlan) error {
	started := time.Now()
	dead := s.deadComponents(p.Name)
	switch {
	case len(dead) == 0 && s.answers(ctx, p.Name):
		s.logf("%s: already running", p.Name)
	case len(dead) > 0 && allRestartable(dead) && s.answers(ctx, p.Name):
		// A controller manager or scheduler that lost its Lease exits:
		// nothing else restarts it. Its API server is fine: it alone starts.
		s.logf("%s: %s exited; starting it again ...", p.Name, strings.Join(dead, ", "))
		_, cs, err := s.clientset(p.Name)
		if err != nil {
			return err
		}
		if _, err := s.restartExited(ctx, p.Name, cs); err != nil {
			return err
		}
	case dirExists(s.ClusterDir(p.Name)):
		if len(dead) > 0 {
			// A controller manager or scheduler that lost its Lease exits:
			// nothing else restarts it.
			s.logf("%s: %s exited; restarting the cluster ...", p.Name, strings.Join(dead, ", "))
		} else {
			s.logf("%s: not answering; restarting it ...", p.Name)
		}
		// Stop what is left of it first: a component that survived holds its port.
		leftover := s.pids(p.Name)
		_ = s.kwokctl(ctx, tools, "stop", "cluster", "--name", p.Name)
		if err := killAll(leftover); err != nil {
			return fmt.Errorf("%s: stopping its remaining processes: %w", p.Name, err)
		}
		if err := waitPortsFree(ctx, p, 5*time.Second); err != nil {
			return fmt.Errorf("%s cannot start: %w", p.Name, err)
		}
		if err := s.kwokctl(ctx, tools, "start", "cluster", "--name", p.Name, "--timeout", "90s", "--wait", "60s"); err != nil {
			return s.startFailure(p.Name, err)
		}
	default:
		if err := checkPortsFree(p); err != nil {
			return fmt.Errorf("%s cannot start: %w", p.Name, err)
		}
		s.logf("%s: starting (Pod CIDR %s, Service CIDRs %s, API server port %d) ...", p.Name, p.PodCIDR, serviceRanges(p), p.APIServerPort)
		config := filepath.Join(s.opts.Dir, p.Name+".kwokctl.yaml")
		if err := os.WriteFile(config, kwokctlConfig(p, s.light), 0o600); err != nil {
			return fmt.Errorf("%s: writing kwokctl configuration: %w", p.Name, err)
		}
		if err := s.kwokctl(ctx, tools, createArgs(tools, p, config, s.clusterKubeconfig(p.Name)+".user", s.light)...); err != nil {
			return s.startFailure(p.Name, err)
		}
	}
	cfg, err := s.restConfig(p.Name)
	if err != nil {
		return err
	}
	if err := ensureNodes(ctx, cfg, p, s.opts.NodesPerCluster, s.light); err != nil {
		return fmt.Errorf("%s: creating simulated nodes: %w", p.Name, err)
	}
	if err := crdinstall.InstallAll(ctx, cfg); err != nil {
		return fmt.Errorf("%s: installing CRDs: %w", p.Name, err)
	}
	if s.light {
		_, cs, err := s.clientset(p.Name)
		if err != nil {
			return err
		}
		if err := fillFederationToken(ctx, cs); err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		s.logf("%s: ready (light: %d nodes written Ready, CRDs installed, the federation account's token written) in %s", p.Name, s.opts.NodesPerCluster, time.Since(started).Round(100*time.Millisecond))
		return nil
	}
	// (Three times at most: one that exits for another reason says why in
	// its log, quoted below.)
	restarts := 0
	heal := func(ctx context.Context, cs kubernetes.Interface) error {
		if restarts >= 3 {
			return nil
		}
		started, err := s.restartExited(ctx, p.Name, cs)
		restarts += len(started)
		if len(started) > 0 {
			s.logf("%s: %s exited before its API server was healthy; started it again", p.Name, strings.Join(started, ", "))
		}
		return err
	}
	if err := waitControllers(ctx, cfg, controllersTimeout, heal); err != nil {
		// The log's end says why (it goes with the sandbox's directory).
		logTail := ""
		if raw, rerr := os.ReadFile(filepath.Join(s.LogDir(p.Name), "kube-controller-manager.log")); rerr == nil {
			logTail = "\n  the end of its kube-controller-manager.log:\n    " + strings.ReplaceAll(tail(string(raw), 12), "\n", "\n    ")
		}
		if dead := s.deadComponents(p.Name); len(dead) > 0 {
			err = fmt.Errorf("%w (exited: %s)", err, strings.Join(dead, ", "))
		}
		return fmt.Errorf("%s: %w\n  its logs are in %s%s", p.Name, err, s.LogDir(p.Name), logTail)
	}
	s.logf("%s: ready (%d nodes, CRDs installed) in %s", p.Name, s.opts.NodesPerCluster, time.Since(started).Round(100*time.Millisecond))
	return nil
}

func (s *Sandbox) startFailure(name string, err error) error {
	return fmt.Errorf("cluster %s failed to start: %w\n  its logs are in %s", name, err, s.LogDir(name))
}

// createArgs are the kwokctl arguments that create one cluster from the
// cached binaries, with the cluster's own CIDRs, RBAC and admission on.
// A light member's (light.go) controller manager, scheduler and kwok
// controller are not started, and get no arguments.
func createArgs(tools toolchain.Toolchain, p ClusterPlan, config, userKubeconfig string, light bool) []string {
	args := []string{
		"create", "cluster",
		"--config", config,
		"--name", p.Name,
		"--runtime", "binary",
		"--kube-apiserver-binary", tools.Path("kube-apiserver"),
		"--kube-controller-manager-binary", tools.Path("kube-controller-manager"),
		"--kube-scheduler-binary", tools.Path("kube-scheduler"),
		"--kwok-controller-binary", tools.Path("kwok"),
		"--etcd-binary", tools.Path("etcd"),
		"--kube-apiserver-port", strconv.Itoa(p.APIServerPort),
		"--etcd-port", strconv.Itoa(p.ComponentPorts.Etcd),
		"--kube-controller-manager-port", strconv.Itoa(p.ComponentPorts.ControllerManager),
		"--kube-scheduler-port", strconv.Itoa(p.ComponentPorts.Scheduler),
		"--controller-port", strconv.Itoa(p.ComponentPorts.Kwok),
		"--kube-authorization=true",
		"--kube-admission=true",
		"--disable-qps-limits",
		"--kubeconfig", userKubeconfig,
		"--timeout", "120s",
		"--wait", "60s",
	}
	extra := []string{
		"kube-apiserver=service-cluster-ip-range=" + serviceRanges(p),
		// A sandbox is disposable: etcd need not wait for the disk on every
		// write (after a machine crash, recreate the sandbox).
		"etcd=unsafe-no-fsync=true",
	}
	if light {
		args = append(args, "--disable", strings.Join(lightDisabled, ","))
	} else {
		extra = append(extra,
			"kube-controller-manager=service-cluster-ip-range="+p.ServiceCIDR.String(),
			"kube-controller-manager=allocate-node-cidrs=true",
			"kube-controller-manager=cluster-cidr="+p.PodCIDR.String(),
			"kube-controller-manager=node-cidr-mask-size=24",
			"kwok-controller=cidr="+p.PodCIDR.String(),
		)
	}
	for _, e := range extra {
		args = append(args, "--extra-args", e)
	}
	return args
}

// kwokctlConfig carries what kwokctl takes only from a configuration file:
// the etcd peer port, and the kubernetes Service's ClusterIP (the first of
// the Service range) among the API server certificate's names, as a real
// cluster's has it: Pods of the as-installed sandbox dial it
// (KUBERNETES_SERVICE_HOST).
//
// It carries the API server's Priority and Fairness too, and the leader election of the controller manager and the
// scheduler (kwokctl 0.7's --extra-args panics when a component other than
// the first given takes two). Each is alone, yet keeps its election: losing
// the Lease when its API server goes away makes it exit, and `up` restarts
// it with fresh informers (without it, they outlived an outage blind for up
// to a minute). The Lease is held long, though: with the defaults (renewal
// given up after 10 s) a controller manager whose API server stalls longer
// exits, as on two cores shared with a test suite's other clusters, and
// then nothing fills token Secrets or deletes Namespaces until the next `up`.
//
// A full member's kwok controller plays one Pod stage at a time
// (kwokPodStagesSerial).
func kwokctlConfig(p ClusterPlan, light bool) []byte {
	controllers := fmt.Sprintf(`- name: kube-controller-manager
  extraArgs:%[1]s
- name: kube-scheduler
  extraArgs:%[1]s
%[2]s`, leaderElectionArgs, kwokPodStagesSerial)
	if light {
		controllers = ""
	}
	return []byte(fmt.Sprintf(`apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
options:
  etcdPeerPort: %d
  kubeApiserverCertSANs:
  - %s
componentsPatches:
- name: kube-apiserver
  extraArgs:%s
%s`, p.ComponentPorts.EtcdPeer, p.ServiceCIDR.Masked().Addr().Next(), priorityAndFairnessArgs, controllers))
}

// priorityAndFairnessArgs turn API Priority and Fairness on, with the API
// server's default concurrency, as in a real cluster: kwokctl's
// --disable-qps-limits (which lifts the controllers' client-side limits)
// also turns it off, and the federation's FlowSchema (its election at the
// leader-election priority level) would then be stored but never applied.
// Appended after kwokctl's own arguments: the last value of a flag wins.
const priorityAndFairnessArgs = `
  - key: enable-priority-and-fairness
    value: "true"
  - key: max-requests-inflight
    value: "400"
  - key: max-mutating-requests-inflight
    value: "200"`

// kwokPodStagesSerial is a KwokConfiguration document: its kwok controller
// plays one Pod stage at a time rather than four. kwok 0.7 makes a node's
// pool of Pod IPs when it first gives one out, and two workers giving the
// first IPs of a node at once can each make a pool of their own: two Pods
// then get the node's first address. (The likely cause when the sandbox's
// CoreDNS and federation manager, the first two Pods of a fresh node, got
// one address and the DNS Service's traffic went to the manager: no kwok
// controller had restarted, the other way kwok gives an address twice;
// see ownPodIPs.)
// The sandbox's members run a handful of Pods; playing them one by one
// costs nothing noticeable.
const kwokPodStagesSerial = `---
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  podPlayStageParallelism: 1
`

// leaderElectionArgs hold a lone controller manager's or scheduler's Lease
// through an API server that stalls for up to 45 s.
const leaderElectionArgs = `
  - key: leader-elect-lease-duration
    value: 60s
  - key: leader-elect-renew-deadline
    value: 45s`

// kwokctl runs kwokctl with the sandbox's work directory; its output is kept
// for the error message.
func (s *Sandbox) kwokctl(ctx context.Context, tools toolchain.Toolchain, args ...string) error {
	cmd := exec.CommandContext(ctx, tools.Path("kwokctl"), args...)
	cmd.Env = append(os.Environ(),
		"KWOK_WORKDIR="+s.kwokDir(),
		"PATH="+tools.Dir+string(os.PathListSeparator)+os.Getenv("PATH"),
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kwokctl %s: %w\n%s", strings.Join(args[:2], " "), err, tail(out.String(), 15))
	}
	return nil
}

func dirExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return "  " + strings.Join(parts, "\n  ")
}

// serviceRanges is the API server's --service-cluster-ip-range: IPv4, and
// IPv6 after it for a dual-stack cluster.
func serviceRanges(p ClusterPlan) string {
	if p.ServiceCIDR6.IsValid() {
		return p.ServiceCIDR.String() + "," + p.ServiceCIDR6.String()
	}
	return p.ServiceCIDR.String()
}
