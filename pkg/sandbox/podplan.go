package sandbox

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// imageBinDir is where the project's images put their program: the
// entrypoint is imageBinDir/<container name> (hack/images/oci).
const imageBinDir = "/usr/local/bin"

// imageUser is the user the images run as without a securityContext.
const imageUser = 65532

// podPlan is how the as-installed sandbox plays one Pod of the chart: the
// container's process (what pod-exec does) and what the host prepares for
// it: the volumes' directories and the readiness probe to wait for.
type podPlan struct {
	Exec PodExecSpec
	// Volumes are the Pod's volumes the container mounts, each to be
	// written into Dir before the container starts.
	Volumes []podVolume
	// Readiness is the readiness probe's path and port (nil: none).
	Readiness *httpProbe
	// FSGroup owns the volumes' files (the Pod's fsGroup), -1 when unset.
	FSGroup int
}

// podVolume is a volume of the Pod and the host directory that holds it.
type podVolume struct {
	Dir    string
	Volume corev1.Volume
}

// httpProbe is an httpGet probe against the Pod's IP.
type httpProbe struct {
	Path string
	Port int
}

// podEnv is what the kubelet adds to a container's environment: the
// kubernetes Service's address and the Pod's hostname.
type podEnv struct {
	APIHost string
	APIPort int
}

// planPod translates a Pod of the chart (as the API server admitted it,
// with its service account volume) into its plan, for a root filesystem
// in dir/rootfs and volumes in dir/volumes, running binary as the
// container's program. It refuses what the sandbox cannot play faithfully
// (more than one container, host namespaces, capabilities added,
// privileged, a volume kind it does not write) rather than play it
// differently.
func planPod(pod *corev1.Pod, dir, binary string, env podEnv) (*podPlan, error) {
	spec := &pod.Spec
	if len(spec.Containers) != 1 || len(spec.InitContainers) > 0 {
		return nil, fmt.Errorf("pod %s: the sandbox plays Pods of one container and no init containers", pod.Name)
	}
	if spec.HostNetwork || spec.HostPID || spec.HostIPC {
		return nil, fmt.Errorf("pod %s: the sandbox does not play host namespaces", pod.Name)
	}
	ctr := &spec.Containers[0]
	p := &podPlan{FSGroup: -1}
	psc := spec.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	csc := ctr.SecurityContext
	if csc == nil {
		csc = &corev1.SecurityContext{}
	}
	if csc.Privileged != nil && *csc.Privileged {
		return nil, fmt.Errorf("pod %s: the sandbox does not play privileged containers", pod.Name)
	}
	if csc.Capabilities != nil && len(csc.Capabilities.Add) > 0 {
		return nil, fmt.Errorf("pod %s: capabilities %v added: the sandbox runs containers without any", pod.Name, csc.Capabilities.Add)
	}
	uid, gid := int64(imageUser), int64(imageUser)
	for _, v := range []*int64{psc.RunAsUser, csc.RunAsUser} {
		if v != nil {
			uid = *v
		}
	}
	for _, v := range []*int64{psc.RunAsGroup, csc.RunAsGroup} {
		if v != nil {
			gid = *v
		}
	}
	var groups []int
	if psc.FSGroup != nil {
		p.FSGroup = int(*psc.FSGroup)
		groups = append(groups, p.FSGroup)
	}
	for _, g := range psc.SupplementalGroups {
		if !slices.Contains(groups, int(g)) {
			groups = append(groups, int(g))
		}
	}
	program := path.Join(imageBinDir, ctr.Name)
	args := ctr.Args
	if len(ctr.Command) > 0 {
		program, args = ctr.Command[0], append(slices.Clone(ctr.Command[1:]), ctr.Args...)
	}
	envs := []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOSTNAME=" + pod.Name,
		"KUBERNETES_SERVICE_HOST=" + env.APIHost,
		"KUBERNETES_SERVICE_PORT=" + strconv.Itoa(env.APIPort),
		"KUBERNETES_SERVICE_PORT_HTTPS=" + strconv.Itoa(env.APIPort),
	}
	for _, e := range ctr.Env {
		v, err := envValue(pod, e)
		if err != nil {
			return nil, err
		}
		envs = append(envs, e.Name+"="+v)
	}
	root := filepath.Join(dir, "rootfs")
	p.Exec = PodExecSpec{
		Root: root, Program: program, Args: append([]string{program}, args...), Env: envs,
		UID: int(uid), GID: int(gid), Groups: groups,
		ReadOnlyRoot: csc.ReadOnlyRootFilesystem != nil && *csc.ReadOnlyRootFilesystem,
		NoNewPrivs:   csc.AllowPrivilegeEscalation != nil && !*csc.AllowPrivilegeEscalation,
		Mounts:       []PodMount{{Source: binary, Target: program, ReadOnly: true}},
	}
	for _, d := range []string{"null", "zero", "random", "urandom"} {
		p.Exec.Mounts = append(p.Exec.Mounts, PodMount{Source: "/dev/" + d, Target: "/dev/" + d})
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
	}
	mounted := map[string]bool{}
	for _, m := range ctr.VolumeMounts {
		v, ok := volumes[m.Name]
		if !ok {
			return nil, fmt.Errorf("pod %s: volume mount %s names no volume", pod.Name, m.Name)
		}
		if err := checkVolume(v); err != nil {
			return nil, fmt.Errorf("pod %s: %w", pod.Name, err)
		}
		vdir := filepath.Join(dir, "volumes", v.Name)
		if !mounted[v.Name] {
			mounted[v.Name] = true
			p.Volumes = append(p.Volumes, podVolume{Dir: vdir, Volume: v})
		}
		if m.SubPathExpr != "" {
			return nil, fmt.Errorf("pod %s: subPathExpr is not played", pod.Name)
		}
		p.Exec.Mounts = append(p.Exec.Mounts, PodMount{Source: filepath.Join(vdir, m.SubPath), Target: m.MountPath, ReadOnly: m.ReadOnly})
	}
	if pr := ctr.ReadinessProbe; pr != nil && pr.HTTPGet != nil {
		port, err := containerPort(ctr, pr.HTTPGet.Port)
		if err != nil {
			return nil, fmt.Errorf("pod %s: readiness probe: %w", pod.Name, err)
		}
		p.Readiness = &httpProbe{Path: pr.HTTPGet.Path, Port: port}
	}
	return p, nil
}

