package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/pkg/cloud/sgtranslate"
	"antreaplus.io/antreaplus/pkg/externalentity"
	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// groupPrefix is the cloud controller's default --agentless-group-prefix.
const groupPrefix = "antreaplus-"

// syncConcurrency is the agentless syncer's default: VPCs synced at a time.
const syncConcurrency = 4

// pipeline is the path of one account's policies to its security groups,
// stage by stage, as the controllers run it:
//
//	provider.Inventory → inventory.Desired → externalentity.ForNetworkInterface  (cloud controller import)
//	policycompiler → wire.NewEndpoint → wire.View.Apply                          (policy controller feeder, distribution)
//	placement → sgtranslate.Translate → provider.SyncSecurityGroups per VPC      (agentless syncer round)
//
// The feeder's loop, the hub's agentless scope and the syncer's placement
// and round are reproduced here with the same calls: they are
// unexported or need an API server.
type pipeline struct {
	c        *cloud
	ns       string
	nics     map[string]*cloudv1alpha1.NetworkInterface // by namespace/name
	entities map[string]*antreav1alpha2.ExternalEntity
	policies []*antreav1beta1.NetworkPolicy
	compiler *policycompiler.Compiler
	view     *wire.View
}

// importInventory reads the account through the provider and makes the
// objects the cloud controller imports: VMs, NICs and their
// ExternalEntities.
func (p *pipeline) importInventory(ctx context.Context) error {
	snap, err := p.c.provider.Inventory(ctx, p.c.region)
	if err != nil {
		return fmt.Errorf("%s: inventory: %w", p.c.name, err)
	}
	p.ns = p.c.account.Namespace
	sel := &cloudv1alpha1.CloudEntitySelector{}
	sel.Namespace, sel.Name = p.ns, p.c.name
	sel.Spec.VirtualMachines = []cloudv1alpha1.VirtualMachineMatch{{VMMatch: &cloudv1alpha1.EntityMatch{Tags: map[string]string{"env": "prod"}},
		EnforcementMode: cloudv1alpha1.EnforcementAgentless}}
	objs := inventory.Desired(inventory.Input{Selector: sel, Snapshots: []*provider.Snapshot{snap},
		Account: cloudv1alpha1.CloudProviderAccountReference{Namespace: p.c.account.Namespace, Name: p.c.account.Name}})
	vms := map[string]*cloudv1alpha1.VirtualMachine{}
	for i := range objs.VirtualMachines {
		vms[objs.VirtualMachines[i].Name] = &objs.VirtualMachines[i]
	}
	p.nics, p.entities = map[string]*cloudv1alpha1.NetworkInterface{}, map[string]*antreav1alpha2.ExternalEntity{}
	for i := range objs.NetworkInterfaces {
		nic := &objs.NetworkInterfaces[i]
		p.nics[nic.Namespace+"/"+nic.Name] = nic
		ee := externalentity.ForNetworkInterface(nic, vms[nic.Spec.VirtualMachine], agentlessEEs)
		p.entities[ee.Namespace+"/"+ee.Name] = ee
	}
	return nil
}

// compile compiles every policy over the ExternalEntities and makes the
// agentless consumer's view: the Sync event of its scope, applied.
func (p *pipeline) compile() error {
	p.compiler = policycompiler.New()
	objs := []any{&policycompiler.Namespace{Name: p.ns, Labels: map[string]string{"kubernetes.io/metadata.name": p.ns}}}
	for _, key := range slices.Sorted(maps.Keys(p.entities)) {
		objs = append(objs, p.entities[key])
	}
	for _, np := range p.policies {
		objs = append(objs, np)
	}
	if err := p.compiler.Upsert(objs...); err != nil {
		return err
	}
	for _, np := range p.policies {
		st, _ := p.compiler.PolicyStatus(policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: np.Namespace, Name: np.Name})
		if !st.Realized {
			return fmt.Errorf("policy %s/%s does not compile: %v", np.Namespace, np.Name, st.Issues)
		}
	}
	var err error
	p.view, err = (*wire.View)(nil).Apply(&wire.Event{Type: wire.EventSync, Epoch: "bench", Generation: 1,
		Scope: "*/" + agentlessEEs, Endpoints: p.agentlessEndpoints(p.compiler.Changed(), nil)})
	return err
}

