package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/federation/membership"
)

// federationFlags are the flags every federation command shares.
type federationFlags struct {
	*configFlags
	federationID string
}

func newFederationCommand(cfg *configFlags, out, errOut io.Writer) *cobra.Command {
	f := &federationFlags{configFlags: cfg}
	c := &cobra.Command{
		Use:   "federation",
		Short: "Create a federation of clusters, join and remove members, show its state",
		Example: `  antreaplus federation create --federation-id acme --supervisor hub-1 --supervisor hub-2
  antreaplus federation join --context edge-eu --label region=eu
  antreaplus federation status`,
		Long: `A federation is a set of member clusters with one federation ID and a unique cluster ID
each. Supervisors hold the registry of every member and run the federation managers, which
elect a leader for every member. The commands work on the contexts of a kubeconfig (the
sandbox's or real clusters'); supervisors are found by probing every context.`,
	}
	c.AddCommand(
		federationCreate(f, out, errOut),
		federationJoin(f, out, errOut),
		federationLeave(f, out, errOut),
		federationStatus(f, out, errOut),
		federationExternalDNS(f, out, errOut),
	)
	return c
}

// discover finds the federation's supervisors among the kubeconfig's contexts.
func (f *federationFlags) discover(ctx context.Context, kc *membership.Kubeconfig, errOut io.Writer) (*membership.Discovery, error) {
	return f.discoverAmong(ctx, kc, kc.Clusters, errOut)
}

// discoverChosen finds them among the contexts --context names, else every
// context: the readers (status, service list) probe only what they are told.
func (f *federationFlags) discoverChosen(ctx context.Context, kc *membership.Kubeconfig, errOut io.Writer) (*membership.Discovery, error) {
	clusters, err := f.chosen(kc)
	if err != nil {
		return nil, err
	}
	return f.discoverAmong(ctx, kc, clusters, errOut)
}

func (f *federationFlags) discoverAmong(ctx context.Context, kc *membership.Kubeconfig, clusters []membership.Cluster, errOut io.Writer) (*membership.Discovery, error) {
	fmt.Fprintf(errOut, "looking for supervisors among the %d contexts of %s ...\n", len(clusters), strings.Join(kc.Paths, ":"))
	d, err := membership.Discover(ctx, clusters, f.federationID, membership.DefaultProbeTimeout)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(errOut, "federation %s: supervisors %s\n", d.FederationID, strings.Join(contextNames(d.Supervisors), ", "))
	return d, nil
}

func contextNames(clusters []membership.Cluster) []string {
	out := make([]string, 0, len(clusters))
	for _, c := range clusters {
		out = append(out, c.Name)
	}
	return out
}

// parseLabels turns k=v flags into a map.
func parseLabels(flags []string) (map[string]string, error) {
	labels := map[string]string{}
	for _, l := range flags {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--label %q: want key=value, e.g. --label env=prod", l)
		}
		labels[k] = v
	}
	return labels, nil
}
