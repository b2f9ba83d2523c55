package cmd

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/serviceexport/federatedservice"
)

func serviceExport(f *serviceFlags, out, errOut io.Writer) *cobra.Command {
	var opts federatedservice.ExportOptions
	var wait time.Duration
	c := &cobra.Command{
		Use:   "export NAME -n NS --context CTX [--flat-network [--network NET]] [--to SELECTOR] [--to-clusters IDS | --to-all]",
		Short: "Export a Service of one member to the federation",
		Example: `  antreaplus service export web -n shop --context member-2
  # Pods reachable from every member: Pod IPs in a declared network
  antreaplus service export web -n shop --context member-3 --flat-network --network aws.vpc-0a1b
  # only to the members labelled region=eu (federation join --label), and to member-7
  antreaplus service export api -n payments --context member-1 --to region=eu --to-clusters member-7
  # to every member again
  antreaplus service export api -n payments --context member-1 --to-all`,
		Long: `export creates the ServiceExport of the Service, then waits for the member controller to judge it
(Valid, Ready) and prints the verdict. The Service must be reachable from outside its member: a
LoadBalancer or NodePort Service, or any Service whose Pods are routable on a flat network
(--flat-network). Private addresses are in the exporting cluster's network unless --network
names the network they are in (a Network's name, such as aws.vpc-0a1b for Pods in that VPC):
other members use them only where that network is flat-connected (docs/networks.md).

An export reaches every member unless --to (a label selector over the members' registry labels)
or --to-clusters (ClusterIDs) limits it; the exporting member is always in its own scope. A
member may also refuse an exporter (its ClusterMembership's spec.imports). Re-exporting without
--to, --to-clusters or --to-all keeps the scope set before: a scope is never widened by omission.
Where the export went is its Exported condition (docs/scoped-exports.md).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			member, _, err := f.cluster("export from (the member the Service is in)")
			if err != nil {
				return err
			}
			created, err := federatedservice.Export(ctx, member.Config, f.namespace, args[0], opts)
			if err != nil {
				return err
			}
			verb := "exported"
			if !created {
				verb = "already exported; updated"
			}
			fmt.Fprintf(errOut, "%s/%s %s from %s; waiting for the member controller's verdict ...\n", f.namespace, args[0], verb, member.Name)
			conds, err := federatedservice.WaitForConditions(ctx, member.Config, f.namespace, args[0], wait)
			if err != nil {
				return err
			}
			return printVerdict(out, conds, member.Name)
		},
	}
	f.addTargetFlags(c)
	c.Flags().BoolVar(&opts.FlatNetwork, "flat-network", false, "declare the Service's Pods routable from every member: the export offers Pod IPs")
	c.Flags().StringVar(&opts.Network, "network", "", "the network the exported private addresses are in (default: the exporting cluster's, cluster.<clusterID>)")
	c.Flags().StringVar(&opts.To, "to", "", "export only to the members whose registry labels match this selector (e.g. region=eu,tier!=test)")
	c.Flags().StringSliceVar(&opts.ToClusters, "to-clusters", nil, "export only to these members (ClusterIDs, comma-separated); with --to, a member in either")
	c.Flags().BoolVar(&opts.ToAll, "to-all", false, "remove the export's scope: every member imports it")
	c.Flags().DurationVar(&wait, "wait", 15*time.Second, "how long to wait for the export's conditions")
	return c
}

// printVerdict prints the export's conditions, or what to check when there are none.
func printVerdict(out io.Writer, conds []metav1.Condition, context string) error {
	valid := meta.FindStatusCondition(conds, string(mcsv1beta1.ServiceExportConditionValid))
	if valid == nil {
		fmt.Fprintf(out, "No verdict yet: is the member controller (cmd/member-controller) running in %s?\n", context)
		return nil
	}
	for _, t := range []string{string(mcsv1beta1.ServiceExportConditionValid), string(mcsv1beta1.ServiceExportConditionReady),
		string(mcsv1beta1.ServiceExportConditionConflict), federationv1alpha1.ConditionExported} {
		if c := meta.FindStatusCondition(conds, t); c != nil {
			fmt.Fprintf(out, "%-9s %-5s %-20s %s\n", c.Type, c.Status, c.Reason, c.Message)
		}
	}
	if valid.Status != metav1.ConditionTrue {
		return fmt.Errorf("the export is not valid: %s", valid.Message)
	}
	return nil
}

func serviceUnexport(f *serviceFlags, out io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:     "unexport NAME -n NS --context CTX",
		Short:   "Withdraw a Service of one member from the federation",
		Example: `  antreaplus service unexport web -n shop --context member-2`,
		Long: `unexport deletes the ServiceExport: every member's leader removes that member's endpoints from
the federated Service, and the ServiceImports once no member exports the name any more.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			member, _, err := f.cluster("unexport from (the member the Service is in)")
			if err != nil {
				return err
			}
			deleted, err := federatedservice.Unexport(ctx, member.Config, f.namespace, args[0])
			if err != nil {
				return err
			}
			if !deleted {
				fmt.Fprintf(out, "%s/%s is not exported from %s: nothing to do\n", f.namespace, args[0], member.Name)
				return nil
			}
			fmt.Fprintf(out, "%s/%s unexported from %s\n", f.namespace, args[0], member.Name)
			return nil
		},
	}
	f.addTargetFlags(c)
	return c
}
