package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/bench/benchtable"
	"antreaplus.io/antreaplus/test/bench/procstat"
	"antreaplus.io/antreaplus/test/browser"
)

const (
	namespace   = "bench"
	defaultIdle = 30 * time.Second
)

type settings struct {
	members, services, runs, updates int
	idle                             time.Duration
}

// measure runs one federation size: the sandbox, the Services, the console
// as the operator runs it (a process), and the browser.
func measure(ctx context.Context, s settings) ([]benchtable.Figure, error) {
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
		return nil, fmt.Errorf("tools %v missing: run 'make tools'", missing)
	}
	base, err := sandbox.FreeBase(s.members)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "consolebench-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	sb := sandbox.New(sandbox.Options{Dir: filepath.Join(dir, "sandbox"), APIPortBase: base, NodesPerCluster: 2, Tools: &tools,
		Progress: os.Stderr, Light: true})
	defer func() { _ = sb.Down(context.Background()) }()
	st, err := sb.Up(ctx, s.members)
	if err != nil {
		return nil, err
	}
	mgr, err := sb.FindBinary(ctx, "federation-manager")
	if err != nil {
		return nil, err
	}
	var opts sandbox.MemberServicesOptions
	if opts.MemberController, err = sb.FindBinary(ctx, "member-controller"); err != nil {
		return nil, err
	}
	if opts.CoreDNS, err = sb.FindBinary(ctx, "coredns"); err != nil {
		return nil, err
	}
	cli, err := sb.FindBinary(ctx, "antreaplus")
	if err != nil {
		return nil, err
	}
	supervisors := min(3, s.members-1)
	if err := sb.Federate(ctx, sandbox.FederationOptions{FederationID: "bench", Supervisors: supervisors, ManagerBinary: mgr}); err != nil {
		return nil, err
	}
	if err := sb.StartMemberServices(ctx, opts); err != nil {
		return nil, err
	}
	sch, err := scheme.New()
	if err != nil {
		return nil, err
	}
	var clients []client.Client
	for _, p := range st.Clusters {
		cfg, err := sb.RESTConfig(p.Name)
		if err != nil {
			return nil, err
		}
		cfg.QPS, cfg.Burst = 200, 400
		c, err := client.New(cfg, client.Options{Scheme: sch})
		if err != nil {
			return nil, err
		}
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
			return nil, fmt.Errorf("namespace in %s: %w", p.Name, err)
		}
		clients = append(clients, c)
	}
	con, err := startConsole(ctx, cli, sb.KubeconfigPath())
	if err != nil {
		return nil, err
	}
	defer con.stop()
	logf("the console: %s", con.url)
	started := time.Now()
	logf("%d members, %d supervisors: exporting %d Services", s.members, supervisors, s.services)
	if err := exportAll(ctx, clients, s.services); err != nil {
		return nil, err
	}
	if err := con.waitImported(ctx, s.services, s.members, 15*time.Minute); err != nil {
		return nil, err
	}
	logf("every Service exported and imported in every member, as the console shows it, in %s", time.Since(started).Round(time.Second))

	bctx, cancel, err := browser.Start(ctx, filepath.Join(dir, "chromium"))
	if err != nil {
		return nil, err
	}
	defer cancel()
	label := fmt.Sprintf("%d members, %d Services", s.members, s.services)
	var figures []benchtable.Figure
	for _, view := range []string{"services", "federation"} {
		page, driver, err := firstRenders(bctx, con.url, view, s.runs)
		if err != nil {
			return nil, err
		}
		logf("%s view: first renders %v ms (page), %v ms (driver)", view, page, driver)
		figures = append(figures, benchtable.Summarize(fmt.Sprintf("%s: first full render of the %s view (the page's clock)", label, view), "ms", page),
			benchtable.Summarize("  navigation to rendered, as the driver waits for it", "ms", driver))
	}
	cliRuns, err := serviceList(ctx, cli, sb.KubeconfigPath(), s.runs)
	if err != nil {
		return nil, err
	}
	figures = append(figures, benchtable.Summarize("  baseline: antreaplus service list of the same data (process start to exit)", "ms", cliRuns))
	lags, err := liveUpdates(ctx, bctx, con.url, clients[0], s.updates)
	if err != nil {
		return nil, err
	}
	figures = append(figures, benchtable.WithPercentiles(label+": a Service exported -> its row in the open page", "ms", lags)...)
	idleFigs, err := idleCost(ctx, bctx, con, s.idle, label)
	if err != nil {
		return nil, err
	}
	return append(figures, idleFigs...), nil
}

