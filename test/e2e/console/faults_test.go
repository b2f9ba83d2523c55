package console

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"antreaplus.io/antreaplus/test/framework"
)

// TestSupervisorKilledShowsTheHandOver: the federation view open, kill -9
// of the manager of the supervisor that leads member-3: the page shows
// member-3 led by the other supervisor and the change, without a reload;
// when the manager is back, the hand-back.
func TestSupervisorKilledShowsTheHandOver(t *testing.T) {
	f := federation(t)
	leaders := f.WaitSettled(t, time.Minute)
	url := startConsole(t, clusters.Sandbox.KubeconfigPath())
	b := openBrowser(t)
	show(t, b, url, "federation")
	victim := leaders["member-3"]
	other := "member-1"
	if victim == other {
		other = "member-2"
	}
	waitPage(t, b, 30*time.Second, "member-3 led by "+victim, fmt.Sprintf(`document.querySelector('tr[data-member="member-3"] td[data-leader=%s]')`, js(victim)))

	f.Signal(t, victim, syscall.SIGKILL)
	killed := time.Now()
	t.Cleanup(func() { f.Restart(t, victim); f.WaitAllLed(t, time.Minute) })
	waitPage(t, b, 60*time.Second, "member-3 taken over by "+other, fmt.Sprintf(`document.querySelector('tr[data-member="member-3"] td[data-leader=%s]')`, js(other)))
	waitPage(t, b, 10*time.Second, "the change listed", `document.querySelector('#changes tbody tr')`)
	waitPage(t, b, 15*time.Second, victim+"'s manager shown stopped", fmt.Sprintf(`document.querySelector('tr[data-supervisor=%s][data-manager=stopped]')`, js(victim)))
	t.Logf("the page showed member-3 led by %s %s after kill -9 of %s's manager", other, time.Since(killed).Round(100*time.Millisecond), victim)
	row := text(t, b, `document.querySelector('#changes tbody').innerText`)
	if !strings.Contains(row, "member-3") || !strings.Contains(row, other) {
		t.Errorf("recent changes %q: want member-3's change to %s", row, other)
	}
	screenshot(t, b, "federation-handover")
}

// TestWhatCannotBeRead: a context whose user may read nothing (member-3,
// impersonated) and a context that does not answer are shown as such,
// never as empty, and the other members' views still work.
func TestWhatCannotBeRead(t *testing.T) {
	federation(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := l.Addr().String()
	_ = l.Close()
	kubeconfig := rewriteKubeconfig(t, func(cfg *clientcmdapi.Config) {
		ctx := cfg.Contexts["member-3"]
		nobody := cfg.AuthInfos[ctx.AuthInfo].DeepCopy()
		nobody.Impersonate, nobody.ImpersonateGroups = "console-e2e-nobody", []string{"system:authenticated"}
		cfg.AuthInfos["nobody"] = nobody
		ctx.AuthInfo = "nobody"
		dead := cfg.Clusters[cfg.Contexts["member-1"].Cluster].DeepCopy()
		dead.Server = "https://" + deadAddr
		cfg.Clusters["dead"] = dead
		cfg.Contexts["dead"] = &clientcmdapi.Context{Cluster: "dead", AuthInfo: cfg.Contexts["member-1"].AuthInfo}
	})
	url := startConsole(t, kubeconfig)
	b := openBrowser(t)
	for _, v := range []string{"services", "policies", "federation"} {
		show(t, b, url, v)
		waitPage(t, b, 60*time.Second, "member-3 marked not readable in "+v, `document.querySelector('.notice[data-member="member-3"][data-state=unreadable]')`)
		waitPage(t, b, 30*time.Second, "the dead context marked unreachable in "+v, `document.querySelector('.notice[data-member="dead"][data-state=unreachable]')`)
	}
	got := text(t, b, `document.querySelector('.notice[data-member="member-3"][data-state=unreadable]').innerText`)
	if !strings.Contains(got, "console-e2e-nobody") || !strings.Contains(got, "forbidden") {
		t.Errorf("member-3's notice %q: want the API server's refusal of the user", got)
	}
	// The others are read: member-1 and member-2 are in the picture, led.
	waitPage(t, b, 30*time.Second, "member-1 and member-2 led", `document.querySelector('tr[data-member="member-1"] td[data-leader]:not([data-leader=""])') && document.querySelector('tr[data-member="member-2"] td[data-leader]:not([data-leader=""])')`)
	screenshot(t, b, "unreadable")
}

// TestMemberDisappears: member-3's API server killed while the page is
// open: member-3 is marked unreachable (what it held kept, said stale); it
// comes back and the mark goes.
func TestMemberDisappears(t *testing.T) {
	f := federation(t)
	url := startConsole(t, clusters.Sandbox.KubeconfigPath())
	b := openBrowser(t)
	show(t, b, url, "federation")
	waitPage(t, b, 30*time.Second, "member-3 reachable", `document.querySelector('tr[data-member="member-3"]') && !document.querySelector('.notice[data-member="member-3"]')`)
	raw, err := os.ReadFile(filepath.Join(clusters.Sandbox.ClusterDir("member-3"), "pids", "kube-apiserver.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	down := time.Now()
	t.Cleanup(func() { restartClusters(t, f) })
	waitPage(t, b, 30*time.Second, "member-3 marked unreachable", `document.querySelector('.notice[data-member="member-3"][data-state=unreachable]')`)
	t.Logf("member-3 marked unreachable %s after its API server died", time.Since(down).Round(100*time.Millisecond))
	if got := text(t, b, `document.querySelector('.picture g.node[data-member="member-3"]').getAttribute('class')`); !strings.Contains(got, "bad") {
		t.Errorf("member-3's node in the picture is %q, want it marked bad", got)
	}
	screenshot(t, b, "member-unreachable")
	restartClusters(t, f)
	waitPage(t, b, 60*time.Second, "member-3 reachable again", `!document.querySelector('.notice[data-member="member-3"][data-state=unreachable]')`)
}

// restartClusters starts whatever sandbox component is down and waits
// until every member is led.
func restartClusters(t *testing.T, f *framework.Federation) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 2*time.Minute)
	defer cancel()
	if _, err := clusters.Sandbox.Up(ctx, nClusters); err != nil {
		t.Fatalf("restarting the sandbox's clusters: %v", err)
	}
	f.WaitAllLed(t, 60*time.Second)
}
