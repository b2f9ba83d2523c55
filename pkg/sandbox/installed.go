package sandbox

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/pkg/install"
	"antreaplus.io/antreaplus/pkg/policydistribution/controlplane"
	"antreaplus.io/antreaplus/pkg/toolchain"
)

// The as-installed sandbox (`antreaplus sandbox up --as-installed`)
// installs the chart into each cluster with pkg/install, as `antreaplus
// install` does, and plays each Deployment's Pod: the component runs with
// exactly the args, env, volumes, service account token and security
// context of the Pod the API server admitted, in a network namespace with
// the Pod's IP (see runPod). What a cluster's nodes would add, the sandbox
// plays: kube-proxy (the Services a Pod uses, relayed in its namespace),
// cluster DNS (the Services' names in its /etc/hosts), and a load balancer
// for the DNS and distribution Services at the addresses VMs and the demo
// use (the member's DNS address, the policy server of its VMs).

// installedOrder is the order a member's components start in: the policy
// controller makes the Secret the cloud controller mounts.
var installedOrder = []string{"member-controller", "policy-controller", "coredns", "federation-manager", "cloud-controller"}

// Secrets the sandbox writes before installing, as an operator provides
// them (e.g. with cert-manager): the policy controller's serving
// certificate and the cloud emulator's CA.
const (
	policyTLSSecret = "antreaplus-sandbox-policy-tls"
	cloudCASecret   = "antreaplus-sandbox-cloud-ca"
	cloudCAMount    = "/var/run/antreaplus/sandbox-cloud-ca"
)

// AsInstalledSupported fails, saying what to do, unless this process can
// play Pods: root, ip(8), nsenter(1) and unshare(1).
func AsInstalledSupported() error {
	if err := netns.Check("nsenter", "unshare"); err != nil {
		return fmt.Errorf("--as-installed plays each component's Pod in network and mount namespaces: %w", err)
	}
	return nil
}

// SetAsInstalled records that the sandbox runs its components as
// installed by the chart; a sandbox that runs them directly cannot switch.
func (s *Sandbox) SetAsInstalled(asInstalled bool) error {
	st, err := s.LoadState()
	if err != nil {
		return err
	}
	if st.AsInstalled == asInstalled {
		return nil
	}
	if !asInstalled {
		return nil // recorded once; a re-run without the flag goes on as installed
	}
	if st.FederationID != "" || st.Cloud != nil {
		return fmt.Errorf("the sandbox in %s runs its components directly: 'antreaplus sandbox down' first to start it --as-installed", s.opts.Dir)
	}
	st.AsInstalled = true
	return s.saveState(st)
}

// sandboxValues are the chart values the sandbox installs a cluster with,
// beside its roles: one DNS replica, the policy controller's certificate
// and the DNS address its VMs use, and for a cloud member the emulator's
// CA and the sandbox's poll intervals.
func sandboxValues(p ClusterPlan, cloud bool) map[string]any {
	policy := map[string]any{"tls": map[string]any{"secretName": policyTLSSecret}}
	if p.DNS.Port != 0 {
		policy["dnsServer"] = p.DNS.Endpoint()
	}
	v := map[string]any{
		"coredns":          map[string]any{"replicas": 1},
		"policyController": policy,
	}
	if cloud {
		v["cloud"] = map[string]any{"agentless": true}
		v["cloudController"] = map[string]any{
			"extraArgs":         []any{"--cloud-ca-file=" + cloudCAMount + "/ca.pem", "--poll-interval-override=10s", "--agentless-resync-interval=30s"},
			"extraVolumes":      []any{map[string]any{"name": "sandbox-cloud-ca", "secret": map[string]any{"secretName": cloudCASecret}}},
			"extraVolumeMounts": []any{map[string]any{"name": "sandbox-cloud-ca", "mountPath": cloudCAMount, "readOnly": true}},
		}
	}
	return v
}

