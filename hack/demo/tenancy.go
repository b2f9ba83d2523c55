package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"antreaplus.io/antreaplus/test/infrastructure/pollstats"
)

var (
	tenants  = []string{"tenant-hard", "tenant-soft-1", "tenant-soft-2"}
	accounts = []string{"tenant-hard/aws", "tenant-soft-1/aws", "tenant-soft-2/aws", "cloud-demo/aws-emulator"}
)

// holder is the holderIdentity of a tenant's claim in member-1.
func (d *demo) holder(tenant string) string {
	return d.jsonpath("member-1", "-n", "antreaplus-system", "get", "lease", "tenant-"+tenant, "-o", "jsonpath={.spec.holderIdentity}")
}

func (d *demo) tenantList() {
	d.printf("  antreaplus tenant list --context member-1\n")
	out, _ := d.ap("tenant", "list", "--context", "member-1")
	d.indent("    ", out)
}

// vmUIDs are namespace/name=uid of the tenants' VMs.
func (d *demo) vmUIDs(ts []string) []string {
	var out []string
	for _, t := range ts {
		o := d.jsonpath("member-1", "-n", t, "get", "virtualmachines", "-o", `jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}={.metadata.uid}{"\n"}{end}`)
		out = append(out, strings.Fields(o)...)
	}
	sort.Strings(out)
	return out
}

// exclusive is an account's TenantExclusive condition, status/reason.
func (d *demo) exclusive(account string) string {
	ns, name, _ := strings.Cut(account, "/")
	return d.jsonpath("member-1", "-n", ns, "get", "cloudprovideraccount", name,
		"-o", `jsonpath={.status.conditions[?(@.type=="TenantExclusive")].status}/{.status.conditions[?(@.type=="TenantExclusive")].reason}`)
}

