package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/pkg/trace"
	"antreaplus.io/antreaplus/pkg/trace/gather"
)

func newTraceCommand(f *configFlags, out, errOut io.Writer) *cobra.Command {
	var (
		p         printFlags
		from, to  string
		protocol  string
		port      int32
		namespace string
		timeout   time.Duration
		live      bool
		liveFor   int32
		local     bool
	)
	c := &cobra.Command{
		Use:   "trace --from SOURCE --to DESTINATION [--port N] [--protocol TCP|UDP|SCTP] [--live] [-n NS] [--context CTX]...",
		Short: "Why is a connection allowed or dropped? The path of one flow across members, clouds and VMs, hop by hop",
		Example: `  antreaplus trace --from member-1:vm/dev-build-1 --to member-2:vm/dev-build-2 --port 8080
  antreaplus trace --from vm/edge-web-1 --to vm/edge-db-1 --port 5432 -o json
  antreaplus trace --from member-2:vm/dev-build-1 --to web.shop.svc.clusterset.local --port 80
  antreaplus trace --from 198.51.100.7 --to member-1:service/prod-orders --port 5432
  antreaplus trace --from member-1:pod/shop/web-0 --to member-2:vm/db-1 --port 5432
  antreaplus trace --from member-1:vm/dev-build-3 --to member-2:vm/dev-build-2 --port 8080 --live`,
		Long: `trace shows the path of one flow: how the destination's name resolves (a federated
Service: its ServiceImport and exporters), the addresses the packet carries on its leg
(private where the networks are flat, else public and NAT egress addresses:
docs/networks.md), then at the source's egress enforcement point and the destination's
ingress one (a VM agent, the cloud controller's security groups) the verdict and the exact
tier, policy and rule that decided it, with the FederatedNetworkPolicy a derived policy came
from, or "no rule: default allow" (docs/trace.md).

trace reads only what the flow's ends need (the entities it names, selected by the API
servers; a member whole only to find an IP address's holder) and asks each point's member
to decide it: a Trace object there, which its policy controller answers from the rules it
serves the point's enforcer. A member that cannot answer (no Trace API, no policy controller
within 5 s), or --port 0, or --local: the members are read whole and their policies
compiled here, as their policy controllers compile them. Asking needs the right to create
Traces in the points' Namespaces: a tenant admin traces its own Namespace's workloads only.

A source or destination is [MEMBER:]vm/NAME (a VM by its Name tag), service/NAME (a cloud
service), entity/NAMESPACE/NAME (an ExternalEntity), pod/NAMESPACE/NAME (a Pod: its own
policies are Antrea's, whose Traceflow traces them; that leg is "undecided" here),
MEMBER:remote/NAME (a RemoteEntity: traced in the member it comes from), an IP address, or
NAME.NAMESPACE.svc.clusterset.local (resolved in the source's member). A member that cannot
be read is said so; the rest is traced.

With --live the flow is also sent for real: the destination VM's agent watches for it and
then the source VM's agent sends it; the kernel's nftables tracing names the rule that
decided the real packet at each point, shown beside the computed verdict, and a difference
(a rule not realised yet, an agent out of date) is flagged. It needs --port.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := p.validate(); err != nil {
				return err
			}
			if from == "" || to == "" {
				return fmt.Errorf("give both --from and --to")
			}
			proto := policyrules.Protocol(strings.ToUpper(protocol))
			switch proto {
			case policyrules.ProtocolTCP, policyrules.ProtocolUDP, policyrules.ProtocolSCTP:
			default:
				return fmt.Errorf("--protocol %q: use TCP, UDP or SCTP", protocol)
			}
			if port < 0 || port > 65535 {
				return fmt.Errorf("--port %d: want 1 to 65535 (0: any port)", port)
			}
			if live && port == 0 {
				return fmt.Errorf("--live sends a real flow: give --port")
			}
			if liveFor < 1 || liveFor > 30 {
				return fmt.Errorf("--live-timeout %d: want 1 to 30 seconds", liveFor)
			}
			src, err := gather.ParseSpec(from)
			if err != nil {
				return fmt.Errorf("--from %w", err)
			}
			dst, err := gather.ParseSpec(to)
			if err != nil {
				return fmt.Errorf("--to %w", err)
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			kc, err := f.load()
			if err != nil {
				return err
			}
			clusters, err := f.chosen(kc)
			if err != nil {
				return err
			}
			started := time.Now()
			w := readForTrace(ctx, errOut, kc.Paths, clusters, timeout, namespace, local, src, dst)
			read := time.Since(started)
			source, _, err := w.Workload(src, namespace, "")
			if err != nil {
				return fmt.Errorf("source: %w", err)
			}
			dest, resolved, err := w.Workload(dst, namespace, source.Member)
			if err != nil {
				return fmt.Errorf("destination: %w", err)
			}
			q := trace.Query{Source: source, Destination: dest, Protocol: proto, Port: port, Resolved: resolved, Flat: w.Flat}
			report := traceReport{From: source.Name, To: dest.Name, Protocol: string(proto), Port: port}
			asked := false
			if !local && port != 0 {
				// The points' members decide them, from the rules their
				// policy controllers serve the enforcers.
				obs, err := askMembers(ctx, errOut, clusters, trace.Compute(q), proto, port, live, liveFor)
				switch {
				case err == nil:
					decide(obs, &q.Source, &q.Destination)
					asked = true
					if live {
						report.Live = obs
					}
				case errors.Is(err, errNotAnswered):
					fmt.Fprintf(errOut, "%v: computing the trace here\n", err)
				case errors.Is(err, trace.ErrNoPoint), errors.Is(err, trace.ErrNoAddresses) && !live:
					asked = true // nothing to decide
				case errors.Is(err, trace.ErrNoAddresses):
					return fmt.Errorf("--live: nothing can be sent: %w; without --live the trace says why", err)
				default:
					return err
				}
			}
			if !asked {
				var members []string
				for _, wl := range []trace.Workload{source, dest} {
					if wl.Point != nil {
						members = append(members, wl.Point.Member)
					}
				}
				w.Complete(ctx, members...)
				if err := w.Compile(&q.Source, &q.Destination); err != nil {
					return err
				}
				q.Federated = w.Federated()
				if live {
					if report.Live, err = askMembers(ctx, errOut, clusters, trace.Compute(q), proto, port, true, liveFor); err != nil {
						return fmt.Errorf("live trace: %w", err)
					}
				}
			}
			report.Result = trace.Compute(q)
			report.Took = traceTimings{Read: read.Round(time.Millisecond).String(),
				Decide: (time.Since(started) - read).Round(time.Millisecond).String(), By: "here"}
			if asked {
				report.Took.By = "members"
			}
			return p.print(out, report, func(out io.Writer) error { return printTrace(out, report) })
		},
	}
	c.Flags().StringVar(&from, "from", "", "the source: [MEMBER:]vm/NAME, service/NAME, entity/NS/NAME, pod/NS/NAME, MEMBER:remote/NAME or an IP address")
	c.Flags().StringVar(&to, "to", "", "the destination: the same, or NAME.NAMESPACE.svc.clusterset.local")
	c.Flags().StringVar(&protocol, "protocol", "TCP", "TCP, UDP or SCTP")
	c.Flags().Int32Var(&port, "port", 0, "the destination port (0: any)")
	c.Flags().StringVarP(&namespace, "namespace", "n", "", "look for the source and destination in this namespace only")
	c.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "how long to wait for each member")
	c.Flags().BoolVar(&live, "live", false, "also send the flow for real and show the rule each VM agent saw decide it (Trace objects in the members)")
	c.Flags().BoolVar(&local, "local", false, "read the members whole and compile their policies here, as their policy controllers do, instead of asking them (Trace objects)")
	c.Flags().Int32Var(&liveFor, "live-timeout", 10, "with --live, seconds the source's agent tries to connect and the destination's agent watches")
	addPrintFlags(c, c.Flags(), &p, "")
	return c
}

// readForTrace reads the members: what the flow's ends need (ReadFor), or
// everything (--local).
func readForTrace(ctx context.Context, errOut io.Writer, paths []string, clusters []membership.Cluster, timeout time.Duration,
	namespace string, local bool, src, dst gather.Spec) *gather.World {
	var w *gather.World
	if local {
		fmt.Fprintf(errOut, "reading %d member(s) of %s whole ...\n", len(clusters), strings.Join(paths, ":"))
		w = gather.Read(ctx, clusters, timeout)
	} else {
		w = gather.ReadFor(ctx, clusters, timeout, namespace, src, dst)
	}
	for _, m := range w.Members {
		switch {
		case m.Err != nil:
			fmt.Fprintf(errOut, "%s: not read: %v\n", m.Context, m.Err)
		case len(m.Partial) > 0:
			fmt.Fprintf(errOut, "%s: partly read (%s not read)\n", m.Context, strings.Join(m.Partial, ", "))
		}
	}
	return w
}

// traceReport is what trace prints.
type traceReport struct {
	From     string       `json:"from"`
	To       string       `json:"to"`
	Protocol string       `json:"protocol"`
	Port     int32        `json:"port,omitempty"`
	Result   trace.Result `json:"trace"`
	// Live is what the agents observed (--live).
	Live []liveObservation `json:"live,omitempty"`
	// Took is where the command's time went: reading the members, and
	// deciding (the members' Traces, or compiling here).
	Took traceTimings `json:"took"`
}

// traceTimings are the command's stages, as durations ("120ms").
type traceTimings struct {
	Read   string `json:"read"`
	Decide string `json:"decide"`
	// By says who decided: "members" (Trace objects) or "here".
	By string `json:"by"`
}

// printTrace writes a trace as a tree.
func printTrace(out io.Writer, r traceReport) error {
	port := ""
	if r.Port != 0 {
		port = fmt.Sprintf("/%d", r.Port)
	}
	fmt.Fprintf(out, "%s\n  -> %s\n  %s%s: %s\n", r.From, r.To, r.Protocol, port, strings.ToUpper(string(r.Result.Verdict)))
	for i, s := range r.Result.Steps {
		branch, cont := "├─", "│ "
		if i == len(r.Result.Steps)-1 {
			branch, cont = "└─", "  "
		}
		head := s.Kind
		switch {
		case (s.Kind == trace.StepEgress || s.Kind == trace.StepIngress) && s.Point == "":
			head = fmt.Sprintf("%s: %s", s.Kind, s.Result)
		case s.Kind == trace.StepEgress || s.Kind == trace.StepIngress:
			head = fmt.Sprintf("%s at %s in %s (enforced by %s): %s", s.Kind, s.Point, s.Member, s.Via, s.Result)
		case s.Kind == trace.StepLeg:
			head = "the packet"
			if s.Result != "" {
				head += ": " + string(s.Result)
			}
		case s.Kind == trace.StepDNS:
			head = "name resolution in " + s.Member
		}
		fmt.Fprintf(out, "%s %s\n%s   %s\n", branch, head, cont, s.Note)
		if o, ok := observedFor(r.Live, s); ok {
			fmt.Fprintf(out, "%s   %s\n", cont, observedLine(o))
		}
	}
	return nil
}