// installRelease installs (or upgrades) the chart in a cluster with roles.
func (s *Sandbox) installRelease(ctx context.Context, p ClusterPlan, roles []install.Role, cloud bool) error {
	cfg, cs, err := s.clientset(p.Name)
	if err != nil {
		return err
	}
	if err := s.ensureSandboxSecrets(ctx, cs, p.Name, cloud); err != nil {
		return err
	}
	opts := install.Options{Roles: roles, Values: sandboxValues(p, cloud), Progress: io.Discard}
	_, err = cs.CoreV1().ConfigMaps(federationv1alpha1.SystemNamespace).Get(ctx, "antreaplus-release", metav1.GetOptions{})
	upgrade := err == nil
	var res *install.Result
	if upgrade {
		res, err = install.Upgrade(ctx, cfg, opts)
	} else {
		res, err = install.Install(ctx, cfg, opts)
	}
	if err != nil {
		return fmt.Errorf("installing the chart in %s: %w", p.Name, err)
	}
	verb := "installed"
	if upgrade {
		verb = "upgraded"
	}
	s.logf("%s: chart %s %s as %s (%d created, %d configured, %d unchanged, %d pruned) in %s", p.Name, res.Rendering.ChartVersion, verb,
		install.RoleList(roles), res.Created, res.Configured, res.Unchanged, res.Pruned, res.Duration.Round(time.Millisecond))
	return nil
}

// ensureSandboxSecrets writes the Secrets the sandbox's values name.
func (s *Sandbox) ensureSandboxSecrets(ctx context.Context, cs kubernetes.Interface, cluster string, cloud bool) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.SystemNamespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s in %s: %w", federationv1alpha1.SystemNamespace, cluster, err)
	}
	// The VMs' agents dial 127.0.0.1 in their namespaces; the cloud
	// controller dials the Service's name.
	dir := s.PolicyCertDir(cluster)
	svc := "antreaplus-policy-controller." + federationv1alpha1.SystemNamespace
	if _, err := controlplane.EnsureServingCert(dir, []string{"127.0.0.1", "localhost", svc, svc + ".svc", svc + ".svc.cluster.local"}); err != nil {
		return fmt.Errorf("the policy controller's certificate of %s: %w", cluster, err)
	}
	tls, err := readFiles(dir, map[string]string{"tls.crt": controlplane.CertFile, "tls.key": controlplane.KeyFile, "ca.crt": "ca.crt"})
	if err != nil {
		return err
	}
	if err := putSecret(ctx, cs, policyTLSSecret, corev1.SecretTypeTLS, tls); err != nil {
		return err
	}
	if !cloud {
		return nil
	}
	ca, err := readFiles(s.CloudDir(), map[string]string{"ca.pem": "ca.pem"})
	if err != nil {
		return err
	}
	return putSecret(ctx, cs, cloudCASecret, corev1.SecretTypeOpaque, ca)
}

func readFiles(dir string, keys map[string]string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for key, file := range keys {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return nil, err
		}
		out[key] = b
	}
	return out, nil
}

func putSecret(ctx context.Context, cs kubernetes.Interface, name string, typ corev1.SecretType, data map[string][]byte) error {
	api := cs.CoreV1().Secrets(federationv1alpha1.SystemNamespace)
	want := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: federationv1alpha1.SystemNamespace}, Type: typ, Data: data}
	have, err := api.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = api.Create(ctx, want, metav1.CreateOptions{})
	case err == nil:
		have.Data = data
		_, err = api.Update(ctx, have, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("writing Secret %s/%s: %w", federationv1alpha1.SystemNamespace, name, err)
	}
	return nil
}

// RunInstalled plays the Pods of every Deployment the chart installed in
// each cluster, restarting those whose Pod changed, then the load balancer
// of its Services. helper is this program (`sandbox relay`, `pod-exec`).
func (s *Sandbox) RunInstalled(ctx context.Context, helper string) error {
	st, err := s.LoadState()
	if err != nil {
		return err
	}
	for _, p := range st.Clusters {
		if err := s.runInstalledCluster(ctx, st, p, helper); err != nil {
			return err
		}
	}
	return nil
}