func (d *demo) tenancy() error {
	st, err := d.state()
	if err != nil {
		return err
	}
	if st.Cloud == nil {
		return fmt.Errorf("the sandbox runs no cloud")
	}
	awsURL := "http://127.0.0.1:" + strconv.Itoa(st.Cloud.Ports.AWS)
	// The emulator's poll stats count from here (the demo's own EC2 calls above are not the controllers').
	if resp, err := http.Post(awsURL+"/admin/pollstats/reset", "", nil); err == nil {
		_ = resp.Body.Close()
	}
	err = d.wait("the tenants' VMs", time.Minute, func() error {
		for _, t := range tenants {
			out, _ := d.k("--context", "member-1", "-n", t, "get", "virtualmachines", "-o", "name")
			if len(strings.Fields(out)) < 2 {
				return errNot("%s has %d VMs", t, len(strings.Fields(out)))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.printf("  tenant-hard (labelled tenancy.antreaplus.io/controller=tenant-hard) has a cloud controller instance of its own;\n")
	d.printf("  the shared instance (--tenant-selector '!tenancy.antreaplus.io/controller') runs two replicas, which share\n")
	d.printf("  tenant-soft-1, tenant-soft-2 and cloud-demo (antreaplus sandbox status):\n")
	services, err := d.sb.Services(d.ctx)
	if err != nil {
		return err
	}
	for _, s := range services {
		if s.Cluster == "member-1" && s.Kind == "cloud-controller" {
			d.printf("    %-10s %-17s %-8d %s\n", s.Cluster, s.Kind, s.Pid, s.Address)
		}
	}
	d.printf("  tenant-soft-1's admin applies a policy there (it applies to tenant-soft-1's VMs only):\n")
	if err := d.apply("member-1", "tenant-app-ingress.yaml", true); err != nil {
		return err
	}
	d.tenantList()
	if err := d.killReplica(services); err != nil {
		return err
	}
	if err := d.rogue(); err != nil {
		return err
	}
	if err := d.pollStats(awsURL); err != nil {
		return err
	}
	return d.replicaBack()
}

// killReplica kills the shared replica holding tenant-soft-1 and shows
// the other take its tenants over.
func (d *demo) killReplica(services []sandboxService) error {
	victim := d.holder("tenant-soft-1")
	out, err := d.k("--context", "member-1", "-n", "antreaplus-system", "get", "leases", "-l", "tenancy.antreaplus.io/lease=claim", "-o", "json")
	if err != nil {
		return err
	}
	var leases struct {
		Items []struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				Holder string `json:"holderIdentity"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &leases); err != nil {
		return err
	}
	var held []string
	for _, l := range leases.Items {
		if l.Spec.Holder == victim {
			held = append(held, l.Metadata.Labels["tenancy.antreaplus.io/tenant"])
		}
	}
	sort.Strings(held)
	i := slices.IndexFunc(services, func(s sandboxService) bool { return s.Replica == victim })
	if victim == "" || i < 0 || services[i].Pid == 0 {
		return fmt.Errorf("no running replica holds tenant-soft-1 (holder %q)", victim)
	}
	before := d.vmUIDs(held)
	d.say(fmt.Sprintf("kill -9 the shared replica %s (pid %d), which holds %s", victim, services[i].Pid, strings.Join(held, " ")))
	start := time.Now()
	if err := syscall.Kill(services[i].Pid, syscall.SIGKILL); err != nil {
		return err
	}
	// Its claims expire 15 s after their last renewal; the other replica takes them.
	err = d.wait("the killed replica's tenants taken over", 45*time.Second, func() error {
		for _, t := range held {
			if h := d.holder(t); h == "" || h == victim {
				return errNot("%s held by %q", t, h)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.printf("  taken over in %s (a claim lasts 15 s unrenewed):\n", seconds(time.Since(start)))
	for _, t := range held {
		d.printf("    %-14s %s -> %s\n", t, victim, d.holder(t))
	}
	after := d.vmUIDs(held)
	if !slices.Equal(before, after) {
		return fmt.Errorf("their VirtualMachines changed: before %v, after %v", before, after)
	}
	d.printf("  their %d VirtualMachines are still there, the same objects (same UIDs): nothing was re-created\n", len(after))
	d.tenantList()
	d.victimReplica, d.victimTenants = victim, held
	return nil
}

// rogue runs a controller instance that selects every Namespace and
// shows it take nothing and say so.
func (d *demo) rogue() error {
	d.say("A rogue controller instance that selects every Namespace (--tenancy-instance rogue, no --tenant-selector)")
	d.printf("  cloud-controller --context member-1 --tenancy-instance rogue --tenancy-replica rogue-0\n")
	dir := filepath.Join(d.sb.Dir(), "cloud")
	log, err := os.Create(filepath.Join(dir, "member-1.cloud-controller-rogue.log"))
	if err != nil {
		return err
	}
	defer func() { _ = log.Close() }()
	cmd := exec.CommandContext(d.ctx, filepath.Join(filepath.Dir(d.antreaplus), "cloud-controller"),
		"--kubeconfig", d.kubeconfig, "--context", "member-1", "--tenancy-instance", "rogue", "--tenancy-replica", "rogue-0")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return err
	}
	pidFile := filepath.Join(dir, "member-1.cloud-controller-rogue.pid") // 'sandbox down' stops it, should the demo not
	_ = os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		_ = os.Remove(pidFile)
	}()
	err = d.wait("every account TenantExclusive=False/Contended", time.Minute, func() error {
		for _, a := range accounts {
			if x := d.exclusive(a); x != "False/Contended" {
				return errNot("%s: %s", a, x)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.printf("  it takes nothing (every claim is held) and says so, a Warning event on each Namespace it selects:\n")
	if err := d.showK("    ", "--context", "member-1", "get", "events", "-A", "--field-selector", "reason=TenantClaimedByOtherController",
		"-o", "custom-columns=NAMESPACE:.involvedObject.name,TYPE:.type,REASON:.reason"); err != nil {
		return err
	}
	d.printf("    %s\n", d.jsonpath("member-1", "get", "events", "-A", "--field-selector", "reason=TenantClaimedByOtherController,involvedObject.name=tenant-hard",
		"-o", "jsonpath={.items[0].message}"))
	d.printf("  the owners mark their tenants' accounts TenantExclusive=False, reason Contended:\n")
	for _, a := range accounts {
		d.printf("    %-24s %s\n", a, d.exclusive(a))
	}
	d.tenantList()
	d.printf("  the rogue is stopped: it held nothing, nothing moved (the accounts are TenantExclusive=True again 30 s after its last word)\n")
	return nil
}

// pollStats shows the emulator's count of the controllers' polls.
func (d *demo) pollStats(awsURL string) error {
	d.say("The emulator's poll stats (GET " + awsURL + "/admin/pollstats), since this section began")
	names := map[string]string{}
	for _, s := range []string{"cloud-demo/aws-emulator-credentials", "tenant-hard/aws-credentials", "tenant-soft-1/aws-credentials", "tenant-soft-2/aws-credentials"} {
		ns, name, _ := strings.Cut(s, "/")
		key, err := base64.StdEncoding.DecodeString(d.jsonpath("member-1", "-n", ns, "get", "secret", name, "-o", "jsonpath={.data.accessKeyID}"))
		if err == nil {
			names[string(key)] = ns
		}
	}
	resp, err := http.Get(awsURL + "/admin/pollstats")
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	var stats pollstats.Stats
	if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
		return err
	}
	d.printf("  %-22s %-14s %-40s %-6s %s\n", "ACCOUNT", "NAMESPACE", "POLL WINDOWS BY REPLICA", "CALLS", "OVERLAPS")
	keys := make([]string, 0, len(stats.Accounts))
	for k := range stats.Accounts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	overlaps := 0
	for _, k := range keys {
		a := stats.Accounts[k]
		var windows []string
		for r, n := range a.Windows {
			windows = append(windows, fmt.Sprintf("%s=%d", r, n))
		}
		sort.Strings(windows)
		calls := 0
		for _, n := range a.Calls {
			calls += n
		}
		ns := names[k]
		if ns == "" {
			ns = "-"
		}
		d.printf("  %-22s %-14s %-40s %-6d %d\n", k, ns, strings.Join(windows, " "), calls, a.OverlapCount)
		overlaps += a.OverlapCount
	}
	d.printf("  (a poll window: a replica's describes of one account; an overlap: a call for an account while another\n")
	d.printf("   replica's window for it is open: none, the handover included)\n")
	if overlaps != 0 {
		return fmt.Errorf("%d overlapping polls: two replicas polled one account at once", overlaps)
	}
	return nil
}

// replicaBack restarts the killed replica and shows its share return.
func (d *demo) replicaBack() error {
	d.say("sandbox up restarts " + d.victimReplica + ": the plan gives it back its share, and only that")
	if _, err := d.ap(append([]string{"sandbox", "up", "--cloud", "--tenancy"}, d.upArgs...)...); err != nil {
		return err
	}
	err := d.wait(d.victimReplica+" holding its tenants again", 45*time.Second, func() error {
		for _, t := range d.victimTenants {
			if h := d.holder(t); h != d.victimReplica {
				return errNot("%s held by %q", t, h)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, t := range append([]string{"cloud-demo"}, tenants...) {
		d.printf("  %-14s held by %s\n", t, d.holder(t))
	}
	return nil
}
