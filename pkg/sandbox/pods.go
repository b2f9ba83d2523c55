package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"antreaplus.io/antreaplus/internal/netns"
)

// PodsDir holds, per cluster and component, what the as-installed sandbox
// prepared for the component's Pod: its root filesystem, volumes, the
// pod-exec spec, and the relay's pid and log.
func (s *Sandbox) PodsDir() string { return filepath.Join(s.opts.Dir, "pods") }

func (s *Sandbox) podDir(cluster, component string) string {
	return filepath.Join(s.PodsDir(), cluster, component)
}

// podNetNSBase prefixes the network namespaces of the sandbox's Pods, a
// digest of its directory (as the VMs' are), apart from the VMs'.
func podNetNSBase(dir string) string { return "apod" + strings.TrimPrefix(vmNetNSBase(dir), "ap") }

func (s *Sandbox) podNetNS(cluster, component string) string {
	return podNetNSBase(s.opts.Dir) + "-" + cluster + "-" + component
}

// podVeth is the host's end of a Pod's veth pair (at most 15 bytes).
func podVeth(ns string) string {
	sum := sha256.Sum256([]byte(ns))
	return "apv" + hex.EncodeToString(sum[:4])
}

// podGateway is the host's address on every Pod's veth: the Pods' default
// route, and the source of what the host sends them.
const podGateway = "169.254.1.1"

// componentProcess is the process that plays a component's Pod: the same
// pid and log files as the component run directly, so that status, down
// and the demo find it either way.
func (s *Sandbox) componentProcess(cluster, component string) process {
	switch component {
	case "federation-manager":
		return s.manager(cluster)
	case "member-controller":
		return s.memberController(cluster)
	case "coredns":
		return s.dnsServer(cluster)
	case "policy-controller":
		return s.policyController(cluster)
	case "cloud-controller":
		return s.cloudController(cluster)
	}
	return process{dir: filepath.Join(s.PodsDir(), cluster), name: component, what: "the " + component + " of " + cluster}
}

func (s *Sandbox) podRelay(cluster, component string) process {
	return process{dir: s.podDir(cluster, component), name: "relay", what: "the Service relay of the " + component + " Pod of " + cluster}
}

// podRun is what a running Pod was started from: a changed Pod (a new
// rollout) or changed relays restart it.
type podRun struct {
	UID    string   `json:"uid"`
	IP     string   `json:"ip"`
	Relays []string `json:"relays"`
	// Readiness is the URL of its readiness probe, if it has one.
	Readiness string `json:"readiness,omitempty"`
}

// podReadiness is the readiness probe URL of a component's Pod, when the
// component runs as a Pod and has one.
func (s *Sandbox) podReadiness(cluster, component string) string {
	var run podRun
	if raw, err := os.ReadFile(filepath.Join(s.podDir(cluster, component), "pod.json")); err == nil {
		_ = json.Unmarshal(raw, &run)
	}
	return run.Readiness
}

// podStart is what runPod needs besides the Pod.
type podStart struct {
	cluster, component string
	binary, helper     string
	env                podEnv
	// relays: in the Pod's namespace, Service addresses to their endpoints.
	relays []RelayPair
	// hosts is the Pod's /etc/hosts (the Services' names).
	hosts string
}

