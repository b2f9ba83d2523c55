// Package networklist reads a member's Networks for `antreaplus network
// list`: each with its kind, ranges, flat connections and verdict.
package networklist

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
)

// Network is one Network as the list shows it.
type Network struct {
	Name  string   `json:"name"`
	Kind  string   `json:"kind"`
	VPC   string   `json:"vpc,omitempty"`
	CIDRs []string `json:"cidrs"`
	// Flat are the flat connections, "<network> (<via>)".
	Flat []string `json:"flat,omitempty"`
	// Valid is the Valid condition's status, reason and message ("Unknown"
	// before the member controller judged it).
	Valid   string `json:"valid"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// List reads the Networks of the cluster cfg reaches, sorted by name.
func List(ctx context.Context, cfg *rest.Config) ([]Network, error) {
	sch, err := scheme.New()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: sch})
	if err != nil {
		return nil, err
	}
	list := &federationv1alpha1.NetworkList{}
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing Networks (is AntreaPlus installed, at a version with Networks?): %w", err)
	}
	out := make([]Network, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, Row(&list.Items[i]))
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out, nil
}

// Row is a Network as the list shows it.
func Row(n *federationv1alpha1.Network) Network {
	r := Network{Name: n.Name, Kind: string(n.Spec.Kind), CIDRs: n.Spec.CIDRs, Valid: "Unknown"}
	if n.Spec.Cloud != nil {
		r.VPC = n.Spec.Cloud.Provider + " " + n.Spec.Cloud.VPCID
	}
	for _, f := range n.Spec.Flat {
		r.Flat = append(r.Flat, fmt.Sprintf("%s (%s)", f.Network, f.Via))
	}
	if v := meta.FindStatusCondition(n.Status.Conditions, federationv1alpha1.NetworkConditionValid); v != nil && v.ObservedGeneration == n.Generation {
		r.Valid, r.Reason, r.Message = string(v.Status), v.Reason, v.Message
	}
	return r
}

// PrintTable writes the Networks as a table, the message of those not
// valid under it.
func PrintTable(w io.Writer, nets []Network) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tCIDRS\tFLAT\tVALID")
	for _, n := range nets {
		flat := strings.Join(n.Flat, ", ")
		if flat == "" {
			flat = "-"
		}
		valid := n.Valid
		if n.Reason != "" && n.Valid != "True" {
			valid += " (" + n.Reason + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", n.Name, n.Kind, strings.Join(n.CIDRs, ","), flat, valid)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range nets {
		if n.Valid == "False" {
			fmt.Fprintf(w, "%s: %s\n", n.Name, n.Message)
		}
	}
	return nil
}
