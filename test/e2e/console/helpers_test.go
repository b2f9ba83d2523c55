package console

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"antreaplus.io/antreaplus/pkg/console"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/test/browser"
)

// startConsole serves a local console of the contexts of kubeconfig (all
// when none named) until the test ends; it returns its URL (with the
// session token).
func startConsole(t *testing.T, kubeconfig string, contexts ...string) string {
	t.Helper()
	kc, err := membership.LoadKubeconfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cls := kc.Clusters
	if len(contexts) > 0 {
		cls = nil
		for _, n := range contexts {
			c, err := kc.Cluster(n)
			if err != nil {
				t.Fatal(err)
			}
			cls = append(cls, c)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := console.New(console.Options{Mode: console.Local, Listener: l, Clusters: cls})
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

// openBrowser starts a headless Chromium for the test.
func openBrowser(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel, err := browser.Start(context.WithoutCancel(t.Context()), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	return ctx
}

// show navigates to a view of the console at url and waits until it is
// rendered.
func show(t *testing.T, ctx context.Context, url, view string) browser.Rendered {
	t.Helper()
	var r browser.Rendered
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.Navigate(consoleURL(url, view)), browser.WaitRendered(view, "", &r)); err != nil {
		t.Fatalf("showing %s: %v", view, err)
	}
	return r
}

// consoleURL is the page of a view (#/view after the token's query).
func consoleURL(url, view string) string { return url + "#/" + view }

// waitPage waits until the page has expr (JavaScript, true when done).
func waitPage(t *testing.T, ctx context.Context, timeout time.Duration, what, expr string) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := chromedp.Do(wctx, browser.WaitJS(expr)); err != nil {
		t.Fatalf("%s: %v\npage text:\n%s", what, err, pageText(ctx))
	}
}

// pageText is the text of the page's main element, for failure messages.
func pageText(ctx context.Context) string {
	tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.querySelector("main").innerText`))
	if err != nil {
		return "(could not read: " + err.Error() + ")"
	}
	if len(s) > 4000 {
		s = s[:4000] + "..."
	}
	return s
}

// text evaluates a JavaScript expression of the page to a string.
func text(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(tctx, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return s
}

// screenshot writes a PNG of the page as name.png: into
// $ANTREAPLUS_SCREENSHOTS (docs/console/ when regenerating the docs' pictures),
// else the test's temporary directory; either way it must be a picture.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := browser.Screenshot(ctx)
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot %s is not a PNG (%d bytes)", name, len(png))
	}
	dir := os.Getenv("ANTREAPLUS_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s: %s (%d bytes)", name, path, len(png))
}

// rewriteKubeconfig writes the sandbox's kubeconfig with change applied to
// its parsed form, for a test's own contexts.
func rewriteKubeconfig(t *testing.T, change func(cfg *clientcmdapi.Config)) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(clusters.Sandbox.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	change(cfg)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// sameNamespace creates namespace ns in member too, deleted when the test
// ends.
func sameNamespace(t *testing.T, member, ns string) {
	t.Helper()
	cl := clusters.Client(t, member)
	obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	if err := cl.Create(t.Context(), obj); err != nil {
		t.Fatalf("creating namespace %s in %s: %v", ns, member, err)
	}
	t.Cleanup(func() { _ = cl.Delete(context.WithoutCancel(t.Context()), obj) })
}

// js quotes s as a JavaScript string.
func js(s string) string { return fmt.Sprintf("%q", s) }

// has is a JavaScript test that the page's main text has every part.
func has(parts ...string) string {
	var b strings.Builder
	b.WriteString("(() => { const t = document.querySelector('main').innerText; return true")
	for _, p := range parts {
		b.WriteString(" && t.includes(" + js(p) + ")")
	}
	b.WriteString("; })()")
	return b.String()
}
