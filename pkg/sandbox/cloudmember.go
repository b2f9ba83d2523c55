package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/install"
	"antreaplus.io/antreaplus/pkg/policydistribution/agenttoken"
)

func (s *Sandbox) policyController(cluster string) process {
	return process{dir: s.CloudDir(), name: cluster + ".policy-controller", what: "the policy controller of " + cluster}
}

func (s *Sandbox) cloudController(cluster string) process {
	return process{dir: s.CloudDir(), name: cloudControllerName(cluster), what: "the cloud controller of " + cluster}
}

// cloudControllerName names the pid and log files of a member's cloud
// controller (with --tenancy, of the shared instance's first replica).
func cloudControllerName(cluster string) string { return cluster + ".cloud-controller" }

// PolicyCertDir holds the self-signed CA (ca.crt, which VM agents trust)
// and serving certificate of a member's policy controller.
func (s *Sandbox) PolicyCertDir(cluster string) string {
	return filepath.Join(s.CloudDir(), cluster+".policy-certs")
}

// startCloudMember runs a cloud member's policy controller (if any) and
// cloud controller, and applies its clouds' accounts and selectors. With
// ten (the member holds the tenants), it makes the tenants' Namespaces,
// runs the tenancy cloud controllers instead of the one, waits until each
// has announced itself and applies the tenants' accounts too.
func (s *Sandbox) startCloudMember(ctx context.Context, opts CloudOptions, m CloudMember, ten *TenancyState) error {
	common := []string{"--kubeconfig", s.KubeconfigPath(), "--context", m.Cluster,
		"--cloud-ca-file", filepath.Join(s.CloudDir(), "ca.pem"), "--poll-interval-override", opts.PollInterval.String()}
	var policyArgs []string
	if opts.PolicyController != "" {
		var err error
		if policyArgs, err = s.startPolicyController(ctx, opts, m); err != nil {
			return err
		}
	}
	if ten != nil {
		if err := s.ensureTenantNamespaces(ctx, m.Cluster, ten.Tenants); err != nil {
			return err
		}
	}
	for _, c := range memberControllers(m, ten) {
		ctl := s.cloudControllerProcess(m.Cluster, c)
		pid, started, err := ctl.start(opts.Controller, cloudControllerArgs(common, policyArgs, c)...)
		if err != nil {
			return err
		}
		if started && c.Instance != "" {
			s.logf("%s: cloud controller %s running (pid %d, log %s)", m.Cluster, c.Holder(), pid, ctl.logFile())
		} else if started {
			s.logf("%s: cloud controller running (pid %d, log %s)", m.Cluster, pid, ctl.logFile())
		}
	}
	if ten != nil {
		// Every replica plans with the others from the start: no tenant
		// moves between them once the accounts appear.
		if err := s.waitTenancyReplicas(ctx, m.Cluster, ten.Controllers, 60*time.Second); err != nil {
			return err
		}
	}
	return s.applyAccounts(ctx, opts, m, ten)
}

// installCloudMember upgrades a cloud member's release with the cloud
// role (its cloud controller is a Pod RunInstalled plays) and applies its
// clouds' accounts and selectors.
func (s *Sandbox) installCloudMember(ctx context.Context, st *State, opts CloudOptions, m CloudMember) error {
	for _, p := range st.Clusters {
		if p.Name == m.Cluster {
			roles := append(installedRoles(st, p.Name, st.Supervisors), install.RoleCloud)
			if err := s.installRelease(ctx, p, slices.Compact(roles), true); err != nil {
				return err
			}
		}
	}
	return s.applyAccounts(ctx, opts, m, nil)
}

// applyAccounts applies a cloud member's clouds' accounts and selectors,
// and the tenants' of ten (not nil when the member holds them).
func (s *Sandbox) applyAccounts(ctx context.Context, opts CloudOptions, m CloudMember, ten *TenancyState) error {
	tools, err := s.tools(ctx)
	if err != nil {
		return err
	}
	apply := []string{"--kubeconfig", s.KubeconfigPath(), "--context", m.Cluster, "apply"}
	var files []string
	for _, c := range m.Clouds {
		files = append(files, s.cloudManifest(c))
		apply = append(apply, "-f", s.cloudManifest(c))
	}
	clouds := slices.Clone(files)
	tenants := ten.TenantNamespaces()
	for _, t := range tenants {
		files = append(files, s.TenantManifest(t))
		apply = append(apply, "-f", s.TenantManifest(t))
	}
	if out, err := exec.CommandContext(ctx, tools.Path("kubectl"), apply...).CombinedOutput(); err != nil {
		return fmt.Errorf("applying %s to %s: %w\n%s", strings.Join(files, ", "), m.Cluster, err, out)
	}
	s.logf("%s: accounts %s applied in namespace %s (%s)", m.Cluster, strings.Join(m.Accounts, ", "), opts.Namespace, strings.Join(clouds, ", "))
	if len(tenants) > 0 {
		s.logf("%s: tenants %s, each with its account %s (%s)", m.Cluster, strings.Join(tenants, ", "), TenantAccount,
			strings.Join(files[len(clouds):], ", "))
	}
	return nil
}

