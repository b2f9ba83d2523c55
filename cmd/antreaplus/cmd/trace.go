package cmd

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/pkg/trace"
	"antreaplus.io/antreaplus/pkg/trace/gather"
	"antreaplus.io/antreaplus/pkg/trace/tracing"
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
policies are Antrea's, so in a member that runs Antrea its leg is asked of Antrea's
Traceflow there: a packet injected at a source Pod, or, with --live, the real packet to a
destination Pod; the rule Antrea names is quoted; elsewhere that leg is "undecided"),
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
			req := tracing.Request{From: src, To: dst, Protocol: proto, Port: port,
				Namespace: namespace, Timeout: timeout, Live: live, LiveSeconds: liveFor, Local: local}
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
			report, err := tracing.Run(ctx, clusters, req, errOut)
			if err != nil {
				return err
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

// printTrace writes a trace as a tree.
func printTrace(out io.Writer, r tracing.Report) error {
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
		if o, ok := tracing.ObservedFor(r.Live, s); ok {
			fmt.Fprintf(out, "%s   %s\n", cont, tracing.ObservedLine(o))
		}
	}
	return nil
}
