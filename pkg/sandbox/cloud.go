package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	fednames "antreaplus.io/antreaplus/pkg/federation/names"
	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/agenttoken"
)

// CloudPorts are the loopback ports of a sandbox's local cloud: the
// emulator's AWS (plain HTTP) and Azure (HTTPS) endpoints, and the cloud
// controller's metrics and health endpoints. They follow the DNS ports.
type CloudPorts struct {
	AWS, Azure, Metrics, Health int
	// Policy is the policy controller's distribution API (HTTPS).
	Policy int
}

// cloudPortOffset puts the cloud's ports above the DNS ports.
const cloudPortOffset = dnsPortOffset + 3

// cloudPorts is how many ports CloudPorts holds.
const cloudPorts = 5

// PlanCloud lays out the cloud ports of a sandbox whose member-1 API server
// listens on apiPortBase.
func PlanCloud(apiPortBase int) CloudPorts {
	b := apiPortBase + cloudPortOffset
	return CloudPorts{AWS: b, Azure: b + 1, Metrics: b + 2, Health: b + 3, Policy: b + 4}
}

// CloudOptions shape a sandbox's local cloud.
type CloudOptions struct {
	// Cluster imports the cloud (its context); default member-1.
	Cluster string
	// Emulator and Controller are the cloud-emulator and cloud-controller
	// executables; PolicyController, when set, is run too, and the cloud
	// controller enforces the policies of agentless VMs with the emulator's
	// security groups.
	Emulator, Controller, PolicyController string
	// Namespace holds the accounts, selectors and imported objects.
	Namespace string
	// PollInterval is how often the controller polls the emulator (it
	// overrides the accounts' pollIntervalSeconds, whose minimum is 30).
	PollInterval time.Duration
}

// CloudDir holds the emulator's state (ca.pem, cloud.yaml) and the cloud
// processes' pid files and logs.
func (s *Sandbox) CloudDir() string { return filepath.Join(s.opts.Dir, "cloud") }

func (s *Sandbox) cloudEmulator() process {
	return process{dir: s.CloudDir(), name: "cloud-emulator", what: "the cloud emulator"}
}

func (s *Sandbox) policyController() process {
	return process{dir: s.CloudDir(), name: "policy-controller", what: "the policy controller"}
}

func (s *Sandbox) cloudController() process {
	return process{dir: s.CloudDir(), name: "cloud-controller", what: "the cloud controller"}
}

// CloudManifests is the file of the namespace, Secrets, accounts and
// selectors that point at the emulator.
func (s *Sandbox) CloudManifests() string { return filepath.Join(s.CloudDir(), "cloud.yaml") }

// StartCloud runs the local cloud: the emulator (AWS and Azure, seeded with
// two VPCs/VNets of VMs each), the cloud controller against opts.Cluster,
// and applies the emulator's accounts and selectors there. Safe to re-run.
func (s *Sandbox) StartCloud(ctx context.Context, opts CloudOptions) error {
	st, err := s.LoadState()
	if err != nil {
		return fmt.Errorf("no sandbox: %w", err)
	}
	if opts.Cluster == "" {
		opts.Cluster = ClusterName(1)
	}
	if opts.Namespace == "" {
		opts.Namespace = "cloud-demo"
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = 10 * time.Second
	}
	found := false
	for _, p := range st.Clusters {
		found = found || p.Name == opts.Cluster
	}
	if !found {
		return fmt.Errorf("the sandbox has no cluster %q to import the cloud into", opts.Cluster)
	}
	ports := PlanCloud(st.Clusters[0].APIServerPort)
	emu := s.cloudEmulator()
	if emu.pid() == 0 {
		for _, port := range []int{ports.AWS, ports.Azure} {
			if err := checkPortFree(port); err != nil {
				return fmt.Errorf("the cloud emulator: %w", err)
			}
		}
		// cloud.yaml is written once the endpoints listen: a fresh one says the emulator is up.
		_ = os.Remove(s.CloudManifests())
		pid, _, err := emu.start(opts.Emulator,
			"--aws-addr", loopback(ports.AWS), "--azure-addr", loopback(ports.Azure),
			"--state-dir", s.CloudDir(), "--namespace", opts.Namespace)
		if err != nil {
			return err
		}
		if err := waitFile(ctx, s.CloudManifests(), 30*time.Second); err != nil {
			return fmt.Errorf("the cloud emulator did not come up (%w): see %s", err, emu.logFile())
		}
		s.logf("cloud emulator: AWS on %s, Azure on %s (pid %d, log %s)", loopback(ports.AWS), loopback(ports.Azure), pid, emu.logFile())
	}
	args := []string{"--kubeconfig", s.KubeconfigPath(), "--context", opts.Cluster,
		"--cloud-ca-file", filepath.Join(s.CloudDir(), "ca.pem"), "--poll-interval-override", opts.PollInterval.String(),
		"--metrics-bind-address", loopback(ports.Metrics), "--health-probe-bind-address", loopback(ports.Health)}
	if opts.PolicyController != "" {
		policyArgs, err := s.startPolicyController(ctx, opts, ports)
		if err != nil {
			return err
		}
		args = append(args, policyArgs...)
	}
	ctl := s.cloudController()
	pid, started, err := ctl.start(opts.Controller, args...)
	if err != nil {
		return err
	}
	if started {
		s.logf("%s: cloud controller running (pid %d, log %s)", opts.Cluster, pid, ctl.logFile())
	}
	tools, err := s.tools(ctx)
	if err != nil {
		return err
	}
	apply := exec.CommandContext(ctx, tools.Path("kubectl"), "--kubeconfig", s.KubeconfigPath(), "--context", opts.Cluster,
		"apply", "-f", s.CloudManifests())
	if out, err := apply.CombinedOutput(); err != nil {
		return fmt.Errorf("applying %s to %s: %w\n%s", s.CloudManifests(), opts.Cluster, err, out)
	}
	s.logf("%s: cloud accounts and selectors applied in namespace %s (%s)", opts.Cluster, opts.Namespace, s.CloudManifests())
	st.Cloud = &CloudState{Cluster: opts.Cluster, Namespace: opts.Namespace, Ports: ports}
	return s.saveState(st)
}