// checkVolume refuses the volume kinds the sandbox does not write.
func checkVolume(v corev1.Volume) error {
	switch {
	case v.Secret != nil, v.ConfigMap != nil, v.EmptyDir != nil:
		return nil
	case v.Projected != nil:
		for _, s := range v.Projected.Sources {
			if s.ClusterTrustBundle != nil || s.PodCertificate != nil {
				return fmt.Errorf("volume %s: a projected source the sandbox does not write", v.Name)
			}
		}
		return nil
	}
	return fmt.Errorf("volume %s: only secret, configMap, emptyDir and projected volumes are played", v.Name)
}

// envValue is an environment variable's value: a literal or a field of the
// Pod.
func envValue(pod *corev1.Pod, e corev1.EnvVar) (string, error) {
	if e.ValueFrom == nil {
		return e.Value, nil
	}
	if f := e.ValueFrom.FieldRef; f != nil {
		if v, ok := podField(pod, f.FieldPath); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("pod %s: env %s: only values and fieldRefs to the Pod's name, namespace, IP, node and service account are played", pod.Name, e.Name)
}

// podField is a field of the Pod that a fieldRef or downwardAPI item names.
func podField(pod *corev1.Pod, field string) (string, bool) {
	switch field {
	case "metadata.name":
		return pod.Name, true
	case "metadata.namespace":
		return pod.Namespace, true
	case "metadata.uid":
		return string(pod.UID), true
	case "status.podIP":
		return pod.Status.PodIP, true
	case "spec.nodeName":
		return pod.Spec.NodeName, true
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, true
	}
	if k, ok := strings.CutPrefix(field, "metadata.labels['"); ok {
		return pod.Labels[strings.TrimSuffix(k, "']")], true
	}
	return "", false
}

// containerPort resolves a probe's or Service's port, a number or the name
// of one of the container's ports.
func containerPort(ctr *corev1.Container, port intstr.IntOrString) (int, error) {
	if port.Type == intstr.Int {
		return port.IntValue(), nil
	}
	for _, p := range ctr.Ports {
		if p.Name == port.StrVal {
			return int(p.ContainerPort), nil
		}
	}
	return 0, fmt.Errorf("container %s has no port named %q", ctr.Name, port.StrVal)
}

func intstrName(name string) intstr.IntOrString { return intstr.FromString(name) }
