package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/install"
)

type joinFlags struct {
	clusterID string
	labels    []string
	install   bool
}

func federationJoin(f *federationFlags, out, errOut io.Writer) *cobra.Command {
	jf := &joinFlags{}
	c := &cobra.Command{
		Use:   "join --context CONTEXT [--cluster-id ID] [--label key=value]... [--install]",
		Short: "Join a cluster to the federation of the kubeconfig's supervisors",
		Example: `  antreaplus federation join --context edge-eu --label region=eu --label tier=edge
  antreaplus federation join --context edge-us --cluster-id edge-us-1 --install`,
		Long: `join gives the cluster its identity (ClusterMembership), a least-privilege account for the
supervisors (a ServiceAccount with a Role for its leader Lease and a ClusterRole to read
exports and write imports; never cluster-admin), and registers it, with that account's
credentials, in every supervisor. Joining again with the same ID renews the credentials.
With --install, the cluster first gets AntreaPlus's member components ('antreaplus install',
or nothing when it has a release).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			labels, err := parseLabels(jf.labels)
			if err != nil {
				return err
			}
			member, kc, err := f.cluster("join")
			if err != nil {
				return err
			}
			d, err := f.discover(ctx, kc, errOut)
			if err != nil {
				return err
			}
			if err := d.MissingError(); err != nil {
				return fmt.Errorf("%w; the member must be registered in every supervisor, so nothing was changed", err)
			}
			if jf.install {
				if err := ensureInstalled(ctx, member, install.RoleMember, errOut); err != nil {
					return err
				}
			}
			opts := membership.JoinOptions{FederationID: d.FederationID, Labels: labels}
			id, err := membership.Join(ctx, errOut, member, jf.clusterID, d.Supervisors, opts)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "%s joined federation %s as cluster %s; see 'antreaplus federation status'.\n", member.Name, d.FederationID, id)
			return nil
		},
	}
	c.Flags().StringVar(&jf.clusterID, "cluster-id", "", "cluster ID, unique in the federation (default: the ID it already has, else the context name made a DNS label)")
	c.Flags().StringArrayVar(&jf.labels, "label", nil, "label key=value of the member's registry entry (repeatable)")
	c.Flags().BoolVar(&jf.install, "install", false, "install AntreaPlus's member components in the cluster first")
	c.Flags().StringVar(&f.federationID, "federation-id", "", "federation to join (default: the only one whose supervisors the kubeconfig reaches)")
	return c
}