// CloudState is what the state records of a sandbox's local cloud.
type CloudState struct {
	Cluster   string     `json:"cluster"`
	Namespace string     `json:"namespace"`
	Ports     CloudPorts `json:"ports"`
}

// startPolicyController runs the policy controller in the cloud's cluster,
// waits for the agentless consumer's token, and returns the cloud
// controller's flags to enforce agentless VMs' policies.
func (s *Sandbox) startPolicyController(ctx context.Context, opts CloudOptions, ports CloudPorts) ([]string, error) {
	cfg, err := s.restConfig(opts.Cluster)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fednames.Namespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating namespace %s in %s: %w", fednames.Namespace, opts.Cluster, err)
	}
	certDir := filepath.Join(s.CloudDir(), "policy-certs")
	pc := s.policyController()
	pid, started, err := pc.start(opts.PolicyController, "--kubeconfig", s.KubeconfigPath(), "--context", opts.Cluster,
		"--listen-address", loopback(ports.Policy), "--cert-dir", certDir, "--tls-san", "127.0.0.1,localhost")
	if err != nil {
		return nil, err
	}
	if started {
		s.logf("%s: policy controller serving https://%s (pid %d, log %s)", opts.Cluster, loopback(ports.Policy), pid, pc.logFile())
	}
	tokenFile := filepath.Join(s.CloudDir(), "agentless-token")
	deadline := time.Now().Add(60 * time.Second)
	for {
		sec, err := cs.CoreV1().Secrets(fednames.Namespace).Get(ctx, agenttoken.AgentlessSecretName, metav1.GetOptions{})
		if err == nil && len(sec.Data[policydistribution.TokenKey]) > 0 {
			if err := os.WriteFile(tokenFile, sec.Data[policydistribution.TokenKey], 0o600); err != nil {
				return nil, err
			}
			break
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("the Secret holds no token")
			}
			return nil, fmt.Errorf("the policy controller made no agentless token in 60s (%w): see %s", err, pc.logFile())
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	if err := waitFile(ctx, filepath.Join(certDir, "ca.crt"), 30*time.Second); err != nil {
		return nil, err
	}
	return []string{"--policy-server", "https://" + loopback(ports.Policy), "--policy-token-file", tokenFile,
		"--policy-ca-file", filepath.Join(certDir, "ca.crt"), "--agentless-resync-interval", "30s"}, nil
}

func (s *Sandbox) stopCloud() error {
	return errors.Join(s.cloudController().stop(syscall.SIGTERM), s.policyController().stop(syscall.SIGTERM), s.cloudEmulator().stop(syscall.SIGTERM))
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// waitFile waits until path exists.
func waitFile(ctx context.Context, path string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not written after %s", path, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
