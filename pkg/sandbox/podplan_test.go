package sandbox

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// chartPod is a Pod as the API server admits one of the chart's: the
// policy controller with its TLS Secret and service account volume.
func chartPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "antreaplus-policy-controller-x", Namespace: "antreaplus-system", UID: "u1"},
		Spec: corev1.PodSpec{
			ServiceAccountName: "antreaplus-policy-controller",
			SecurityContext:    &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](65532), RunAsGroup: ptr.To[int64](65532), FSGroup: ptr.To[int64](65532)},
			Containers: []corev1.Container{{
				Name:           "policy-controller",
				Args:           []string{"--listen-address=:8443"},
				Env:            []corev1.EnvVar{{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}}},
				Ports:          []corev1.ContainerPort{{Name: "health", ContainerPort: 8081}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("health")}}},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
				VolumeMounts: []corev1.VolumeMount{
					{Name: "tls", MountPath: "/var/run/antreaplus/tls", ReadOnly: true},
					{Name: "kube-api-access-abc", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
				},
			}},
			Volumes: []corev1.Volume{
				{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "t"}}},
				{Name: "kube-api-access-abc", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}},
				{Name: "unused", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}},
			},
		},
		Status: corev1.PodStatus{PodIP: "10.1.2.3"},
	}
}

func TestPlanPod(t *testing.T) {
	p, err := planPod(chartPod(), "/pods/p", "/bin/policy-controller", podEnv{APIHost: "10.96.0.1", APIPort: 443})
	if err != nil {
		t.Fatal(err)
	}
	e := p.Exec
	if e.Program != "/usr/local/bin/policy-controller" || !slices.Equal(e.Args, []string{e.Program, "--listen-address=:8443"}) {
		t.Errorf("program %s args %v: want the image's entrypoint and the Pod's args", e.Program, e.Args)
	}
	if e.UID != 65532 || e.GID != 65532 || !slices.Equal(e.Groups, []int{65532}) || !e.NoNewPrivs || !e.ReadOnlyRoot {
		t.Errorf("user %d:%d groups %v noNewPrivs %t readOnlyRoot %t: want the Pod's security context", e.UID, e.GID, e.Groups, e.NoNewPrivs, e.ReadOnlyRoot)
	}
	for _, want := range []string{"KUBERNETES_SERVICE_HOST=10.96.0.1", "KUBERNETES_SERVICE_PORT=443", "POD_IP=10.1.2.3", "HOSTNAME=antreaplus-policy-controller-x"} {
		if !slices.Contains(e.Env, want) {
			t.Errorf("env %v lacks %s", e.Env, want)
		}
	}
	var targets []string
	for _, m := range e.Mounts {
		targets = append(targets, m.Target)
	}
	for _, want := range []string{"/usr/local/bin/policy-controller", "/dev/null", "/var/run/antreaplus/tls", "/var/run/secrets/kubernetes.io/serviceaccount"} {
		if !slices.Contains(targets, want) {
			t.Errorf("mounts %v lack %s", targets, want)
		}
	}
	if len(p.Volumes) != 2 {
		t.Errorf("volumes %v: want the two mounted ones", p.Volumes)
	}
	if p.Readiness == nil || *p.Readiness != (httpProbe{Path: "/readyz", Port: 8081}) {
		t.Errorf("readiness %+v, want /readyz on 8081", p.Readiness)
	}
}

func TestPlanPodRefuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*corev1.Pod)
		want   string
	}{
		{"host network", func(p *corev1.Pod) { p.Spec.HostNetwork = true }, "host namespaces"},
		{"added capability", func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{"NET_ADMIN"}
		}, "capabilities"},
		{"privileged", func(p *corev1.Pod) { p.Spec.Containers[0].SecurityContext.Privileged = ptr.To(true) }, "privileged"},
		{"hostPath mounted", func(p *corev1.Pod) {
			p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "unused", MountPath: "/host"})
		}, "only secret"},
		{"two containers", func(p *corev1.Pod) { p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "b"}) }, "one container"},
		{"env from a Secret", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{Key: "k"}}}}
		}, "env X"},
		{"unknown probe port", func(p *corev1.Pod) {
			p.Spec.Containers[0].ReadinessProbe.HTTPGet.Port = intstr.FromString("nope")
		}, "no port named"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pod := chartPod()
			c.change(pod)
			_, err := planPod(pod, "/pods/p", "/bin/x", podEnv{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

func TestPodRelays(t *testing.T) {
	relays := []RelayPair{
		{Listen: "10.96.0.1:443", Forward: "127.0.0.1:16443"},
		{Listen: "10.96.0.20:8080", Forward: "10.1.0.5:8080"},
		{Listen: "10.96.0.21:8443", Forward: "10.1.0.6:8443"},
		{Listen: "127.0.0.1:8081", Forward: "127.0.0.1:8081"},
	}
	got := podRelays(relays, chartPod()) // listens on 8081 only
	if len(got) != 4 {
		t.Errorf("relays %v: want all (the Pod listens on none of their ClusterIP ports)", got)
	}
	pod := chartPod()
	pod.Spec.Containers[0].Ports = append(pod.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: 8080})
	got = podRelays(relays, pod)
	for _, r := range got {
		if r.Listen == "10.96.0.20:8080" {
			t.Errorf("relays %v: a ClusterIP on 8080 would clash with the Pod's own :8080", got)
		}
	}
}
