package azure_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"antreaplus.io/antreaplus/pkg/cloud/azure"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

const (
	sgPrefix = "antreaplus-"
	webGroup = "antreaplus-t.nic-web"
	// handToken lets the tests change resources "by hand" through the SDK.
	handToken = "operator-token"
)

func webSpec(vnet, nic string, port int32) provider.SecurityGroupSpec {
	return provider.SecurityGroupSpec{VPCID: vnet, Prefix: sgPrefix, Groups: []provider.SecurityGroup{{
		Name:    webGroup,
		Ingress: []provider.Rule{{Protocol: "tcp", FromPort: port, ToPort: port, CIDR: "10.0.0.0/8"}, {Protocol: "tcp", FromPort: port, ToPort: port, CIDR: "fd00::/8"}},
		Egress:  []provider.Rule{{Protocol: "all", CIDR: "0.0.0.0/0"}},
	}}, Attachments: map[string][]string{nic: {webGroup}}}
}

// writesOf counts the mutating ARM calls the emulator received.
func writesOf(emu *azureemu.Server) int {
	n := 0
	for op, c := range emu.CallCounts() {
		if strings.HasSuffix(op, ".CreateOrUpdate") || strings.HasSuffix(op, ".Delete") {
			n += c
		}
	}
	return n
}

func syncOK(t *testing.T, p *azure.Provider, spec provider.SecurityGroupSpec) provider.SyncResult {
	t.Helper()
	res, err := p.SyncSecurityGroups(t.Context(), region, spec)
	if err != nil || len(res.Unrealized) > 0 {
		t.Fatalf("sync: %+v, %v", res, err)
	}
	return res
}

// managedNSG returns the NSG of nic and its rules.
func managedNSG(t *testing.T, emu *azureemu.Server, nic string) (string, []string) {
	t.Helper()
	nsg, _, err := emu.InterfaceSecurity(nic)
	if err != nil || nsg == "" {
		t.Fatalf("interface %s: NSG %q, %v", nic, nsg, err)
	}
	rules, err := emu.SecurityRules(nsg)
	if err != nil {
		t.Fatal(err)
	}
	return nsg, rules
}

