package main

import (
	"net/netip"
	"strings"
	"testing"
)

// TestSeededNetworksAreDistinct: the sandbox plays the agented VMs of both
// clouds on one link, so no two seeded networks may overlap.
func TestSeededNetworksAreDistinct(t *testing.T) {
	var all []netip.Prefix
	for _, n := range append(append([]network{}, awsNetworks...), azureNetworks...) {
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
			files := renderManifests(tc.e, f)
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
