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
// namespace. `vm-agent --uninstall` removes the agent's table.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/vmagent"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "v0.1.0-dev"

type flags struct {
	server, tokenFile, caFile string
	statePath, table          string
	reportInterval            time.Duration
	heartbeatTimeout          time.Duration
	uninstall, showVersion    bool
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
	fs.BoolVar(&f.uninstall, "uninstall", false, "remove the agent's nftables table and state file, then exit")
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
	fw := &vmagent.NFTables{Table: f.table}
	if f.uninstall {
		if err := fw.Remove(); err != nil {
			return err
		}
		if err := os.Remove(f.statePath); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	log := klog.Background().WithName("vm-agent")
	client, err := consumer.New(consumer.Options{Server: f.server, TokenFile: f.tokenFile, CAFile: f.caFile,
		HeartbeatTimeout: f.heartbeatTimeout, Log: log})
	if err != nil {
		return err
	}
	agent, err := vmagent.New(vmagent.Options{Client: client, Firewall: fw, StatePath: f.statePath, Version: version,
		ReportInterval: f.reportInterval, Log: log})
	if err != nil {
		return err
	}
	log.Info("Starting the VM agent", "version", version, "server", f.server, "table", f.table, "state", f.statePath)
	return agent.Run(ctx)
}
