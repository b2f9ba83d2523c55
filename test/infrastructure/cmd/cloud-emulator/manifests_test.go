package main

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// TestSeededNetworksAreDistinct: the sandbox plays the agented VMs of both
// clouds on one link, so no two seeded networks may overlap.
func TestSeededNetworksAreDistinct(t *testing.T) {
	tenants, err := planTenants([]string{"tenant-hard", "tenant-soft-1", "tenant-soft-2"})
	if err != nil {
		t.Fatal(err)
	}
	nets := append(append([]network{}, awsNetworks...), azureNetworks...)
	for _, tn := range tenants {
		nets = append(nets, tn.vpc)
	}
	var all []netip.Prefix
	for _, n := range nets {
		p := netip.MustParsePrefix(n.cidr)
		for _, q := range all {
			if p.Overlaps(q) {
				t.Errorf("seeded networks %s and %s overlap", p, q)
			}
		}
		all = append(all, p)
	}
}

func TestRenderManifests(t *testing.T) {
	f := flags{namespace: "cloud-demo", pollSeconds: 30}
	both := endpoints{aws: "http://127.0.0.1:1", azure: "https://127.0.0.1:2", tenant: "t", subscription: "s"}
	cases := []struct {
		name string
		e    endpoints
		want map[string][]string // file: the accounts it holds
	}{
		{name: "both clouds", e: both, want: map[string][]string{
			"cloud-aws.yaml": {"aws-emulator"}, "cloud-azure.yaml": {"azure-emulator"}, "cloud.yaml": {"aws-emulator", "azure-emulator"}}},
		{name: "AWS only", e: endpoints{aws: both.aws}, want: map[string][]string{
			"cloud-aws.yaml": {"aws-emulator"}, "cloud.yaml": {"aws-emulator"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := renderManifests(tc.e, f, nil)
			if len(files) != len(tc.want) || files[len(files)-1].name != "cloud.yaml" {
				t.Fatalf("files %v, want %d ending with cloud.yaml", files, len(tc.want))
			}
			for _, file := range files {
				accounts, ok := tc.want[file.name]
				if !ok {
					t.Errorf("unexpected file %s", file.name)
				}
				if !strings.Contains(file.content, "kind: Namespace\nmetadata:\n  name: cloud-demo\n") {
					t.Errorf("%s has no namespace cloud-demo", file.name)
				}
				if got := strings.Count(file.content, "kind: CloudProviderAccount\n"); got != len(accounts) {
					t.Errorf("%s holds %d accounts, want %v", file.name, got, accounts)
				}
				for _, a := range accounts {
					if !strings.Contains(file.content, "kind: CloudProviderAccount\nmetadata:\n  name: "+a+"\n") ||
						!strings.Contains(file.content, "kind: CloudEntitySelector\nmetadata:\n  name: "+a+"\n") {
						t.Errorf("%s lacks the account or selector %s", file.name, a)
					}
				}
			}
		})
	}
}

// TestTenants: each tenant has credentials of its own, and a file whose
// selector picks its VPC by its tag; the file comes before cloud.yaml.
func TestTenants(t *testing.T) {
	tenants, err := planTenants(splitList("tenant-hard, tenant-soft-1,,tenant-soft-2"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{awsAccessKeyID: true}
	for _, tn := range tenants {
		if keys[tn.accessKeyID] {
			t.Errorf("tenant %s shares the access key id %s", tn.namespace, tn.accessKeyID)
		}
		keys[tn.accessKeyID] = true
	}
	if got := fmt.Sprint(tenants[0].accessKeyID, " ", tenants[0].vpc.cidr, " ", tenants[2].vpc.cidr); got != "AKIAEMUTENANTHARD 10.51.0.0/16 10.53.0.0/16" {
		t.Errorf("first tenant's key and CIDR, third's CIDR: %s", got)
	}
	files := renderManifests(endpoints{aws: "http://127.0.0.1:1"}, flags{namespace: "cloud-demo", pollSeconds: 30}, tenants)
	var names []string
	for _, f := range files {
		names = append(names, f.name)
	}
	if got := strings.Join(names, " "); got != "cloud-aws.yaml tenant-tenant-hard.yaml tenant-tenant-soft-1.yaml tenant-tenant-soft-2.yaml cloud.yaml" {
		t.Fatalf("files %s", got)
	}
	soft1 := files[2].content
	for _, want := range []string{"name: aws-credentials\n  namespace: tenant-soft-1\n", "accessKeyID: AKIAEMUTENANTSOFT1\n",
		"kind: CloudProviderAccount\nmetadata:\n  name: aws\n  namespace: tenant-soft-1\n", "tags: {tenant: tenant-soft-1}\n"} {
		if !strings.Contains(soft1, want) {
			t.Errorf("tenant-tenant-soft-1.yaml lacks %q:\n%s", want, soft1)
		}
	}
	if strings.Contains(soft1, "kind: Namespace") || strings.Contains(files[len(files)-1].content, "tenant-soft-1") {
		t.Errorf("a tenant's file creates its Namespace, or cloud.yaml holds a tenant's account")
	}
	for _, bad := range [][]string{{"Tenant"}, {"a", "a"}} {
		if _, err := planTenants(bad); err == nil {
			t.Errorf("planTenants(%q) accepted", bad)
		}
	}
}
