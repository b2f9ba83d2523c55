package framework

import (
	"context"
	"net/http"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// ExportService creates Service ns/name of type typ in c (one named port,
// http 80 -> 8080), writes ingress as its load balancer's status when given
// (no load-balancer controller runs in the test clusters), and exports it;
// both are deleted when the test ends.
func ExportService(t testing.TB, c client.Client, ns, name string, typ corev1.ServiceType, ingress ...corev1.LoadBalancerIngress) *mcsv1beta1.ServiceExport {
	t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{Type: typ,
		Selector: map[string]string{"app": name},
		Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP}}}}
	if err := c.Create(t.Context(), svc); err != nil {
		t.Fatal(err)
	}
	if len(ingress) > 0 {
		UpdateStatus(t, c, svc, func() { svc.Status.LoadBalancer.Ingress = ingress })
	}
	exp := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if err := c.Create(t.Context(), exp); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.WithoutCancel(t.Context())
		_ = c.Delete(ctx, exp)
		_ = c.Delete(ctx, svc)
	})
	return exp
}

// WaitHTTP waits up to timeout until url answers 200, else fails the test
// with the output of the process that should answer.
func WaitHTTP(t testing.TB, url string, timeout time.Duration, output *LockedBuffer) {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	t.Fatalf("%s did not answer 200 within %s; output:\n%s", url, timeout, output.String())
}