// runPod plays pod unless it already runs as it was asked to: it writes
// the Pod's root filesystem and volumes, wires its network namespace,
// starts its relay and its container (pod-exec), and waits for its
// readiness probe.
func (s *Sandbox) runPod(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod, ps podStart) error {
	proc := s.componentProcess(ps.cluster, ps.component)
	relay := s.podRelay(ps.cluster, ps.component)
	dir := s.podDir(ps.cluster, ps.component)
	want := podRun{UID: string(pod.UID), IP: pod.Status.PodIP}
	for _, r := range ps.relays {
		want.Relays = append(want.Relays, r.String())
	}
	var have podRun
	if raw, err := os.ReadFile(filepath.Join(dir, "pod.json")); err == nil {
		_ = json.Unmarshal(raw, &have)
	}
	if proc.pid() != 0 && relay.pid() != 0 && have.UID == want.UID && slices.Equal(have.Relays, want.Relays) {
		return nil
	}
	if err := errors.Join(proc.stop(syscall.SIGTERM), relay.stop(syscall.SIGTERM)); err != nil {
		return err
	}
	plan, err := planPod(pod, dir, ps.binary, ps.env)
	if err != nil {
		return err
	}
	for _, d := range []string{"rootfs", "volumes"} {
		if err := os.RemoveAll(filepath.Join(dir, d)); err != nil {
			return err
		}
	}
	for _, v := range plan.Volumes {
		if err := writeVolume(ctx, cs, pod, v, plan.FSGroup); err != nil {
			return fmt.Errorf("%s: volume %s: %w", pod.Name, v.Volume.Name, err)
		}
	}
	if err := writeRootFS(plan, pod, ps.hosts); err != nil {
		return fmt.Errorf("%s: root filesystem: %w", pod.Name, err)
	}
	ns := s.podNetNS(ps.cluster, ps.component)
	if err := wirePod(ns, pod.Status.PodIP, relayIPs(ps.relays)); err != nil {
		return fmt.Errorf("%s: network namespace %s: %w", pod.Name, ns, err)
	}
	// The container starts once the relay listens on every Service address
	// it connects to (kube-proxy's rules exist before a Pod starts).
	ready := filepath.Join(dir, "relay.ready")
	if err := os.Remove(ready); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	relayArgs := []string{"sandbox", "relay", "--netns", ns, "--ready-file", ready}
	for _, r := range ps.relays {
		relayArgs = append(relayArgs, "--tcp", r.String())
	}
	relayStart := time.Now()
	relayPid, _, err := relay.start(ps.helper, relayArgs...)
	if err != nil {
		return err
	}
	if err := WaitRelayReady(ctx, ready, 2*time.Minute, func() bool { return Alive(relayPid) }); err != nil {
		return fmt.Errorf("%s: %w: see %s", pod.Name, err, relay.logFile())
	}
	// When it listened (the ready file's time): the container used to
	// start 300 ms after the relay, whether it listened or not.
	relayReady := time.Since(relayStart)
	if info, err := os.Stat(ready); err == nil {
		relayReady = info.ModTime().Sub(relayStart)
	}
	spec, err := json.MarshalIndent(plan.Exec, "", "  ")
	if err != nil {
		return err
	}
	specFile := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(specFile, spec, 0o644); err != nil {
		return err
	}
	if plan.Readiness != nil {
		want.Readiness = "http://" + joinHostPort(pod.Status.PodIP, plan.Readiness.Port) + plan.Readiness.Path
	}
	pid, _, err := proc.start("nsenter", "--net="+filepath.Join("/run/netns", ns), "--",
		"unshare", "--mount", "--propagation", "private", "--", ps.helper, "sandbox", "pod-exec", "--spec", specFile)
	if err != nil {
		return err
	}
	run, _ := json.Marshal(want)
	if err := os.WriteFile(filepath.Join(dir, "pod.json"), run, 0o644); err != nil {
		return err
	}
	s.logf("%s: Pod %s/%s (%s) running as pid %d in %s, uid %d, log %s (its Service relay listened %s after it started)",
		ps.cluster, pod.Namespace, pod.Name, pod.Status.PodIP, pid, ns, plan.Exec.UID, proc.logFile(), relayReady.Round(time.Millisecond))
	if want.Readiness == "" {
		return nil
	}
	// Generous: on a loaded machine a controller may take a while to
	// list what it watches before it serves its probes.
	if err := waitHTTP(ctx, want.Readiness, 3*time.Minute, func() bool { return Alive(pid) }); err != nil {
		last := ""
		if raw, rerr := os.ReadFile(proc.logFile()); rerr == nil {
			last = "; its log ends:\n" + tail(string(raw), 25)
		}
		return fmt.Errorf("%s: the readiness probe %s: %w: see %s%s", pod.Name, want.Readiness, err, proc.logFile(), last)
	}
	return nil
}

func joinHostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(port)
}

// waitHTTP waits until url answers 200, while alive says the process
// that should answer runs.
func waitHTTP(ctx context.Context, url string, timeout time.Duration, alive func() bool) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		err := getOKWith(ctx, client, url)
		if err == nil {
			return nil
		}
		if !alive() {
			return fmt.Errorf("the process exited: %w", err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s: %w", timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func getOKWith(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", url, resp.Status)
	}
	return nil
}

// relayIPs are the addresses (not loopback) the Pod's relays listen on:
// they go on the Pod's loopback, as kube-proxy makes ClusterIPs local.
func relayIPs(relays []RelayPair) []string {
	var out []string
	for _, r := range relays {
		host, _, _ := strings.Cut(r.Listen, ":")
		if host != "127.0.0.1" && !slices.Contains(out, host) {
			out = append(out, host)
		}
	}
	return out
}