// exportAll creates n LoadBalancer Services with an ingress address, and
// their ServiceExports, spread over the members.
func exportAll(ctx context.Context, clients []client.Client, n int) error {
	work := make(chan int)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range work {
				if err := export(ctx, clients[i%len(clients)], fmt.Sprintf("svc-%04d", i), i); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

func export(ctx context.Context, c client.Client, name string, i int) error {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer,
		Selector: map[string]string{"app": name},
		Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP}}}}
	if err := c.Create(ctx, svc); err != nil {
		return fmt.Errorf("service %s: %w", name, err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: fmt.Sprintf("198.18.%d.%d", i/250, i%250+1)}}
	if err := c.Status().Update(ctx, svc); err != nil {
		return fmt.Errorf("service %s's load balancer: %w", name, err)
	}
	if err := c.Create(ctx, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}); err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	return nil
}

// consoleProc is `antreaplus console` as the operator runs it.
type consoleProc struct {
	cmd   *exec.Cmd
	url   string
	token string
	hc    *http.Client
	done  chan struct{}
}

var consoleURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?token=([0-9a-f]+)`)

func startConsole(ctx context.Context, cli, kubeconfig string) (*consoleProc, error) {
	cmd := exec.CommandContext(ctx, cli, "console", "--kubeconfig", kubeconfig, "--port", "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &consoleProc{cmd: cmd, hc: &http.Client{Timeout: 30 * time.Second}, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.done) }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		c.stop()
		return nil, fmt.Errorf("the console printed no address: %w", err)
	}
	m := consoleURL.FindStringSubmatch(line)
	if m == nil {
		c.stop()
		return nil, fmt.Errorf("the console printed %q, no address", line)
	}
	c.url, c.token = m[0], m[1]
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return c, nil
}

func (c *consoleProc) stop() {
	_ = c.cmd.Process.Signal(os.Interrupt)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// view is a view's JSON, as the page gets it.
func (c *consoleProc) view(ctx context.Context, name string, into any) error {
	base := strings.SplitN(c.url, "?", 2)[0]
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"api/views/"+name, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("GET %s: %s %s", name, resp.Status, body)
	}
	return json.NewDecoder(resp.Body).Decode(into)
}

// waitImported waits until the console's services view holds n Services,
// each imported in every one of members.
func (c *consoleProc) waitImported(ctx context.Context, n, members int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var v struct {
			Services []struct {
				Importers []struct {
					Endpoints int `json:"endpoints"`
				} `json:"importers"`
			} `json:"services"`
		}
		err := c.view(ctx, "services", &v)
		full := 0
		for _, s := range v.Services {
			if len(s.Importers) == members {
				full++
			}
		}
		if err == nil && len(v.Services) >= n && full >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %s the console shows %d Services, %d imported in all %d members (%w)", timeout, len(v.Services), full, members, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// firstRenders loads the view in a fresh tab runs times: the page's own
// time from navigation to the view rendered (performance.now() at render),
// and the driver's from the navigation's start.
func firstRenders(bctx context.Context, url, view string, runs int) (page, driver []float64, err error) {
	for range runs {
		tctx, cancel := chromedp.NewContext(bctx)
		var r browser.Rendered
		start := time.Now()
		err := chromedp.Do(tctx, chromedp.Navigate(url+"#/"+view), browser.WaitRendered(view, "", &r))
		took := time.Since(start)
		if err == nil && view == "services" {
			var rows int
			rows, err = chromedp.Run(tctx, chromedp.Evaluate[int](`document.querySelectorAll('tr[data-service]').length`))
			if err == nil && rows == 0 {
				err = errors.New("the services view rendered no Service")
			}
		}
		cancel()
		if err != nil {
			return nil, nil, fmt.Errorf("the %s view: %w", view, err)
		}
		page, driver = append(page, r.At), append(driver, float64(took.Microseconds())/1000)
	}
	return page, driver, nil
}

// serviceList times `antreaplus service list` of the same members.
func serviceList(ctx context.Context, cli, kubeconfig string, runs int) ([]float64, error) {
	var out []float64
	for range runs {
		start := time.Now()
		cmd := exec.CommandContext(ctx, cli, "service", "list", "--kubeconfig", kubeconfig, "-o", "json")
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("antreaplus service list: %w", err)
		}
		out = append(out, float64(time.Since(start).Microseconds())/1000)
	}
	return out, nil
}

// liveUpdates exports a Service at a time while the services view is open,
// and times each from its create to its row in the page (the page records
// when the row first appears, on the same clock).
func liveUpdates(ctx, bctx context.Context, url string, c client.Client, n int) ([]float64, error) {
	tctx, cancel := chromedp.NewContext(bctx)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.Navigate(url+"#/services"), browser.WaitRendered("services", "", nil)); err != nil {
		return nil, err
	}
	watcher := `window.__seen = {}; new MutationObserver(() => { for (const r of document.querySelectorAll('tr[data-service^="bench/live-"]')) { if (!window.__seen[r.dataset.service]) window.__seen[r.dataset.service] = Date.now(); } }).observe(document.querySelector('main'), {childList: true, subtree: true}); true`
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](watcher)); err != nil {
		return nil, err
	}
	var lags []float64
	for i := range n {
		name := fmt.Sprintf("live-%03d", i)
		start := time.Now()
		if err := export(ctx, c, name, 900+i); err != nil {
			return nil, err
		}
		wctx, wcancel := context.WithTimeout(tctx, time.Minute)
		err := chromedp.Do(wctx, browser.WaitJS(fmt.Sprintf(`window.__seen[%q]`, namespace+"/"+name)))
		wcancel()
		if err != nil {
			return nil, fmt.Errorf("%s never appeared: %w", name, err)
		}
		seen, err := chromedp.Run(tctx, chromedp.Evaluate[float64](fmt.Sprintf(`window.__seen[%q]`, namespace+"/"+name)))
		if err != nil {
			return nil, err
		}
		lags = append(lags, seen-float64(start.UnixMicro())/1000)
		logf("%s in the page %.0f ms after its export", name, lags[len(lags)-1])
		time.Sleep(500 * time.Millisecond)
	}
	return lags, nil
}

// idleCost is the console process's memory and CPU at idle over window:
// with no page open, then with one page following the services view.
func idleCost(ctx, bctx context.Context, c *consoleProc, window time.Duration, label string) ([]benchtable.Figure, error) {
	pid := c.cmd.Process.Pid
	sample := func() (float64, float64, error) {
		before, err := procstat.CPUSeconds(pid)
		if err != nil {
			return 0, 0, err
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(window):
		}
		after, err := procstat.CPUSeconds(pid)
		if err != nil {
			return 0, 0, err
		}
		return procstat.RSSMiB(pid), 100 * (after - before) / window.Seconds(), nil
	}
	time.Sleep(5 * time.Second) // the live updates' aftermath
	rss, cpu, err := sample()
	if err != nil {
		return nil, err
	}
	tctx, cancel := chromedp.NewContext(bctx)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.Navigate(c.url+"#/services"), browser.WaitRendered("services", "", nil)); err != nil {
		return nil, err
	}
	rssOpen, cpuOpen, err := sample()
	if err != nil {
		return nil, err
	}
	one := func(name, unit string, v float64) benchtable.Figure {
		return benchtable.Figure{Name: name, Unit: unit, Median: v, Min: v, Max: v}
	}
	return []benchtable.Figure{
		one(label+": console RSS at idle, every member watched", "MiB", rss),
		one(fmt.Sprintf("  console CPU at idle (%s)", window), "% core", cpu),
		one("  RSS with a page following the services view", "MiB", rssOpen),
		one("  CPU with that page", "% core", cpuOpen),
	}, nil
}
