package cmd

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/serviceexport/federatedservice"
)

func serviceList(f *serviceFlags, out, errOut io.Writer) *cobra.Command {
	var p printFlags
	c := &cobra.Command{
		Use:   "list [-o json|yaml]",
		Short: "List the federated Services: exporters, their Service types and addresses, importers, conflicts",
		Long: `list finds the federation's supervisors among the contexts --context names (repeatable),
else among every context of the kubeconfig, and reads every member their registries hold.`,
		Example: `  antreaplus service list
  antreaplus service list -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			if err := p.validate(); err != nil {
				return err
			}
			kc, err := f.load()
			if err != nil {
				return err
			}
			d, err := f.discoverChosen(ctx, kc, errOut)
			if err != nil {
				return err
			}
			members := map[string]*rest.Config{}
			for id, c := range d.Members {
				members[id] = c.Config
			}
			l, err := federatedservice.List(ctx, d.FederationID, members)
			if err != nil {
				return err
			}
			return p.print(out, l, func(w io.Writer) error { return printServices(w, l) })
		},
	}
	addPrintFlags(c, c.Flags(), &p, "")
	c.Flags().StringVar(&f.federationID, "federation-id", "", "federation to list (default: the only one whose supervisors the kubeconfig reaches)")
	return c
}

// printServices writes one block per federated Service.
func printServices(out io.Writer, l *federatedservice.Listing) error {
	fmt.Fprintf(out, "Federation %s: %d federated Service(s)\n", l.FederationID, len(l.Services))
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, s := range l.Services {
		fmt.Fprintf(w, "\n%s/%s\t%s\t%s\n", s.Namespace, s.Name, orDash(s.Type), orDash(strings.Join(s.Ports, ", ")))
		fmt.Fprintln(w, "  EXPORTER\tSERVICE TYPE\tOFFERS\tADDRESSES\tVALID\tREADY\tCONFLICT\tSCOPE\tREACHED")
		for _, e := range s.Exporters {
			fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Cluster, orDash(e.ServiceType), orDash(e.AddressType),
				orDash(addresses(e)), orDash(e.Valid), orDash(e.Ready), orDash(e.Conflict), orDash(e.Scope), orDash(reached(e)))
		}
		if len(s.Importers) > 0 {
			fmt.Fprintln(w, "  IMPORTER\tCLUSTER-SET IP\tENDPOINTS\tFROM")
		}
		for _, i := range s.Importers {
			fmt.Fprintf(w, "  %s\t%s\t%d\t%s\n", i.Cluster, orDash(strings.Join(i.IPs, ",")), i.Endpoints, orDash(strings.Join(i.Sources, ",")))
		}
		if err := w.Flush(); err != nil {
			return err
		}
		for _, c := range s.Conflicts {
			fmt.Fprintf(out, "  conflict: %s\n", c)
		}
		for _, e := range s.Exporters {
			if e.Joins != "" {
				fmt.Fprintf(out, "  %s: joins %s (its imports are there)\n", e.Cluster, e.Joins)
			}
			if e.Exported == "False" {
				fmt.Fprintf(out, "  %s: %s\n", e.Cluster, e.ExportedMessage)
			}
		}
	}
	if len(l.Unreadable) > 0 {
		fmt.Fprintln(out, "\nMembers that could not be read (their exports and imports are missing above):")
		ids := make([]string, 0, len(l.Unreadable))
		for id := range l.Unreadable {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			fmt.Fprintf(out, "  - %s: %s\n", id, l.Unreadable[id])
		}
	}
	return nil
}

// reached shows how many members an export reaches ("2/4"), from its
// Exported condition; empty before its leader wrote it.
func reached(e federatedservice.Exporter) string {
	n, of, ok := exportscope.ReachedOf(e.ExportedMessage)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d/%d", n, of)
}

// addresses shows an export's ready addresses with its ports, e.g. "10.0.0.1 (http 30080)".
func addresses(e federatedservice.Exporter) string {
	if len(e.Addresses) == 0 {
		return ""
	}
	shown := e.Addresses
	if len(shown) > 3 {
		shown = append(shown[:3:3], fmt.Sprintf("+%d", len(e.Addresses)-3))
	}
	var ports []string
	for name, p := range e.Ports {
		if name == "" {
			name = "port"
		}
		ports = append(ports, fmt.Sprintf("%s %d", name, p))
	}
	sort.Strings(ports)
	return fmt.Sprintf("%s (%s)", strings.Join(shown, ","), strings.Join(ports, ","))
}