// wirePod (re)creates the Pod's network namespace: eth0 with the Pod's IP,
// the other end of the veth on the host with a route to it, a default route
// to the host, and the relayed Service addresses on lo.
func wirePod(ns, ip string, local []string) error {
	if netns.Exists(ns) {
		if err := deleteNetNS(ns); err != nil {
			return err
		}
	}
	h, err := netns.Create(ns)
	if err != nil {
		return err
	}
	_ = h.Close()
	veth := podVeth(ns)
	_, _ = netns.IP("link", "del", veth) // a leftover of an earlier namespace
	steps := [][]string{
		{"link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns},
		{"addr", "add", podGateway + "/32", "dev", veth},
		{"link", "set", veth, "up"},
		{"route", "replace", ip + "/32", "dev", veth, "src", podGateway},
		{"-n", ns, "link", "set", "lo", "up"},
		{"-n", ns, "addr", "add", ip + "/32", "dev", "eth0"},
		{"-n", ns, "link", "set", "eth0", "up"},
		{"-n", ns, "route", "add", podGateway + "/32", "dev", "eth0"},
		{"-n", ns, "route", "add", "default", "via", podGateway, "dev", "eth0"},
	}
	for _, a := range local {
		steps = append(steps, []string{"-n", ns, "addr", "add", a + "/32", "dev", "lo"})
	}
	for _, args := range steps {
		if _, err := netns.IP(args...); err != nil {
			return err
		}
	}
	return nil
}

// writeRootFS writes the container's root filesystem: the /etc files a
// program may read, and a target for every mount.
func writeRootFS(plan *podPlan, pod *corev1.Pod, hosts string) error {
	root := plan.Exec.Root
	resolv, err := os.ReadFile("/etc/resolv.conf")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	files := map[string]string{
		"etc/passwd":        "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n",
		"etc/group":         "root:x:0:\nnonroot:x:65532:\n",
		"etc/nsswitch.conf": "hosts: files dns\n",
		"etc/hosts":         "127.0.0.1\tlocalhost\n" + pod.Status.PodIP + "\t" + pod.Name + "\n" + hosts,
		"etc/resolv.conf":   string(resolv),
	}
	for _, d := range []string{"proc", "dev", "tmp", "etc"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.Chmod(filepath.Join(root, "tmp"), 0o1777); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(files[name]), 0o644); err != nil {
			return err
		}
	}
	for _, m := range plan.Exec.Mounts {
		target := filepath.Join(root, m.Target)
		info, err := os.Stat(m.Source)
		if err != nil {
			return fmt.Errorf("mount source: %w", err)
		}
		if info.IsDir() {
			err = os.MkdirAll(target, 0o755)
		} else if err = os.MkdirAll(filepath.Dir(target), 0o755); err == nil {
			err = os.WriteFile(target, nil, 0o644)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeVolume writes a volume's files as the kubelet would: a Secret's or
// ConfigMap's keys (or items), a projected service account token bound to
// the Pod, the cluster's CA, the Pod's namespace; group fsGroup.
func writeVolume(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod, v podVolume, fsGroup int) error {
	if err := os.MkdirAll(v.Dir, 0o755); err != nil {
		return err
	}
	vol := v.Volume
	var files []volumeFile
	switch {
	case vol.EmptyDir != nil:
		if err := os.Chmod(v.Dir, 0o777); err != nil {
			return err
		}
	case vol.Secret != nil:
		data, err := waitSecret(ctx, cs, pod.Namespace, vol.Secret.SecretName, vol.Secret.Optional)
		if err != nil {
			return err
		}
		files = keyFiles(data, vol.Secret.Items, vol.Secret.DefaultMode)
	case vol.ConfigMap != nil:
		data, err := getConfigMap(ctx, cs, pod.Namespace, vol.ConfigMap.Name, vol.ConfigMap.Optional)
		if err != nil {
			return err
		}
		files = keyFiles(data, vol.ConfigMap.Items, vol.ConfigMap.DefaultMode)
	case vol.Projected != nil:
		for _, src := range vol.Projected.Sources {
			more, err := projectedFiles(ctx, cs, pod, src, vol.Projected.DefaultMode)
			if err != nil {
				return err
			}
			files = append(files, more...)
		}
	}
	for _, f := range files {
		p := filepath.Join(v.Dir, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.data, f.mode); err != nil {
			return err
		}
		if err := os.Chmod(p, f.mode); err != nil {
			return err
		}
		if fsGroup >= 0 {
			if err := os.Chown(p, 0, fsGroup); err != nil {
				return err
			}
		}
	}
	return nil
}

type volumeFile struct {
	path string
	data []byte
	mode os.FileMode
}

// fileMode is an item's mode, else the volume's default, else 0644.
func fileMode(item, def *int32) os.FileMode {
	switch {
	case item != nil:
		return os.FileMode(*item)
	case def != nil:
		return os.FileMode(*def)
	}
	return 0o644
}

func keyFiles(data map[string][]byte, items []corev1.KeyToPath, def *int32) []volumeFile {
	var out []volumeFile
	if len(items) == 0 {
		for _, k := range slices.Sorted(maps.Keys(data)) {
			out = append(out, volumeFile{path: k, data: data[k], mode: fileMode(nil, def)})
		}
		return out
	}
	for _, it := range items {
		if d, ok := data[it.Key]; ok {
			out = append(out, volumeFile{path: it.Path, data: d, mode: fileMode(it.Mode, def)})
		}
	}
	return out
}

func projectedFiles(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod, src corev1.VolumeProjection, def *int32) ([]volumeFile, error) {
	switch {
	case src.ServiceAccountToken != nil:
		t := src.ServiceAccountToken
		req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			ExpirationSeconds: t.ExpirationSeconds,
			BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
		}}
		if t.Audience != "" {
			req.Spec.Audiences = []string{t.Audience}
		}
		tok, err := cs.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, pod.Spec.ServiceAccountName, req, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("requesting a token of ServiceAccount %s: %w", pod.Spec.ServiceAccountName, err)
		}
		return []volumeFile{{path: t.Path, data: []byte(tok.Status.Token), mode: fileMode(nil, def)}}, nil
	case src.ConfigMap != nil:
		data, err := getConfigMap(ctx, cs, pod.Namespace, src.ConfigMap.Name, src.ConfigMap.Optional)
		if err != nil {
			return nil, err
		}
		return keyFiles(data, src.ConfigMap.Items, def), nil
	case src.Secret != nil:
		data, err := waitSecret(ctx, cs, pod.Namespace, src.Secret.Name, src.Secret.Optional)
		if err != nil {
			return nil, err
		}
		return keyFiles(data, src.Secret.Items, def), nil
	case src.DownwardAPI != nil:
		var out []volumeFile
		for _, it := range src.DownwardAPI.Items {
			if it.FieldRef == nil {
				return nil, fmt.Errorf("downwardAPI item %s: only fieldRefs are played", it.Path)
			}
			v, ok := podField(pod, it.FieldRef.FieldPath)
			if !ok {
				return nil, fmt.Errorf("downwardAPI item %s: field %s is not played", it.Path, it.FieldRef.FieldPath)
			}
			out = append(out, volumeFile{path: it.Path, data: []byte(v), mode: fileMode(it.Mode, def)})
		}
		return out, nil
	}
	return nil, errors.New("a projected source the sandbox does not write")
}

