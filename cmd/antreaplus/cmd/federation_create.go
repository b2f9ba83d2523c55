package cmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/install"
)

type createFlags struct {
	supervisors []string
	labels      []string
	install     bool
}

func federationCreate(f *federationFlags, out, errOut io.Writer) *cobra.Command {
	cf := &createFlags{}
	c := &cobra.Command{
		Use:   "create --federation-id ID --supervisor CONTEXT[=CLUSTER-ID] ... [--install]",
		Short: "Make kubeconfig contexts the supervisors of a (new) federation",
		Example: `  antreaplus federation create --federation-id acme --supervisor hub-1 --supervisor hub-2
  # with explicit cluster IDs, installing the components first
  antreaplus federation create --federation-id acme --supervisor hub-1=hub-1 --install`,
		Long: `create makes each named context a supervisor: it joins the federation as a member with
supervisor=true and holds the registry of every member. A supervisor's cluster ID is its
context name made a DNS label, or the one given as CONTEXT=CLUSTER-ID. Run it again with
more --supervisor flags to add supervisors to the federation; their registries get every
member the others know. With --install, each named supervisor first gets AntreaPlus's
supervisor components ('antreaplus install --role supervisor', or an upgrade adding the role
to its release; nothing when it has it).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			if f.federationID == "" || len(cf.supervisors) == 0 {
				return fmt.Errorf("give the federation ID and at least one supervisor, e.g. 'antreaplus federation create --federation-id acme --supervisor member-1'")
			}
			kc, err := f.load()
			if err != nil {
				return err
			}
			supervisors, ids, err := parseSupervisors(kc, cf.supervisors)
			if err != nil {
				return err
			}
			labels, err := parseLabels(cf.labels)
			if err != nil {
				return err
			}
			if cf.install {
				for _, s := range supervisors {
					if err := ensureInstalled(ctx, s, install.RoleSupervisor, errOut); err != nil {
						return err
					}
				}
			}
			supervisors = withExisting(ctx, f, kc, supervisors, errOut)
			opts := membership.CreateOptions{ClusterIDs: ids, Labels: labels}
			if err := membership.Create(ctx, errOut, f.federationID, supervisors, opts); err != nil {
				return err
			}
			fmt.Fprintf(out, "Federation %s has the supervisors %s.\nJoin members with 'antreaplus federation join --context CONTEXT'; see 'antreaplus federation status'.\n",
				f.federationID, strings.Join(contextNames(supervisors), ", "))
			return nil
		},
	}
	c.Flags().StringVar(&f.federationID, "federation-id", "", "ID of the federation (a DNS subdomain)")
	c.Flags().StringArrayVar(&cf.supervisors, "supervisor", nil, "context to make a supervisor, as CONTEXT or CONTEXT=CLUSTER-ID (repeatable)")
	c.Flags().StringArrayVar(&cf.labels, "label", nil, "label key=value of the supervisors' registry entries (repeatable)")
	c.Flags().BoolVar(&cf.install, "install", false, "install AntreaPlus's supervisor components in each named supervisor first")
	return c
}

// parseSupervisors resolves CONTEXT[=CLUSTER-ID] flags.
func parseSupervisors(kc *membership.Kubeconfig, flags []string) ([]membership.Cluster, map[string]string, error) {
	var clusters []membership.Cluster
	ids := map[string]string{}
	for _, s := range flags {
		name, id, _ := strings.Cut(s, "=")
		c, err := kc.Cluster(name)
		if err != nil {
			return nil, nil, err
		}
		if id != "" {
			ids[name] = id
		}
		clusters = append(clusters, c)
	}
	return clusters, ids, nil
}

// withExisting adds the federation's existing supervisors, so that a new
// supervisor is registered in theirs and they in its registry.
func withExisting(ctx context.Context, f *federationFlags, kc *membership.Kubeconfig, named []membership.Cluster, errOut io.Writer) []membership.Cluster {
	d, err := membership.Discover(ctx, kc.Clusters, f.federationID, membership.DefaultProbeTimeout)
	if err != nil {
		return named // a new federation
	}
	all := named
	for _, s := range d.Supervisors {
		if !slices.ContainsFunc(all, func(c membership.Cluster) bool { return c.Name == s.Name }) {
			fmt.Fprintf(errOut, "%s: already a supervisor of %s; it stays one\n", s.Name, f.federationID)
			all = append(all, s)
		}
	}
	if err := d.MissingError(); err != nil {
		fmt.Fprintf(errOut, "warning: %v\n", err)
	}
	return all
}
