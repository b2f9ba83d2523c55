package cmd

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/console"
)

// defaultConsolePort is the console's port unless --port says otherwise;
// when it is taken, any free port is used instead (and printed).
const defaultConsolePort = 7443

func newConsoleCommand(f *configFlags, out, errOut io.Writer) *cobra.Command {
	var (
		address, domain string
		port            int
		open            bool
	)
	c := &cobra.Command{
		Use:   "console [--port N] [--open] [--context CTX]...",
		Short: "Serve a web console of the federation on this machine: members, federated Services, policies, clouds, and a trace form, live",
		Example: `  antreaplus console --open
  antreaplus console --port 8443 --context member-1 --context member-2
  antreaplus console --port 0`,
		Long: `console serves, on 127.0.0.1, a web console of every member of the kubeconfig (or the
--context ones): the federation as a picture (members by region and zone, supervisors and whom
each leads, reachability and credentials, recent changes of leader), the federated Services
(exporters and importers, types, conflicts, DNS names, ExternalDNS records), every policy of every
member (federated ones with their remote sources and refused peers, realisation per enforcement
point; filters by member, Namespace and state), the clouds (accounts, networks, VMs and services
with their agent or agentless state, tenants and the controller replicas that own them), and a
trace form. Every view follows the members' watches: nothing to reload (docs/console.md).

It reads each member through its kubeconfig context, with your credentials and no others: what
you may not read is shown as not readable, never as empty; a context that does not answer is
shown so, and the rest works. The address it prints carries a session token: nothing else on the
machine can read the members through it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if port < 0 || port > 65535 {
				return fmt.Errorf("--port %d: want 0 (any free port) to 65535", port)
			}
			kc, err := f.load()
			if err != nil {
				return err
			}
			clusters, err := f.chosen(kc)
			if err != nil {
				return err
			}
			l, err := listenConsole(address, port, port == defaultConsolePort && !cmd.Flags().Changed("port"))
			if err != nil {
				return err
			}
			reg := prometheus.NewRegistry()
			srv, err := console.New(console.Options{Mode: console.Local, Listener: l, Clusters: clusters, Domain: domain,
				Registry: reg, Gatherer: reg, Log: slog.New(slog.NewTextHandler(errOut, nil))})
			if err != nil {
				_ = l.Close()
				return err
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			fmt.Fprintf(out, "console of %d member(s): %s\n", len(clusters), srv.URL())
			if open {
				if err := openBrowser(srv.URL()); err != nil {
					fmt.Fprintf(errOut, "--open: %v; open the address above yourself\n", err)
				}
			}
			return srv.Run(ctx)
		},
	}
	c.Flags().StringVar(&address, "address", "127.0.0.1", "address to listen on (the console reads the members with your credentials: keep it local)")
	c.Flags().IntVar(&port, "port", defaultConsolePort, "port to listen on (0: any free port; the default one taken: any free port too)")
	c.Flags().BoolVar(&open, "open", false, "open the console in the browser, where there is one")
	c.Flags().StringVar(&domain, "cluster-domain", "cluster.local", "the members' cluster domain, for the federated Services' DNS names")
	return c
}

// listenConsole listens on address:port; when the port is taken and
// fallback says so, on any free port.
func listenConsole(address string, port int, fallback bool) (net.Listener, error) {
	addr := net.JoinHostPort(address, strconv.Itoa(port))
	l, err := net.Listen("tcp", addr)
	if err == nil || !fallback || !errors.Is(err, syscall.EADDRINUSE) {
		if err != nil {
			return nil, fmt.Errorf("listening on %s: %w", addr, err)
		}
		return l, nil
	}
	l, err = net.Listen("tcp", net.JoinHostPort(address, "0"))
	if err != nil {
		return nil, fmt.Errorf("listening on %s (port %d is taken): %w", address, port, err)
	}
	return l, nil
}

// openBrowser opens url in the user's browser: $BROWSER, else the
// system's opener.
func openBrowser(url string) error {
	if b := os.Getenv("BROWSER"); b != "" {
		return exec.Command(b, url).Start()
	}
	var name string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url).Start()
	default:
		name = "xdg-open"
	}
	if _, err := exec.LookPath(name); err != nil {
		return fmt.Errorf("no browser here (%s not found, $BROWSER not set)", name)
	}
	return exec.Command(name, url).Start()
}