func TestSyncSecurityGroups(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{StaticTokens: []string{handToken}})
	vm := f.addVMs(t, 1, azureemu.VMSpec{})[0]
	nic := vm.NICs[0]
	own, err := f.emu.AddApplicationSecurityGroup("", region, "own-asg")
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := f.emu.AddSecurityGroup("", region, sgPrefix+"not-ours") // prefix, but no VNet tag
	if err != nil {
		t.Fatal(err)
	}
	if err := f.emu.SetInterfaceSecurity(nic, "", []string{own}); err != nil {
		t.Fatal(err)
	}
	p := f.provider(t, nil)

	// Create: the ASG, the interface's NSG, the interface.
	f.emu.ResetCalls()
	res := syncOK(t, p, webSpec(f.vnets[0], nic, 80))
	if res.Writes != 3 || writesOf(f.emu) != 3 || res.InterfacesChanged != 1 || len(res.Created) != 2 {
		t.Errorf("create: %+v, %d writes on the wire; want 3 (ASG, NSG, interface)", res, writesOf(f.emu))
	}
	t.Logf("create: %d writes, ARM calls %v", res.Writes, f.emu.CallCounts())
	nsg, rules := managedNSG(t, f.emu, nic)
	want := []string{
		"Inbound 100 Allow Tcp 80 10.0.0.0/8 -> " + webGroup,
		"Inbound 101 Allow Tcp 80 fd00::/8 -> " + webGroup,
		"Inbound 4096 Deny * * * -> *",
		"Outbound 100 Allow * * " + webGroup + " -> 0.0.0.0/0",
		"Outbound 4096 Deny * * * -> *",
	}
	if !slices.Equal(rules, want) {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(rules, "\n"), strings.Join(want, "\n"))
	}
	if _, asgs, _ := f.emu.InterfaceSecurity(nic); len(asgs) != 2 || asgs[0] != own || !strings.HasSuffix(asgs[1], "/"+webGroup) {
		t.Errorf("interface ASGs = %v; want its own, then the group's", asgs)
	}

	// Unchanged: three lists, no write.
	f.emu.ResetCalls()
	if res := syncOK(t, p, webSpec(f.vnets[0], nic, 80)); res.Writes != 0 || writesOf(f.emu) != 0 || f.emu.TotalCalls() != 3 {
		t.Errorf("unchanged: %+v, calls %v; want 3 lists and no write", res, f.emu.CallCounts())
	}

	// A port changed: one PUT of the same NSG.
	f.emu.ResetCalls()
	res = syncOK(t, p, webSpec(f.vnets[0], nic, 443))
	if res.Writes != 1 || f.emu.Calls("NetworkSecurityGroups.CreateOrUpdate") != 1 || res.RulesAdded != 2 || res.RulesRemoved != 2 {
		t.Errorf("update: %+v, calls %v; want one NSG PUT", res, f.emu.CallCounts())
	}
	if again, rules := managedNSG(t, f.emu, nic); again != nsg || !strings.Contains(rules[0], "Tcp 443 ") {
		t.Errorf("update: NSG %s %v; want %s changed in place", again, rules, nsg)
	}

	// Drift: a rule added by hand and the NSG detached are reverted.
	hand := handClient(t, f)
	got, err := hand.Get(t.Context(), "rg-eastus", lastSegment(nsg), nil)
	if err != nil {
		t.Fatal(err)
	}
	got.Properties.SecurityRules = append(got.Properties.SecurityRules, &armnetwork.SecurityRule{Name: to.Ptr("ssh"),
		Properties: &armnetwork.SecurityRulePropertiesFormat{Protocol: to.Ptr(armnetwork.SecurityRuleProtocolTCP),
			Access: to.Ptr(armnetwork.SecurityRuleAccessAllow), Direction: to.Ptr(armnetwork.SecurityRuleDirectionInbound),
			Priority: to.Ptr[int32](200), SourceAddressPrefix: to.Ptr("*"), SourcePortRange: to.Ptr("*"),
			DestinationAddressPrefix: to.Ptr("*"), DestinationPortRange: to.Ptr("22")}})
	poller, err := hand.BeginCreateOrUpdate(t.Context(), "rg-eastus", lastSegment(nsg), got.SecurityGroup, nil)
	if err == nil {
		_, err = poller.PollUntilDone(t.Context(), nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := f.emu.SetInterfaceSecurity(nic, "", []string{own}); err != nil {
		t.Fatal(err)
	}
	f.emu.ResetCalls()
	res = syncOK(t, p, webSpec(f.vnets[0], nic, 443))
	if res.Writes != 2 || res.RulesRemoved != 1 || res.InterfacesChanged != 1 {
		t.Errorf("drift: %+v; want the NSG and the interface written", res)
	}
	if again, rules := managedNSG(t, f.emu, nic); again != nsg || len(rules) != 5 {
		t.Errorf("drift: NSG %s %v; want %s with its 5 rules", again, rules, nsg)
	}

	// Stale: the interface keeps its own ASG; ours go, the foreign NSG stays.
	f.emu.ResetCalls()
	res = syncOK(t, p, provider.SecurityGroupSpec{VPCID: f.vnets[0], Prefix: sgPrefix})
	if res.Writes != 3 || len(res.Deleted) != 2 {
		t.Errorf("stale: %+v; want the interface written, the NSG and ASG deleted", res)
	}
	if n, asgs, _ := f.emu.InterfaceSecurity(nic); n != "" || !slices.Equal(asgs, []string{own}) {
		t.Errorf("interface after the stale sync: NSG %q, ASGs %v; want none and its own", n, asgs)
	}
	if nsgs := f.emu.SecurityGroups(); !slices.Equal(nsgs, []string{foreign}) {
		t.Errorf("NSGs = %v; want only the foreign one", nsgs)
	}
	if asgs := f.emu.ApplicationSecurityGroups(); !slices.Equal(asgs, []string{own}) {
		t.Errorf("ASGs = %v; want only the interface's own", asgs)
	}
	f.emu.ResetCalls()
	if res := syncOK(t, p, provider.SecurityGroupSpec{VPCID: f.vnets[0], Prefix: sgPrefix}); res.Writes != 0 {
		t.Errorf("empty again: %+v; want no write", res)
	}
}

func TestSyncSecurityGroupsRefused(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{MaxRulesPerNSG: 3})
	vms := f.addVMs(t, 2, azureemu.VMSpec{})
	theirs, err := f.emu.AddSecurityGroup("", region, "their-nsg")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.emu.SetInterfaceSecurity(vms[1].NICs[0], theirs, nil); err != nil {
		t.Fatal(err)
	}
	spec := webSpec(f.vnets[0], vms[0].NICs[0], 80)
	spec.Attachments[vms[1].NICs[0]] = []string{webGroup}
	res, err := f.provider(t, nil).SyncSecurityGroups(t.Context(), region, spec)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, u := range res.Unrealized {
		reasons = append(reasons, lastSegment(u.Object)+": "+u.Reason)
	}
	if len(reasons) != 3 || !strings.Contains(reasons[0], "does not manage") ||
		!strings.Contains(reasons[1], "SecurityRulesLimitReached") || !strings.Contains(reasons[2], "was not written") {
		t.Errorf("unrealized:\n%s\nwant the foreign NSG, the refused PUT, the interface left alone", strings.Join(reasons, "\n"))
	}
	if n, _, _ := f.emu.InterfaceSecurity(vms[0].NICs[0]); n != "" {
		t.Errorf("interface got NSG %s though it was refused", n)
	}
	if n, _, _ := f.emu.InterfaceSecurity(vms[1].NICs[0]); n != theirs {
		t.Errorf("interface with its own NSG now has %s", n)
	}
}

func TestSyncSecurityGroupsThrottled(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	vm := f.addVMs(t, 1, azureemu.VMSpec{})[0]
	f.emu.Throttle("ApplicationSecurityGroups.CreateOrUpdate", -1, time.Millisecond)
	_, err := f.provider(t, func(o *azure.Options) { o.MaxRetries = 1 }).SyncSecurityGroups(t.Context(), region, webSpec(f.vnets[0], vm.NICs[0], 80))
	if !errors.Is(err, provider.ErrThrottled) {
		t.Fatalf("error = %v; want ErrThrottled", err)
	}
	if f.emu.Calls("NetworkSecurityGroups.CreateOrUpdate") != 0 {
		t.Error("the sync went on after the cloud kept throttling")
	}
}

// handClient is an NSG client of an operator, changing things by hand.
func handClient(t *testing.T, f *fixture) *armnetwork.SecurityGroupsClient {
	t.Helper()
	c, err := armnetwork.NewSecurityGroupsClient(f.emu.SubscriptionID(), azure.StaticToken(handToken), &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{Transport: f.srv.Client(), Cloud: cloud.Configuration{
			Services: map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: f.srv.URL, Audience: f.srv.URL}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func lastSegment(id string) string {
	return id[strings.LastIndex(id, "/")+1:]
}