// waitSecret reads a Secret, waiting up to 60 s for it to exist, as the
// kubelet holds a Pod until its Secret volumes can be written (an optional
// one too: the cloud controller's agentless token is a Secret the policy
// controller makes, and the sandbox does not refresh volumes later).
func waitSecret(ctx context.Context, cs kubernetes.Interface, ns, name string, optional *bool) (map[string][]byte, error) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		s, err := cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			return s.Data, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading Secret %s/%s: %w", ns, name, err)
		}
		if time.Now().After(deadline) {
			if optional != nil && *optional {
				return nil, nil
			}
			return nil, fmt.Errorf("the Secret %s/%s does not exist after 60s", ns, name)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func getConfigMap(ctx context.Context, cs kubernetes.Interface, ns, name string, optional *bool) (map[string][]byte, error) {
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) && optional != nil && *optional {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", ns, name, err)
	}
	data := maps.Clone(cm.BinaryData)
	if data == nil {
		data = map[string][]byte{}
	}
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	return data, nil
}

// currentPod waits up to 90 s for a running Pod of the Deployment's newest
// ReplicaSet with an IP (kwok runs it on a simulated node and gives it one).
func currentPod(ctx context.Context, cs kubernetes.Interface, d *appsv1.Deployment) (*corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		pod, err := newestPod(ctx, cs, d, sel)
		if err != nil {
			return nil, err
		}
		if pod != nil {
			return pod, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the Deployment %s/%s has no running Pod with an IP after 90s", d.Namespace, d.Name)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
}

func newestPod(ctx context.Context, cs kubernetes.Interface, d *appsv1.Deployment, sel labels.Selector) (*corev1.Pod, error) {
	rss, err := cs.AppsV1().ReplicaSets(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("listing the ReplicaSets of %s: %w", d.Name, err)
	}
	want := d.Annotations["deployment.kubernetes.io/revision"]
	var rs string
	for _, r := range rss.Items {
		if metav1.IsControlledBy(&r, d) && r.Annotations["deployment.kubernetes.io/revision"] == want {
			rs = r.Name
		}
	}
	if rs == "" {
		return nil, nil
	}
	pods, err := cs.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("listing the Pods of %s: %w", d.Name, err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		owner := metav1.GetControllerOf(p)
		if owner != nil && owner.Name == rs && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && p.Status.PodIP != "" {
			return p, nil
		}
	}
	return nil, nil
}
