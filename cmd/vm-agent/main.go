// Command vm-agent runs on an agented VM: it receives the VM's compiled
// Antrea policies from the policy controller, enforces them in the VM's
// nftables (one table of its own, replaced atomically), keeps the last good
// rules in a state file and in force while the control plane is
// unreachable, and reports its version, interfaces and applied policy
// generation, which the policy controller writes to the VirtualMachine's
// status.
//
//	vm-agent --server https://policy-controller:8443 \
//	  --token-file /etc/antreaplus/vm-agent/token --ca-file /etc/antreaplus/vm-agent/ca.crt
//
// The token is the "token" key of the Secret vm-agent-token-<vm> in the VM's
// namespace.
//
// When the policy controller offers its member's DNS server
// (policy-controller --dns-server), the agent runs a DNS forwarder on
// --dns-listen (127.0.0.153:53) that sends clusterset.local and
// cluster.local to it, over TCP, and other names to the VM's previous
// nameservers, and points --resolv-conf at it (rewritten in place, the
// original kept in the state file). --dns=false turns this off;
// --resolv-conf= runs the forwarder but leaves the resolver to the VM (see
// package vmagent for systemd-resolved).
//
// `vm-agent --uninstall` removes the agent's table, puts the resolver file
// back and removes the state file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/vmagent"
	"antreaplus.io/antreaplus/pkg/vmagent/dnsforward"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "v0.1.0-dev"

type flags struct {
	server, tokenFile, caFile string
	statePath, table          string
	reportInterval            time.Duration
	heartbeatTimeout          time.Duration
	uninstall, showVersion    bool
	dns                       bool
	ruleCounters              bool
	dnsListen, resolvConf     string
	dnsZones                  string
	dnsTimeout                time.Duration
	metricsAddress            string
	// log is the logger's configuration: -v and -vmodule set it.
	log *textlogger.Config
}

func parseFlags() *flags {
	f := &flags{log: textlogger.NewConfig()}
	fs := flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	fs.StringVar(&f.server, "server", "", "URL of the policy distribution API, https://host:port")
	fs.StringVar(&f.tokenFile, "token-file", "/etc/antreaplus/vm-agent/token", "file holding the VM's token (read at every connection)")
	fs.StringVar(&f.caFile, "ca-file", "/etc/antreaplus/vm-agent/ca.crt", "CA certificates of the server (empty: the system's)")
	fs.StringVar(&f.statePath, "state-file", "/var/lib/antreaplus/vm-agent/state.json", "where the last good rules are kept")
	fs.StringVar(&f.table, "table", vmagent.DefaultTable, "the nftables table (family inet) the agent owns")
	fs.DurationVar(&f.reportInterval, "report-interval", time.Minute, "how often to report when nothing changes")
	fs.DurationVar(&f.heartbeatTimeout, "heartbeat-timeout", 30*time.Second, "reconnect when the server is silent this long")
	fs.BoolVar(&f.dns, "dns", true, "forward the federation zones to the member's DNS server the policy controller offers, and point the VM's resolver at the forwarder (false: leave DNS alone, and put back a resolver file pointed before)")
	fs.StringVar(&f.dnsListen, "dns-listen", dnsforward.DefaultListen, "address (UDP and TCP) of the DNS forwarder; port 53 when --resolv-conf is set, the only port a resolver file can name")
	fs.StringVar(&f.dnsZones, "dns-zones", "clusterset.local,cluster.local", "comma-separated zones the forwarder sends to the member's DNS server")
	fs.StringVar(&f.resolvConf, "resolv-conf", "/etc/resolv.conf", "resolver file pointed at the forwarder, rewritten in place (empty: leave the resolver alone, e.g. for a systemd-resolved drop-in)")
	fs.DurationVar(&f.dnsTimeout, "dns-timeout", dnsforward.DefaultTimeout, "how long the forwarder waits for one server")
	fs.BoolVar(&f.ruleCounters, "rule-counters", true, "count the packets each rule decides (nftables counters), reported for policy stats (false: no counters, no stats)")
	fs.StringVar(&f.metricsAddress, "metrics-bind-address", "", "address of the Prometheus /metrics endpoint (empty: none)")
	fs.BoolVar(&f.uninstall, "uninstall", false, "remove the agent's nftables table, put the resolver file back and remove the state file, then exit")
	fs.BoolVar(&f.showVersion, "version", false, "print the version and exit")
	fs.Var(f.log.Verbosity(), "v", "log verbosity: 0 logs what an operator needs, 1-2 each change received and applied, 4 and above debugging detail")
	fs.Var(f.log.VModule(), "vmodule", "per-file verbosity, comma-separated pattern=N (e.g. agent=4)")
	_ = fs.Parse(os.Args[1:])
	return f
}

