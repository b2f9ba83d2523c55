package tenantadmin

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy"
	"antreaplus.io/antreaplus/pkg/tenancy/claim"
)

// Namespace is what the listing needs of a Namespace.
type Namespace struct {
	Name        string
	Labels      map[string]string
	Terminating bool
}

// Claim is what the listing needs of a tenant's claim Lease.
type Claim struct {
	// Tenant is the Lease's tenancy.antreaplus.io/tenant label.
	Tenant string
	// Holder is spec.holderIdentity ("" when released).
	Holder string
	// Renew and Duration are spec.renewTime and leaseDurationSeconds.
	Renew    time.Time
	Duration time.Duration
	// Contenders are the instances of the contender annotations.
	Contenders []string
}

// Inventory is what List read, by Namespace.
type Inventory struct {
	// Namespaces are every Namespace of the cluster.
	Namespaces []Namespace
	// Claims are the claim Leases of the controllers' namespace.
	Claims []Claim
	// Accounts counts the CloudProviderAccounts of each Namespace.
	Accounts map[string]int
	// VMs lists the VPC (or VNet) id of each VirtualMachine of each
	// Namespace ("" when it has none).
	VMs map[string][]string
	// Policies counts the Antrea NetworkPolicies and FederatedNetworkPolicies
	// of each Namespace (an Antrea policy derived from a federated one is
	// counted once, as the federated policy).
	Policies map[string]int
}

// Row is one tenant of the listing.
type Row struct {
	// Tenant is the Namespace.
	Tenant string `json:"tenant"`
	// Controller is the controller instance that should manage it: the
	// Namespace's tenancy.antreaplus.io/controller label, else "shared"
	// (without a Namespace: the instance of the claim's holder).
	Controller string `json:"controller"`
	// Owner is the holderIdentity of its claim ("<instance>/<replica>"),
	// "" when nothing claims it.
	Owner string `json:"owner,omitempty"`
	// OwnerExpired: the claim's renewTime + leaseDuration has passed.
	OwnerExpired bool `json:"ownerExpired,omitempty"`
	// Accounts, VPCs (distinct ids of its VMs), VMs and Policies count
	// what the tenant holds.
	Accounts int `json:"accounts"`
	VPCs     int `json:"vpcs"`
	VMs      int `json:"vms"`
	Policies int `json:"policies"`
	// Warnings: what contends for it or is not as it should be.
	Warnings []string `json:"warnings,omitempty"`
}

// Listing is what `antreaplus tenant list` shows.
type Listing struct {
	Tenants []Row `json:"tenants"`
	// Notes say what could not be read (a kind whose CRD is not installed).
	Notes []string `json:"notes,omitempty"`
}

// Rows are the tenants of inv at now, sorted by name: every Namespace
// labelled tenancy.antreaplus.io/tenant=true, and every Namespace a claim
// names (claimed because a controller selects it and it holds accounts,
// or left behind by a deleted Namespace).
func Rows(inv Inventory, now time.Time) []Row {
	namespaces := map[string]Namespace{}
	for _, ns := range inv.Namespaces {
		namespaces[ns.Name] = ns
	}
	claims := map[string]Claim{}
	for _, c := range inv.Claims {
		claims[c.Tenant] = c
	}
	var tenants []string
	for _, ns := range inv.Namespaces {
		if ns.Labels[tenancyv1alpha1.LabelTenant] == "true" {
			tenants = append(tenants, ns.Name)
		}
	}
	for t := range claims {
		if !slices.Contains(tenants, t) {
			tenants = append(tenants, t)
		}
	}
	slices.Sort(tenants)
	rows := make([]Row, 0, len(tenants))
	for _, t := range tenants {
		ns, exists := namespaces[t]
		c, claimed := claims[t]
		r := Row{Tenant: t, Controller: controllerOf(ns), Accounts: inv.Accounts[t], VMs: len(inv.VMs[t]),
			VPCs: distinct(inv.VMs[t]), Policies: inv.Policies[t]}
		if claimed && c.Holder != "" {
			r.Owner = c.Holder
			r.OwnerExpired = !claim.Lease{Exists: true, Holder: c.Holder, Renew: c.Renew, Duration: c.Duration}.Current(now)
			if !exists { // nothing names the instance but the claim
				r.Controller, _ = tenancy.SplitHolder(c.Holder)
			}
		}
		r.Warnings = warnings(ns, exists, c, r)
		rows = append(rows, r)
	}
	return rows
}

// controllerOf is the instance a Namespace names, else the shared one.
func controllerOf(ns Namespace) string {
	if c := ns.Labels[tenancyv1alpha1.LabelController]; c != "" {
		return c
	}
	return tenancy.DefaultInstance
}

// warnings of a tenant: its Namespace gone or going, a current claim of an
// instance other than the one it names, and every contender.
func warnings(ns Namespace, exists bool, c Claim, r Row) []string {
	var out []string
	switch {
	case !exists:
		out = append(out, "no Namespace")
	case ns.Terminating:
		out = append(out, "Namespace being deleted")
	}
	if r.Owner != "" && !r.OwnerExpired && exists {
		if instance, _ := tenancy.SplitHolder(r.Owner); instance != r.Controller {
			out = append(out, fmt.Sprintf("held by instance %s, not %s", instance, r.Controller))
		}
	}
	contenders := slices.Sorted(slices.Values(c.Contenders))
	for _, x := range slices.Compact(contenders) {
		out = append(out, "contended by "+x)
	}
	return out
}

// distinct counts the distinct non-empty ids.
func distinct(ids []string) int {
	seen := map[string]bool{}
	for _, id := range ids {
		if id != "" {
			seen[id] = true
		}
	}
	return len(seen)
}

// OwnerCell is the OWNER column: the holder, "(expired)" after it when
// the claim is no longer current, "-" when nothing claims the tenant.
func OwnerCell(r Row) string {
	switch {
	case r.Owner == "":
		return "-"
	case r.OwnerExpired:
		return r.Owner + " (expired)"
	}
	return r.Owner
}

// PrintTable writes the listing as a table, then its notes.
func PrintTable(out io.Writer, l Listing) error {
	if len(l.Tenants) == 0 {
		fmt.Fprintln(out, "No tenants.")
	} else {
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "TENANT\tCONTROLLER\tOWNER\tACCOUNTS\tVPCS\tVMS\tPOLICIES\tWARNINGS")
		for _, r := range l.Tenants {
			warn := "-"
			if len(r.Warnings) > 0 {
				warn = strings.Join(r.Warnings, "; ")
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Tenant, r.Controller, OwnerCell(r), strconv.Itoa(r.Accounts),
				strconv.Itoa(r.VPCs), strconv.Itoa(r.VMs), strconv.Itoa(r.Policies), warn)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	for _, n := range l.Notes {
		fmt.Fprintln(out, "note:", n)
	}
	return nil
}