func (s *Sandbox) runInstalledCluster(ctx context.Context, st *State, p ClusterPlan, helper string) error {
	_, cs, err := s.clientset(p.Name)
	if err != nil {
		return err
	}
	ds, err := cs.AppsV1().Deployments(federationv1alpha1.SystemNamespace).List(ctx, metav1.ListOptions{LabelSelector: install.InstanceLabel + "=" + install.ReleaseName})
	if err != nil {
		return fmt.Errorf("listing the chart's Deployments in %s: %w", p.Name, err)
	}
	deployments := map[string]*appsv1.Deployment{}
	pods := map[string]*corev1.Pod{}
	for i := range ds.Items {
		d := &ds.Items[i]
		component := d.Spec.Template.Spec.Containers[0].Name
		pod, err := currentPod(ctx, cs, d)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		deployments[component], pods[component] = d, pod
	}
	if err := s.ownPodIPs(ctx, cs, p.Name, pods); err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	kube, err := cs.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading the kubernetes Service of %s: %w", p.Name, err)
	}
	svcs, err := cs.CoreV1().Services(federationv1alpha1.SystemNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing the Services of %s: %w", p.Name, err)
	}
	relays, hosts := podServices(st, p, kube, svcs.Items, pods)
	for _, component := range installedOrder {
		pod, ok := pods[component]
		if !ok {
			continue
		}
		binary, err := s.staticBinary(ctx, component)
		if err != nil {
			return err
		}
		ps := podStart{cluster: p.Name, component: component, binary: binary, helper: helper,
			env: podEnv{APIHost: kube.Spec.ClusterIP, APIPort: 443}, relays: podRelays(relays, pod), hosts: hosts}
		if err := s.runPod(ctx, cs, pod, ps); err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	// The DNS Pod's Corefile, where the direct sandbox keeps its own: it
	// also tells memberDNS that the member runs a DNS server.
	if _, ok := pods["coredns"]; ok {
		cm, err := cs.CoreV1().ConfigMaps(federationv1alpha1.SystemNamespace).Get(ctx, "antreaplus-coredns", metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading the DNS server's Corefile in %s: %w", p.Name, err)
		}
		if err := os.WriteFile(s.Corefile(p.Name), []byte(cm.Data["Corefile"]), 0o644); err != nil {
			return err
		}
	}
	return s.runLoadBalancer(ctx, st, p, pods, helper)
}

// staticBinary finds a program as FindBinary does, and, as the images hold
// them, statically linked: a Pod's root filesystem has no C library. A
// dynamically linked one (a race-detector build) is rebuilt without cgo
// into the sandbox directory when the repository is at hand.
func (s *Sandbox) staticBinary(ctx context.Context, name string) (string, error) {
	bin, err := s.FindBinary(ctx, name)
	if err != nil {
		return "", err
	}
	if static, err := isStatic(bin); err != nil || static {
		return bin, err
	}
	repo, err := toolchain.FindRepo()
	if err != nil {
		return "", fmt.Errorf("%s is dynamically linked and a Pod's root filesystem has no C library: build it with CGO_ENABLED=0 ('make build' does)", bin)
	}
	out := filepath.Join(s.opts.Dir, "bin-static", name)
	if static, err := isStatic(out); err == nil && static {
		return out, nil
	}
	s.logf("Building %s statically linked (CGO_ENABLED=0), as its image holds it ...", name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, SourcePackage(name))
	cmd.Dir, cmd.Env = repo, append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %w\n%s", name, err, msg)
	}
	return out, nil
}

// isStatic reports whether an executable has no program interpreter.
func isStatic(path string) (bool, error) {
	f, err := elf.Open(path)
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return false, nil
		}
	}
	return true, nil
}