// change applies an updated policy: the compiler recompiles what it
// touches and the view gets the Update event the hub would send.
func (p *pipeline) change(np *antreav1beta1.NetworkPolicy) (endpoints int, err error) {
	if err := p.compiler.Upsert(np); err != nil {
		return 0, err
	}
	changed := p.agentlessEndpoints(p.compiler.Changed(), p.view)
	p.view, err = p.view.Apply(&wire.Event{Type: wire.EventUpdate, Epoch: p.view.Epoch, Generation: p.view.Generation + 1, Endpoints: changed})
	return len(changed), err
}

// agentlessEndpoints are the changed endpoints of the agentless scope, as
// the feeder makes them (wire.NewEndpoint with the entity's addresses)
// and an event carries them (only new rule bodies after prev).
func (p *pipeline) agentlessEndpoints(changed []string, prev *wire.View) []wire.Endpoint {
	var out []wire.Endpoint
	for _, name := range changed {
		rules, ok := p.compiler.Rules(name)
		if !ok || rules.ExternalNode != agentlessEEs {
			continue
		}
		full := wire.NewEndpoint(rules, addresses(p.entities[name]))
		var before *wire.Endpoint
		if prev != nil {
			before = prev.Endpoints[name]
		}
		out = append(out, full.Delta(before))
	}
	return out
}

func addresses(ee *antreav1alpha2.ExternalEntity) []netip.Addr {
	var out []netip.Addr
	for _, ep := range ee.Spec.Endpoints {
		if a, err := netip.ParseAddr(ep.IP); err == nil {
			out = append(out, a.Unmap())
		}
	}
	slices.SortFunc(out, netip.Addr.Compare)
	return slices.Compact(out)
}

// place puts every endpoint of the view on its network interface, as the
// syncer does from its cache of ExternalEntities and NetworkInterfaces.
func (p *pipeline) place() []sgtranslate.Endpoint {
	out := make([]sgtranslate.Endpoint, 0, len(p.view.Endpoints))
	for _, name := range p.view.Names() {
		ep := p.view.Endpoints[name]
		te := sgtranslate.Endpoint{Name: name, Rules: ep.RuleList()}
		ee := p.entities[name]
		nic := p.nics[ee.Namespace+"/"+ee.Labels[cloudv1alpha1.LabelEntityNetworkInterface]]
		if loc, ok := locationOf(nic); ok && nic.Spec.CloudID != "" {
			te.Interface = &sgtranslate.Interface{ID: nic.Spec.CloudID, Location: loc}
		} else {
			te.Unplaced = "no network interface"
		}
		out = append(out, te)
	}
	return out
}

func locationOf(n *cloudv1alpha1.NetworkInterface) (sgtranslate.Location, bool) {
	if n == nil {
		return sgtranslate.Location{}, false
	}
	account := types.NamespacedName{Namespace: n.Labels[cloudv1alpha1.LabelAccountNamespace], Name: n.Labels[cloudv1alpha1.LabelAccountName]}
	loc := sgtranslate.Location{Account: account, Region: n.Spec.Region, VPC: n.Spec.VPCID}
	return loc, account.Name != "" && loc.Region != "" && loc.VPC != ""
}

// locations are every VPC of the inventory, which a round syncs even when
// it holds no endpoint with rules.
func (p *pipeline) locations() []sgtranslate.Location {
	set := map[sgtranslate.Location]bool{}
	for _, n := range p.nics {
		if loc, ok := locationOf(n); ok {
			set[loc] = true
		}
	}
	return slices.SortedFunc(maps.Keys(set), func(a, b sgtranslate.Location) int { return cmp.Compare(a.String(), b.String()) })
}

// syncOutcome is what the syncs of one round did.
type syncOutcome struct {
	writes     int
	unrealized []provider.Unrealized
}

// syncAll syncs every location with its spec, syncConcurrency at a time,
// as the syncer's round does.
func (p *pipeline) syncAll(ctx context.Context, res sgtranslate.Result) (syncOutcome, error) {
	locs := p.locations()
	results := make([]provider.SyncResult, len(locs))
	errs := make([]error, len(locs))
	sem := make(chan struct{}, syncConcurrency)
	var wg sync.WaitGroup
	for i, loc := range locs {
		spec, ok := res.Specs[loc]
		if !ok {
			spec = provider.SecurityGroupSpec{VPCID: loc.VPC, Prefix: groupPrefix}
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			results[i], errs[i] = p.c.provider.SyncSecurityGroups(ctx, loc.Region, spec)
		})
	}
	wg.Wait()
	var out syncOutcome
	for i, r := range results {
		if errs[i] != nil {
			return out, fmt.Errorf("%s: syncing %s: %w", p.c.name, locs[i], errs[i])
		}
		out.writes += r.Writes
		out.unrealized = append(out.unrealized, r.Unrealized...)
	}
	return out, nil
}
