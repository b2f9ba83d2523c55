package cmd

import (
	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/sandbox"
)

// sandboxPodExec is what the as-installed sandbox starts, in a Pod's
// network and mount namespaces, to become the Pod's container.
func sandboxPodExec() *cobra.Command {
	var spec string
	c := &cobra.Command{
		Use:    "pod-exec --spec FILE",
		Short:  "Become a Pod's container: mounts, root, user, no capabilities (run by 'up --as-installed')",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			s, err := sandbox.ReadPodExecSpec(spec)
			if err != nil {
				return err
			}
			return sandbox.ExecPod(s)
		},
	}
	c.Flags().StringVar(&spec, "spec", "", "the Pod's spec file, written by the sandbox")
	_ = c.MarkFlagRequired("spec")
	return c
}

// sandboxRelay relays Service addresses: in a Pod's namespace, or on the
// host (the as-installed sandbox's load balancer).
func sandboxRelay() *cobra.Command {
	var (
		opts     sandbox.RelayOptions
		tcp, udp []string
	)
	c := &cobra.Command{
		Use:    "relay [--netns NAME] [--tcp LISTEN=FORWARD]... [--udp LISTEN=FORWARD]...",
		Short:  "Relay TCP connections and UDP exchanges (run by 'up --as-installed')",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, list := range []struct {
				in  []string
				out *[]sandbox.RelayPair
			}{{tcp, &opts.TCP}, {udp, &opts.UDP}} {
				for _, s := range list.in {
					p, err := sandbox.ParseRelayPair(s)
					if err != nil {
						return err
					}
					*list.out = append(*list.out, p)
				}
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			return sandbox.Relay(ctx, opts)
		},
	}
	c.Flags().StringVar(&opts.NetNS, "netns", "", "network namespace to listen in (default: this process's)")
	c.Flags().StringVar(&opts.ReadyFile, "ready-file", "", "create this file once every address is listened on")
	c.Flags().StringArrayVar(&tcp, "tcp", nil, "relay TCP connections to LISTEN to FORWARD (repeatable)")
	c.Flags().StringArrayVar(&udp, "udp", nil, "relay UDP datagrams to LISTEN to FORWARD, and the replies (repeatable)")
	return c
}