// podServices are what every Pod of a cluster reaches through its relay,
// and its /etc/hosts: the kubernetes Service (the API server), the chart's
// Services (their Pods), and, at the same loopback addresses as on the
// host, every sandbox API server (the federation's kubeconfigs name them)
// and the cloud emulator (the accounts' endpoints).
func podServices(st *State, p ClusterPlan, kube *corev1.Service, svcs []corev1.Service, pods map[string]*corev1.Pod) ([]RelayPair, string) {
	relays := []RelayPair{{Listen: kube.Spec.ClusterIP + ":443", Forward: "127.0.0.1:" + strconv.Itoa(p.APIServerPort)}}
	var hosts strings.Builder
	hostLine := func(ip, name, ns string) {
		fmt.Fprintf(&hosts, "%s\t%s.%s.svc.cluster.local %s.%s.svc %s.%s\n", ip, name, ns, name, ns, name, ns)
	}
	hostLine(kube.Spec.ClusterIP, kube.Name, kube.Namespace)
	for _, svc := range svcs {
		if svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == corev1.ClusterIPNone || len(svc.Spec.Selector) == 0 {
			continue
		}
		sel := labels.SelectorFromSet(svc.Spec.Selector)
		for _, component := range installedOrder {
			pod := pods[component]
			if pod == nil || !sel.Matches(labels.Set(pod.Labels)) {
				continue
			}
			hostLine(svc.Spec.ClusterIP, svc.Name, svc.Namespace)
			for _, sp := range svc.Spec.Ports {
				if sp.Protocol != "" && sp.Protocol != corev1.ProtocolTCP {
					continue
				}
				port, err := containerPort(&pod.Spec.Containers[0], sp.TargetPort)
				if err != nil || port == 0 {
					port = int(sp.Port)
				}
				relays = append(relays, RelayPair{
					Listen:  joinHostPort(svc.Spec.ClusterIP, int(sp.Port)),
					Forward: joinHostPort(pod.Status.PodIP, port),
				})
			}
			break
		}
	}
	for _, c := range st.Clusters {
		a := "127.0.0.1:" + strconv.Itoa(c.APIServerPort)
		relays = append(relays, RelayPair{Listen: a, Forward: a})
	}
	if st.Cloud != nil {
		for _, port := range []int{st.Cloud.Ports.AWS, st.Cloud.Ports.Azure} {
			a := "127.0.0.1:" + strconv.Itoa(port)
			relays = append(relays, RelayPair{Listen: a, Forward: a})
		}
	}
	return relays, hosts.String()
}

// podRelays are the relays of one Pod: those of its cluster but for the
// ports its container listens on (on every address: a ClusterIP made local
// for them would clash; no component uses the Services of those ports,
// the metrics Services, which are for scrapers).
func podRelays(relays []RelayPair, pod *corev1.Pod) []RelayPair {
	own := map[string]bool{}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			own[strconv.Itoa(int(p.ContainerPort))] = true
		}
	}
	var out []RelayPair
	for _, r := range relays {
		host, port, _ := strings.Cut(r.Listen, ":")
		if host == "127.0.0.1" || !own[port] {
			out = append(out, r)
		}
	}
	return out
}

// loadBalancer is the host relay of a cluster's DNS and distribution
// Services.
func (s *Sandbox) loadBalancer(cluster string) process {
	return process{dir: filepath.Join(s.PodsDir(), cluster), name: "load-balancer", what: "the Service load balancer of " + cluster}
}

