package cmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/federation/membership"
)

type leaveFlags struct {
	force bool
}

func federationLeave(f *federationFlags, out, errOut io.Writer) *cobra.Command {
	lf := &leaveFlags{}
	c := &cobra.Command{
		Use:   "leave --context CONTEXT [--force]",
		Short: "Remove a cluster from its federation, leaving nothing of the federation behind",
		Example: `  antreaplus federation leave --context edge-eu
  # a supervisor, or with a supervisor down
  antreaplus federation leave --context hub-2 --force`,
		Long: `leave removes the cluster's entry and credentials from every supervisor's registry, then
everything join created in the cluster: its identity, the federation account and its roles,
the Leases, the imports the federation wrote, and the namespace once nothing else is in it.
It refuses, changing nothing, when a supervisor cannot be reached or when the cluster is a
supervisor (its registry would be lost); --force leaves anyway.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			member, kc, err := f.cluster("remove")
			if err != nil {
				return err
			}
			supervisors, err := leaveSupervisors(ctx, f, kc, member, lf.force, errOut)
			if err != nil {
				return err
			}
			if err := membership.Leave(ctx, errOut, member, supervisors, lf.force); err != nil {
				return err
			}
			fmt.Fprintf(out, "%s left its federation.\n", member.Name)
			return nil
		},
	}
	c.Flags().BoolVar(&lf.force, "force", false, "leave even when a supervisor cannot be reached, or when the cluster is a supervisor")
	c.Flags().StringVar(&f.federationID, "federation-id", "", "federation the cluster belongs to (default: the one its identity names)")
	return c
}

// leaveSupervisors finds the supervisors of the member's federation. A
// cluster that belongs to none may still have registry entries (a join
// interrupted): then the only federation found is searched.
func leaveSupervisors(ctx context.Context, f *federationFlags, kc *membership.Kubeconfig, member membership.Cluster, force bool, errOut io.Writer) ([]membership.Cluster, error) {
	id, err := membership.Identity(ctx, member)
	if err != nil {
		return nil, fmt.Errorf("%w: is %s up?", err, member.Name)
	}
	if id != nil && f.federationID == "" {
		f.federationID = id.Spec.FederationID
	}
	d, err := f.discover(ctx, kc, errOut)
	switch {
	case err != nil && (id == nil || force):
		fmt.Fprintf(errOut, "no supervisor found (%v); cleaning %s only\n", err, member.Name)
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%w; or run with --force to clean %s without its supervisors", err, member.Name)
	}
	if err := d.MissingError(); err != nil {
		if !force {
			return nil, fmt.Errorf("%w; nothing was changed: run with --force to leave anyway", err)
		}
		fmt.Fprintf(errOut, "warning: %v\n", err)
	}
	return d.Supervisors, nil
}
