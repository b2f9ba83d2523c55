package tenantadmin

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestRows(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tenant := func(name string, more ...string) Namespace {
		labels := map[string]string{"tenancy.antreaplus.io/tenant": "true"}
		for i := 0; i+1 < len(more); i += 2 {
			labels[more[i]] = more[i+1]
		}
		return Namespace{Name: name, Labels: labels}
	}
	current := func(tenant, holder string) Claim {
		return Claim{Tenant: tenant, Holder: holder, Renew: now.Add(-5 * time.Second), Duration: 15 * time.Second}
	}
	for _, c := range []struct {
		name string
		inv  Inventory
		want []Row
	}{
		{name: "no tenants", inv: Inventory{Namespaces: []Namespace{{Name: "default"}, {Name: "kube-system"}}}, want: []Row{}},
		{name: "a shared tenant with everything", inv: Inventory{
			Namespaces: []Namespace{tenant("alpha"), {Name: "default"}},
			Claims:     []Claim{current("alpha", "shared/cc-1")},
			Accounts:   map[string]int{"alpha": 2, "default": 1},
			VMs:        map[string][]string{"alpha": {"vpc-1", "vpc-2", "vpc-1", ""}, "default": {"vpc-9"}},
			Policies:   map[string]int{"alpha": 3},
		}, want: []Row{{Tenant: "alpha", Controller: "shared", Owner: "shared/cc-1", Accounts: 2, VPCs: 2, VMs: 4, Policies: 3}}},
		{name: "unclaimed and expired", inv: Inventory{
			Namespaces: []Namespace{tenant("beta"), tenant("alpha")},
			Claims:     []Claim{{Tenant: "beta", Holder: "shared/cc-0", Renew: now.Add(-16 * time.Second), Duration: 15 * time.Second}},
		}, want: []Row{{Tenant: "alpha", Controller: "shared"}, {Tenant: "beta", Controller: "shared", Owner: "shared/cc-0", OwnerExpired: true}}},
		{name: "a released claim has no owner", inv: Inventory{
			Namespaces: []Namespace{tenant("alpha")}, Claims: []Claim{{Tenant: "alpha", Renew: now, Duration: time.Minute}},
		}, want: []Row{{Tenant: "alpha", Controller: "shared"}}},
		{name: "a dedicated tenant, contended", inv: Inventory{
			Namespaces: []Namespace{tenant("gamma", "tenancy.antreaplus.io/controller", "gamma")},
			Claims:     []Claim{{Tenant: "gamma", Holder: "gamma/cc-gamma-1", Renew: now, Duration: 15 * time.Second, Contenders: []string{"shared", "other", "shared"}}},
		}, want: []Row{{Tenant: "gamma", Controller: "gamma", Owner: "gamma/cc-gamma-1", Warnings: []string{"contended by other", "contended by shared"}}}},
		{name: "held by another instance than it names", inv: Inventory{
			Namespaces: []Namespace{tenant("gamma", "tenancy.antreaplus.io/controller", "gamma")},
			Claims:     []Claim{current("gamma", "shared/cc-1")},
		}, want: []Row{{Tenant: "gamma", Controller: "gamma", Owner: "shared/cc-1", Warnings: []string{"held by instance shared, not gamma"}}}},
		{name: "an expired claim of another instance is no warning", inv: Inventory{
			Namespaces: []Namespace{tenant("gamma", "tenancy.antreaplus.io/controller", "gamma")},
			Claims:     []Claim{{Tenant: "gamma", Holder: "shared/cc-1", Renew: now.Add(-time.Hour), Duration: 15 * time.Second}},
		}, want: []Row{{Tenant: "gamma", Controller: "gamma", Owner: "shared/cc-1", OwnerExpired: true}}},
		{name: "claimed without the tenant label, and a claim left by a deleted Namespace", inv: Inventory{
			Namespaces: []Namespace{{Name: "team-a"}, {Name: "going", Labels: map[string]string{"tenancy.antreaplus.io/tenant": "true"}, Terminating: true}},
			Claims:     []Claim{current("team-a", "shared/cc-1"), current("gone", "delta/cc-2")},
			Accounts:   map[string]int{"team-a": 1},
		}, want: []Row{
			{Tenant: "going", Controller: "shared", Warnings: []string{"Namespace being deleted"}},
			{Tenant: "gone", Controller: "delta", Owner: "delta/cc-2", Warnings: []string{"no Namespace"}},
			{Tenant: "team-a", Controller: "shared", Owner: "shared/cc-1", Accounts: 1},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Rows(c.inv, now); !reflect.DeepEqual(got, c.want) {
				t.Errorf("rows\n%+v\nwant\n%+v", got, c.want)
			}
		})
	}
}

func TestPrintTable(t *testing.T) {
	for _, c := range []struct {
		name string
		l    Listing
		want string
	}{
		{name: "none", l: Listing{Notes: []string{"VirtualMachines: not served"}}, want: "No tenants.\nnote: VirtualMachines: not served\n"},
		{name: "tenants", l: Listing{Tenants: []Row{
			{Tenant: "alpha", Controller: "shared", Owner: "shared/cc-1", Accounts: 1, VPCs: 2, VMs: 3, Policies: 4},
			{Tenant: "beta", Controller: "shared"},
			{Tenant: "gamma", Controller: "gamma", Owner: "gamma/x", OwnerExpired: true, Warnings: []string{"contended by shared", "no Namespace"}},
		}}, want: "" +
			"TENANT  CONTROLLER  OWNER              ACCOUNTS  VPCS  VMS  POLICIES  WARNINGS\n" +
			"alpha   shared      shared/cc-1        1         2     3    4         -\n" +
			"beta    shared      -                  0         0     0    0         -\n" +
			"gamma   gamma       gamma/x (expired)  0         0     0    0         contended by shared; no Namespace\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := PrintTable(&out, c.l); err != nil {
				t.Fatal(err)
			}
			if out.String() != c.want {
				t.Errorf("table\n%s\nwant\n%s", out.String(), c.want)
			}
		})
	}
}

func TestListingJSON(t *testing.T) {
	raw, err := json.Marshal(Listing{Tenants: []Row{{Tenant: "alpha", Controller: "shared", Owner: "shared/cc-1", Accounts: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tenants":[{"tenant":"alpha","controller":"shared","owner":"shared/cc-1","accounts":1,"vpcs":0,"vms":0,"policies":0}]}`
	if string(raw) != want {
		t.Errorf("JSON\n%s\nwant\n%s", raw, want)
	}
}
