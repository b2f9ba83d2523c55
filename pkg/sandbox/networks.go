package sandbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
)

// networksFieldOwner is the field manager of the flat connections the
// sandbox declares, as an operator would with kubectl apply.
const networksFieldOwner = "antreaplus-sandbox"

// networksTimeout bounds the wait for the cloud controllers' Networks.
const networksTimeout = 2 * time.Minute

// memberNetworks are the Networks a cloud member's cloud controller wrote.
type memberNetworks struct {
	cluster  string
	networks []federationv1alpha1.Network
}

// planFlat is what the sandbox declares flat: its VMs share one bridge, so
// every cloud network of every member reaches every other without NAT.
// It returns, per member, each of its networks' flat connections (the
// others, with their ranges), sorted.
func planFlat(members []memberNetworks) map[string]map[string][]federationv1alpha1.FlatConnection {
	out := map[string]map[string][]federationv1alpha1.FlatConnection{}
	for _, m := range members {
		out[m.cluster] = map[string][]federationv1alpha1.FlatConnection{}
		for _, n := range m.networks {
			var flat []federationv1alpha1.FlatConnection
			for _, o := range members {
				for _, peer := range o.networks {
					if peer.Name == n.Name || slices.ContainsFunc(flat, func(f federationv1alpha1.FlatConnection) bool { return f.Network == peer.Name }) {
						continue
					}
					flat = append(flat, federationv1alpha1.FlatConnection{Network: peer.Name, CIDRs: peer.Spec.CIDRs, Via: federationv1alpha1.ViaDeclared})
				}
			}
			slices.SortFunc(flat, func(a, b federationv1alpha1.FlatConnection) int { return strings.Compare(a.Network, b.Network) })
			out[m.cluster][n.Name] = flat
		}
	}
	return out
}

// declareFlatNetworks waits for the Networks of the VPCs and VNets each
// cloud member imports, then declares those of its bridge flat to each
// other (planFlat); the edge networks (--networks) are not: their VMs are
// behind routers that NAT.
func (s *Sandbox) declareFlatNetworks(ctx context.Context, members []CloudMember) error {
	var found []memberNetworks
	clients := map[string]client.Client{}
	for _, m := range members {
		c, err := s.cloudClient(m.Cluster)
		if err != nil {
			return err
		}
		clients[m.Cluster] = c
		nets, err := waitNetworks(ctx, c, m.Cluster)
		if err != nil {
			return err
		}
		found = append(found, memberNetworks{cluster: m.Cluster, networks: nets})
	}
	var errs []error
	for cluster, byNetwork := range planFlat(found) {
		for name, flat := range byNetwork {
			if err := applyFlat(ctx, clients[cluster], name, flat); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", cluster, err))
			}
		}
		s.logf("%s: its cloud networks declared flat to the sandbox's others (one bridge): %d Networks", cluster, len(byNetwork))
	}
	return errors.Join(errs...)
}

// waitNetworks waits until cluster holds the Network of every VPC (VNet)
// its NetworkInterfaces are in, and returns those Networks.
func waitNetworks(ctx context.Context, c client.Client, cluster string) ([]federationv1alpha1.Network, error) {
	deadline := time.Now().Add(networksTimeout)
	for {
		nets, missing, err := importedNetworks(ctx, c)
		if err == nil && len(missing) == 0 && len(nets) > 0 {
			return nets, nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return nil, fmt.Errorf("%s: reading the Networks: %w", cluster, err)
			}
			return nil, fmt.Errorf("%s: the cloud controller wrote no Network for %v within %s: is it running? see its log", cluster, missing, networksTimeout)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// importedNetworks returns the Networks the cloud controller wrote, but
// the edge networks', and what is still missing: the Networks of the
// interfaces' VPCs. (The cloud controller writes the Networks of all the
// VPCs of an account's region before it imports their objects: once an
// interface of a poll is imported, the Networks of every VPC of that poll
// are there, the VPCs of agentless VMs included.)
func importedNetworks(ctx context.Context, c client.Client) ([]federationv1alpha1.Network, []string, error) {
	nics := &cloudv1alpha1.NetworkInterfaceList{}
	if err := c.List(ctx, nics); err != nil {
		return nil, nil, err
	}
	vms := &cloudv1alpha1.VirtualMachineList{}
	if err := c.List(ctx, vms); err != nil {
		return nil, nil, err
	}
	edge := map[string]bool{}
	for i := range vms.Items {
		if n := routedNetwork(&vms.Items[i]); n != "" {
			edge[n] = true
		}
	}
	list := &federationv1alpha1.NetworkList{}
	if err := c.List(ctx, list, client.MatchingLabels{federationv1alpha1.LabelManagedBy: inventory.ManagedByNetworks}); err != nil {
		return nil, nil, err
	}
	var out []federationv1alpha1.Network
	have := map[string]bool{}
	for _, n := range list.Items {
		if !edge[n.Name] {
			out = append(out, n)
			have[n.Name] = true
		}
	}
	var missing []string
	for _, n := range nics.Items {
		if name := inventory.NetworkName(string(n.Spec.Provider), n.Spec.VPCID); name != "" && !edge[name] && !have[name] && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	if len(nics.Items) == 0 {
		missing = append(missing, "(no interface imported yet)")
	}
	return out, missing, nil
}

// applyFlat applies a Network's flat connections as the sandbox's, leaving
// the cloud controller's fields to it.
func applyFlat(ctx context.Context, c client.Client, name string, flat []federationv1alpha1.FlatConnection) error {
	entries := make([]any, 0, len(flat))
	for _, f := range flat {
		cidrs := make([]any, len(f.CIDRs))
		for i, c := range f.CIDRs {
			cidrs[i] = c
		}
		entries = append(entries, map[string]any{"network": f.Network, "cidrs": cidrs, "via": string(f.Via)})
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": federationv1alpha1.GroupVersion.String(), "kind": "Network",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"flat": entries},
	}}
	if err := c.Patch(ctx, u, client.Apply, client.FieldOwner(networksFieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("declaring Network %s flat to %d networks: %w", name, len(flat), err)
	}
	return nil
}
