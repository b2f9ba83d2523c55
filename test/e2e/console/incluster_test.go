package console

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/console"
	"antreaplus.io/antreaplus/pkg/policydistribution/controlplane"
	"antreaplus.io/antreaplus/test/browser"
)

// consoleAccount is the chart's ServiceAccount of the console.
const consoleAccount = "antreaplus-console"

// TestInCluster: the in-cluster console, run with exactly the rights the
// chart grants its account (files/rbac/console.yaml), refuses a request
// without a token and one whose token the API server does not accept;
// shows a viewer without rights every kind as not readable; and signs a
// viewer in through its form, in the browser, to the views.
func TestInCluster(t *testing.T) {
	federation(t)
	cfg := clusters.Config(t, "member-1")
	cs := kubernetes.NewForConfigOrDie(cfg)
	grantChartRBAC(t, cs)
	acct := rest.CopyConfig(cfg)
	acct.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + federationv1alpha1.SystemNamespace + ":" + consoleAccount}
	url := startInCluster(t, acct)
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the test's self-signed certificate

	get := func(t *testing.T, path, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	t.Run("no token", func(t *testing.T) {
		if code, body := get(t, "/api/views/policies", ""); code != http.StatusUnauthorized || !strings.Contains(body, "sign in with a Kubernetes token") {
			t.Errorf("GET without a token: %d %q; want 401 saying how to sign in", code, body)
		}
		if code, body := get(t, "/", ""); code != http.StatusUnauthorized || !strings.Contains(body, `<form method="post" action="/login">`) {
			t.Errorf("the page without a token: %d; want 401 with the sign-in form:\n%s", code, body)
		}
	})
	t.Run("a token the API server refuses", func(t *testing.T) {
		if code, body := get(t, "/api/views/policies", "not-a-token"); code != http.StatusUnauthorized || !strings.Contains(body, "did not accept the token") {
			t.Errorf("GET with a bad token: %d %q; want 401", code, body)
		}
	})
	t.Run("a viewer without rights", func(t *testing.T) {
		token := accountToken(t, cs, "console-e2e-nobody", "")
		code, body := get(t, "/api/views/policies", token)
		if code != http.StatusOK {
			t.Fatalf("GET: %d %s", code, body)
		}
		var v struct {
			Headers []struct {
				Unreadable []struct{ Kind, Message string } `json:"unreadable"`
			} `json:"headers"`
			Policies []any `json:"policies"`
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Headers) != 1 || len(v.Headers[0].Unreadable) != 3 || len(v.Policies) != 0 ||
			!strings.Contains(v.Headers[0].Unreadable[0].Message, "console-e2e-nobody may not list") {
			t.Errorf("the view of a viewer without rights: %s; want every policy kind not readable, none shown", body)
		}
	})
	t.Run("signed in through the form", func(t *testing.T) {
		token := accountToken(t, cs, "console-e2e-admin", "cluster-admin")
		b := openBrowser(t)
		ctx, cancel := context.WithTimeout(b, time.Minute)
		defer cancel()
		if err := chromedp.Do(ctx, chromedp.Navigate(url), browser.WaitJS(`document.querySelector('#token')`)); err != nil {
			t.Fatalf("the sign-in page: %v", err)
		}
		if err := chromedp.Do(ctx, chromedp.SendKeys("#token", token), chromedp.Submit("#token")); err != nil {
			t.Fatal(err)
		}
		var r browser.Rendered
		if err := chromedp.Do(ctx, browser.WaitRendered("federation", "", &r)); err != nil {
			t.Fatalf("the federation view after signing in: %v\n%s", err, pageText(b))
		}
		waitPage(t, b, 30*time.Second, "member-1's view", has("member-1")+
			` && document.querySelector('footer').innerText.includes('signed in as system:serviceaccount:default:console-e2e-admin')`)
		if n := text(t, b, `String(document.querySelectorAll('.notice[data-state=unreadable]').length)`); n != "0" {
			t.Errorf("%s kinds not readable for a cluster admin", n)
		}
		screenshot(t, b, "in-cluster")
	})
}

// startInCluster serves the in-cluster console of the cluster cfg reaches,
// over HTTPS with a self-signed certificate, until the test ends.
func startInCluster(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := controlplane.EnsureServingCert(dir, []string{"127.0.0.1", "localhost"}); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := console.New(console.Options{Mode: console.InCluster, Listener: l, InCluster: cfg, Name: "member-1",
		CertFile: filepath.Join(dir, controlplane.CertFile), KeyFile: filepath.Join(dir, controlplane.KeyFile)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the console: %v", err)
		}
	})
	return srv.URL()
}

// grantChartRBAC creates the console's ServiceAccount and the roles the
// chart grants it, from the chart's own file.
func grantChartRBAC(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	ctx := t.Context()
	ns := federationv1alpha1.SystemNamespace
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "deploy", "charts", "antreaplus", "files", "rbac", "console.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: consoleAccount}}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: consoleAccount}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewYAMLOrJSONDecoder(strings.NewReader(string(raw)), 4096)
	for {
		var role rbacv1.ClusterRole // a Role has the same fields
		if err := dec.Decode(&role); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name := "console-e2e-" + strings.ToLower(role.Kind)
		ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: role.Kind, Name: name}
		switch role.Kind {
		case "ClusterRole":
			_, err = cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: role.Rules}, metav1.CreateOptions{})
			if err == nil {
				_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: ref, Subjects: subject}, metav1.CreateOptions{})
			}
		case "Role":
			_, err = cs.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: role.Rules}, metav1.CreateOptions{})
			if err == nil {
				_, err = cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: ref, Subjects: subject}, metav1.CreateOptions{})
			}
		default:
			t.Fatalf("%s in the console's RBAC file", role.Kind)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// accountToken is a token of a new ServiceAccount of Namespace default,
// bound to the ClusterRole clusterRole when given.
func accountToken(t *testing.T, cs kubernetes.Interface, name, clusterRole string) string {
	t.Helper()
	ctx := t.Context()
	if _, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if clusterRole != "" {
		_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: name}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}