// runLoadBalancer relays, on the host, the member's DNS address to its DNS
// Pod (UDP and TCP, and the ready endpoint) and a cloud member's policy
// server address to its policy controller Pod; restarted when a Pod moved.
func (s *Sandbox) runLoadBalancer(ctx context.Context, st *State, p ClusterPlan, pods map[string]*corev1.Pod, helper string) error {
	var args []string
	if dns := pods["coredns"]; dns != nil && p.DNS.Port != 0 {
		ctr := &dns.Spec.Containers[0]
		port, err1 := containerPort(ctr, intstrName("dns"))
		ready, err2 := containerPort(ctr, intstrName("ready"))
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("%s: the DNS Pod: %w", p.Name, err)
		}
		args = append(args,
			"--udp", p.DNS.Endpoint()+"="+joinHostPort(dns.Status.PodIP, port),
			"--tcp", p.DNS.Endpoint()+"="+joinHostPort(dns.Status.PodIP, port),
			"--tcp", joinHostPort(p.DNS.Addr.String(), p.DNS.ReadyPort)+"="+joinHostPort(dns.Status.PodIP, ready))
	}
	if m, ok := st.Cloud.Member(p.Name); ok && pods["policy-controller"] != nil {
		pc := pods["policy-controller"]
		port, err := containerPort(&pc.Spec.Containers[0], intstrName("distribution"))
		if err != nil {
			return fmt.Errorf("%s: the policy controller Pod: %w", p.Name, err)
		}
		args = append(args, "--tcp", loopback(m.Ports.Policy)+"="+joinHostPort(pc.Status.PodIP, port))
	}
	lb := s.loadBalancer(p.Name)
	argsFile := filepath.Join(filepath.Dir(lb.pidFile()), "load-balancer.args")
	joined := strings.Join(args, " ")
	if have, err := os.ReadFile(argsFile); err == nil && string(have) == joined && lb.pid() != 0 {
		return nil
	}
	if err := lb.stop(syscall.SIGTERM); err != nil {
		return err
	}
	if len(args) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(argsFile), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(argsFile, []byte(joined), 0o644); err != nil {
		return err
	}
	ready := filepath.Join(filepath.Dir(lb.pidFile()), "load-balancer.ready")
	if err := os.Remove(ready); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	pid, _, err := lb.start(helper, append([]string{"sandbox", "relay", "--ready-file", ready}, args...)...)
	if err != nil {
		return err
	}
	if err := WaitRelayReady(ctx, ready, 2*time.Minute, func() bool { return Alive(pid) }); err != nil {
		return fmt.Errorf("%s: the Service load balancer: %w: see %s", p.Name, err, lb.logFile())
	}
	s.logf("%s: Service load balancer running (pid %d): %s", p.Name, pid, joined)
	if p.DNS.Port != 0 && pods["coredns"] != nil {
		if err := waitDNSReady(ctx, p); err != nil {
			return fmt.Errorf("%s: the DNS Service: %w", p.Name, err)
		}
	}
	return nil
}

// waitDNSReady waits up to 60 s for the member's DNS address to answer
// ready.
func waitDNSReady(ctx context.Context, p ClusterPlan) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := dnsReady(ctx, p)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stopPods stops every Pod process, relay and load balancer of the sandbox
// and deletes the Pods' namespaces (their veths go with them).
func (s *Sandbox) stopPods() error {
	var errs []error
	clusters, _ := filepath.Glob(filepath.Join(s.PodsDir(), "*"))
	for _, c := range clusters {
		for _, name := range processNames(c) {
			errs = append(errs, process{dir: c, name: name, what: name}.stop(syscall.SIGTERM))
		}
		comps, _ := filepath.Glob(filepath.Join(c, "*"))
		for _, d := range comps {
			for _, name := range processNames(d) {
				errs = append(errs, process{dir: d, name: name, what: name}.stop(syscall.SIGTERM))
			}
		}
	}
	base := podNetNSBase(s.opts.Dir)
	for _, ns := range netns.List(base) {
		if strings.HasPrefix(ns, base+"-") {
			errs = append(errs, deleteNetNS(ns))
		}
	}
	return errors.Join(errs...)
}

// InstallAll installs (or upgrades) the chart in every cluster with the
// roles it has in the sandbox: what `up --as-installed` does without a
// federation.
func (s *Sandbox) InstallAll(ctx context.Context) error {
	st, err := s.LoadState()
	if err != nil {
		return err
	}
	for _, p := range st.Clusters {
		_, cloud := st.Cloud.Member(p.Name)
		if err := s.installRelease(ctx, p, installedRoles(st, p.Name, st.Supervisors), cloud); err != nil {
			return err
		}
	}
	return nil
}

// installedRoles are the roles of a cluster of the sandbox.
func installedRoles(st *State, cluster string, supervisors []string) []install.Role {
	roles := []install.Role{install.RoleMember}
	if slices.Contains(supervisors, cluster) {
		roles = append(roles, install.RoleSupervisor)
	}
	if _, ok := st.Cloud.Member(cluster); ok {
		roles = append(roles, install.RoleCloud)
	}
	return roles
}