// startPolicyController runs a member's policy controller, waits for the
// agentless consumer's token, and returns the cloud controller's flags to
// enforce agentless VMs' policies.
func (s *Sandbox) startPolicyController(ctx context.Context, opts CloudOptions, m CloudMember) ([]string, error) {
	_, cs, err := s.clientset(m.Cluster)
	if err != nil {
		return nil, err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.SystemNamespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating namespace %s in %s: %w", federationv1alpha1.SystemNamespace, m.Cluster, err)
	}
	certDir := s.PolicyCertDir(m.Cluster)
	pc := s.policyController(m.Cluster)
	args := []string{"--kubeconfig", s.KubeconfigPath(), "--context", m.Cluster,
		"--listen-address", loopback(m.Ports.Policy), "--cert-dir", certDir, "--tls-san", "127.0.0.1,localhost",
		// Agents report every 15 s; counts reach `antreaplus policy stats` within 20 s.
		"--stats-interval", "5s"}
	if dns := s.memberDNS(m.Cluster); dns != "" { // VM agents reach it through a relay at the same address
		args = append(args, "--dns-server", dns)
	}
	pid, started, err := pc.start(opts.PolicyController, args...)
	if err != nil {
		return nil, err
	}
	if started {
		s.logf("%s: policy controller serving %s (pid %d, log %s)", m.Cluster, m.PolicyServer, pid, pc.logFile())
	}
	tokenFile := filepath.Join(s.CloudDir(), m.Cluster+".agentless-token")
	if err := waitAgentlessToken(ctx, cs, tokenFile); err != nil {
		return nil, fmt.Errorf("the policy controller of %s made no agentless token in 60s (%w): see %s", m.Cluster, err, pc.logFile())
	}
	if err := waitFile(ctx, filepath.Join(certDir, "ca.crt"), 30*time.Second); err != nil {
		return nil, err
	}
	if err := waitTCP(ctx, loopback(m.Ports.Policy), 30*time.Second); err != nil {
		return nil, fmt.Errorf("the policy controller of %s: %w: see %s", m.Cluster, err, pc.logFile())
	}
	return []string{"--policy-server", m.PolicyServer, "--policy-token-file", tokenFile,
		"--policy-ca-file", filepath.Join(certDir, "ca.crt"), "--agentless-resync-interval", "30s"}, nil
}

// waitAgentlessToken waits up to 60 s for the policy controller's token of
// the agentless consumer, and writes it to tokenFile.
func waitAgentlessToken(ctx context.Context, cs kubernetes.Interface, tokenFile string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		sec, err := cs.CoreV1().Secrets(federationv1alpha1.SystemNamespace).Get(ctx, agenttoken.AgentlessSecretName, metav1.GetOptions{})
		if err == nil && len(sec.Data[policyv1alpha1.TokenSecretKey]) > 0 {
			return os.WriteFile(tokenFile, sec.Data[policyv1alpha1.TokenSecretKey], 0o600)
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("the Secret holds no token")
			}
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stopCloud stops every member's controllers, then the emulator.
func (s *Sandbox) stopCloud() error {
	var errs []error
	emu := s.cloudEmulator()
	for _, name := range processNames(s.CloudDir()) {
		if name != emu.name {
			p := process{dir: s.CloudDir(), name: name, what: name}
			errs = append(errs, p.stop(syscall.SIGTERM))
		}
	}
	return errors.Join(append(errs, emu.stop(syscall.SIGTERM))...)
}

// cloudServices lists, for Services, the cloud processes of cluster: the
// emulator (with the first cloud member), the member's policy and cloud
// controllers, and its VMs' processes.
func (s *Sandbox) cloudServices(ctx context.Context, cloud *CloudState, cluster string) []ServiceStatus {
	m, ok := cloud.Member(cluster)
	if !ok {
		return nil
	}
	var out []ServiceStatus
	add := func(kind, address string, p process, ready func() bool) {
		if ss, started := processStatus(cluster, kind, address, p, ready); started {
			out = append(out, ss)
		}
	}
	if cloud.Members[0].Cluster == cluster {
		add("cloud-emulator", fmt.Sprintf("aws %s, azure %s", loopback(cloud.Ports.AWS), loopback(cloud.Ports.Azure)), s.cloudEmulator(), nil)
	}
	add("policy-controller", m.PolicyServer, s.policyController(cluster), func() bool { return tcpAnswers(loopback(m.Ports.Policy)) })
	for _, c := range memberControllers(m, cloud.Tenancy) {
		address := strings.Join(m.Accounts, ", ")
		if c.Instance != "" {
			address = c.Holder()
		}
		ss, started := processStatus(cluster, "cloud-controller", address, s.cloudControllerProcess(cluster, c), func() bool {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			url := "http://" + loopback(c.Ports.Health) + "/readyz"
			if probe := s.podReadiness(cluster, "cloud-controller"); probe != "" { // a Pod (as installed)
				url = probe
			}
			return getOK(ctx, url) == nil
		})
		if started {
			if c.Instance != "" {
				ss.Replica = c.Holder()
			}
			out = append(out, ss)
		}
	}
	return append(out, s.vmServices(cluster)...)
}

// waitTCP waits until address accepts TCP connections.
func waitTCP(ctx context.Context, address string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for !tcpAnswers(address) {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not answer after %s", address, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// tcpAnswers reports whether address accepts a TCP connection.
func tcpAnswers(address string) bool {
	c, err := net.DialTimeout("tcp", address, time.Second)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}