func main() {
	f := parseFlags()
	if f.showVersion {
		fmt.Println(version)
		return
	}
	logger := textlogger.NewLogger(f.log)
	klog.SetLogger(logger)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, f); err != nil {
		logger.Error(err, "vm-agent failed")
		os.Exit(1)
	}
}

func run(ctx context.Context, f *flags) error {
	fw := &vmagent.NFTables{Table: f.table, NoCounters: !f.ruleCounters}
	if f.uninstall {
		if err := errors.Join(fw.Remove(), vmagent.UninstallDNS(f.statePath, f.resolvConf)); err != nil {
			return err
		}
		if err := os.Remove(f.statePath); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	dnsOpts, err := dnsOptions(f)
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	if err := registerMetrics(reg, dnsOpts); err != nil {
		return err
	}
	log := klog.Background().WithName("vm-agent")
	client, err := consumer.New(consumer.Options{Server: f.server, TokenFile: f.tokenFile, CAFile: f.caFile,
		HeartbeatTimeout: f.heartbeatTimeout, Log: log})
	if err != nil {
		return err
	}
	agent, err := vmagent.New(vmagent.Options{Client: client, Firewall: fw, StatePath: f.statePath, Version: version,
		ReportInterval: f.reportInterval, DNS: dnsOpts, Log: log})
	if err != nil {
		return err
	}
	if f.metricsAddress != "" {
		go serveMetrics(ctx, f.metricsAddress, reg, log)
	}
	log.Info("Starting the VM agent", "version", version, "server", f.server, "table", f.table, "state", f.statePath,
		"dns", f.dns, "resolvConf", f.resolvConf)
	return agent.Run(ctx)
}

// dnsOptions are the agent's DNS options from the flags; nil with --dns=false.
func dnsOptions(f *flags) (*vmagent.DNSOptions, error) {
	if !f.dns {
		return nil, nil
	}
	if _, port, err := net.SplitHostPort(f.dnsListen); err != nil {
		return nil, fmt.Errorf("--dns-listen %q: want host:port: %w", f.dnsListen, err)
	} else if port != "53" && f.resolvConf != "" {
		return nil, fmt.Errorf("--dns-listen %q: a resolver file names no port, so the forwarder must listen on 53 (or set --resolv-conf= and route to it otherwise)", f.dnsListen)
	}
	zones, err := dnsforward.NormalizeZones(strings.Split(f.dnsZones, ","))
	if err != nil {
		return nil, fmt.Errorf("--dns-zones: %w", err)
	}
	return &vmagent.DNSOptions{Listen: f.dnsListen, Zones: zones, ResolvConf: f.resolvConf, Timeout: f.dnsTimeout,
		Metrics: dnsforward.NewMetrics()}, nil
}

// registerMetrics registers on reg, the registry the agent serves, the
// metrics of what it runs: the DNS forwarder's when it runs (dns not nil).
func registerMetrics(reg prometheus.Registerer, dns *vmagent.DNSOptions) error {
	if dns == nil {
		return nil
	}
	return dnsforward.RegisterMetrics(reg, dns.Metrics)
}

// serveMetrics serves reg's metrics on /metrics until ctx ends.
func serveMetrics(ctx context.Context, addr string, reg *prometheus.Registry, log logr.Logger) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Error(err, "Serving metrics failed", "address", addr)
	}
}
