package aws_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

var writeActions = []string{
	"CreateSecurityGroup", "DeleteSecurityGroup", "AuthorizeSecurityGroupIngress", "AuthorizeSecurityGroupEgress",
	"RevokeSecurityGroupIngress", "RevokeSecurityGroupEgress", "ModifyNetworkInterfaceAttribute", "CreateTags",
}

func writes(emu *awsemu.Server) int {
	n := 0
	for _, a := range writeActions {
		n += emu.Calls(a)
	}
	return n
}

func tcpRule(port int32, peer string) provider.Rule {
	r := provider.Rule{Protocol: "tcp", FromPort: port, ToPort: port}
	if strings.Contains(peer, "/") {
		r.CIDR = peer
	} else {
		r.Group = peer
	}
	return r
}

// ec2Client is a raw SDK client on the fixture, to look at or drift the
// cloud behind the provider's back.
func (f *fixture) ec2Client() *ec2.Client {
	return ec2.New(ec2.Options{Region: region, BaseEndpoint: awssdk.String(f.url), HTTPClient: aws.NewHTTPClient(),
		Credentials: credentials.NewStaticCredentialsProvider(keyID, secret, "")})
}

func (f *fixture) groupByName(t *testing.T, name string) *types.SecurityGroup {
	t.Helper()
	out, err := f.ec2Client().DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{
		Filters: []types.Filter{{Name: awssdk.String("group-name"), Values: []string{name}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.SecurityGroups) == 0 {
		return nil
	}
	return &out.SecurityGroups[0]
}

func webAndLB(vms []awsemu.Instance, vpc string) provider.SecurityGroupSpec {
	return provider.SecurityGroupSpec{
		VPCID: vpc, Prefix: "antreaplus-",
		Groups: []provider.SecurityGroup{
			{Name: "antreaplus-web", Ingress: []provider.Rule{tcpRule(443, "10.0.0.0/8"), tcpRule(443, "antreaplus-lb")}, Egress: []provider.Rule{tcpRule(5432, "10.1.0.0/16")}},
			{Name: "antreaplus-lb", Ingress: []provider.Rule{tcpRule(80, "0.0.0.0/0"), tcpRule(80, "::/0")}, Egress: []provider.Rule{{Protocol: "all", CIDR: "0.0.0.0/0"}}},
		},
		Attachments: map[string][]string{vms[0].NICs[0]: {"antreaplus-web"}, vms[1].NICs[0]: {"antreaplus-web", "antreaplus-lb"}},
	}
}

func TestSyncSecurityGroupsFromScratchThenNothing(t *testing.T) {
	f := newFixture(t, 1)
	vms := f.addVMs(t, 3, awsemu.InstanceSpec{})
	p := f.provider(t, nil)
	spec := webAndLB(vms, f.vpcs[0])
	ctx := t.Context()

	res, err := p.SyncSecurityGroups(ctx, region, spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unrealized) != 0 || len(res.Created) != 2 || res.InterfacesChanged != 2 {
		t.Fatalf("result %+v", res)
	}
	// 2 creates; web: authorize in, authorize out, revoke the default
	// egress; lb: authorize in (IPv4 and IPv6 in one call), its egress is
	// the default; 2 interfaces.
	if res.Writes != 8 || writes(f.emu) != 8 {
		t.Errorf("writes = %d (emulator saw %d); want 8", res.Writes, writes(f.emu))
	}
	web, lb := f.groupByName(t, "antreaplus-web"), f.groupByName(t, "antreaplus-lb")
	if web == nil || lb == nil {
		t.Fatal("groups not created")
	}
	if len(web.IpPermissions) != 1 || len(web.IpPermissions[0].IpRanges) != 1 || awssdk.ToString(web.IpPermissions[0].UserIdGroupPairs[0].GroupId) != awssdk.ToString(lb.GroupId) {
		t.Errorf("web ingress = %+v", web.IpPermissions)
	}
	if len(web.IpPermissionsEgress) != 1 || awssdk.ToInt32(web.IpPermissionsEgress[0].FromPort) != 5432 {
		t.Errorf("web egress = %+v; want only 5432 (the default allow-all revoked)", web.IpPermissionsEgress)
	}
	if len(lb.IpPermissions[0].Ipv6Ranges) != 1 || len(lb.IpPermissionsEgress) != 1 {
		t.Errorf("lb = %+v", lb)
	}
	groups, _ := f.emu.InterfaceGroups(region, vms[1].NICs[0])
	if len(groups) != 3 {
		t.Errorf("interface groups = %v; want default, web and lb", groups)
	}
	if groups, _ := f.emu.InterfaceGroups(region, vms[2].NICs[0]); len(groups) != 1 {
		t.Errorf("an interface not in the spec changed: %v", groups)
	}

	f.emu.ResetCalls()
	res, err = p.SyncSecurityGroups(ctx, region, spec)
	if err != nil || res.Writes != 0 || writes(f.emu) != 0 {
		t.Fatalf("resync: %+v, %v, %d writes seen; want none", res, err, writes(f.emu))
	}
	if got := f.emu.TotalCalls(); got != 2 {
		t.Errorf("resync made %d calls; want 2 describes", got)
	}
}

func TestSyncSecurityGroupsCorrectsDrift(t *testing.T) {
	f := newFixture(t, 1)
	vms := f.addVMs(t, 2, awsemu.InstanceSpec{})
	p := f.provider(t, nil)
	spec := webAndLB(vms, f.vpcs[0])
	ctx := t.Context()
	if _, err := p.SyncSecurityGroups(ctx, region, spec); err != nil {
		t.Fatal(err)
	}
	// Someone opens SSH on web, detaches web from a NIC and makes a group
	// with our prefix by hand.
	c := f.ec2Client()
	web := f.groupByName(t, "antreaplus-web")
	if _, err := c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: web.GroupId, IpPermissions: []types.IpPermission{{
		IpProtocol: awssdk.String("tcp"), FromPort: awssdk.Int32(22), ToPort: awssdk.Int32(22), IpRanges: []types.IpRange{{CidrIp: awssdk.String("0.0.0.0/0")}},
	}}}); err != nil {
		t.Fatal(err)
	}
	def, _ := f.emu.InterfaceGroups(region, vms[0].NICs[0])
	if _, err := c.ModifyNetworkInterfaceAttribute(ctx, &ec2.ModifyNetworkInterfaceAttributeInput{NetworkInterfaceId: awssdk.String(vms[0].NICs[0]), Groups: def[:1]}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: awssdk.String("antreaplus-stray"), Description: awssdk.String("x"), VpcId: awssdk.String(f.vpcs[0])}); err != nil {
		t.Fatal(err)
	}
	// And someone else's group, which must be left alone.
	if _, err := c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: awssdk.String("team-db"), Description: awssdk.String("x"), VpcId: awssdk.String(f.vpcs[0])}); err != nil {
		t.Fatal(err)
	}

	res, err := p.SyncSecurityGroups(ctx, region, spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.RulesRemoved != 1 || res.InterfacesChanged != 1 || !slices.Equal(res.Deleted, []string{"antreaplus-stray"}) || res.Writes != 3 {
		t.Errorf("result %+v; want SSH revoked, web re-attached, stray deleted in 3 writes", res)
	}
	if g := f.groupByName(t, "team-db"); g == nil {
		t.Error("an unmanaged group was deleted")
	}
	if res, _ := p.SyncSecurityGroups(ctx, region, spec); res.Writes != 0 {
		t.Errorf("after correcting: %+v", res)
	}
}

func TestSyncSecurityGroupsRemovesStale(t *testing.T) {
	f := newFixture(t, 1)
	vms := f.addVMs(t, 2, awsemu.InstanceSpec{})
	p := f.provider(t, nil)
	ctx := t.Context()
	if _, err := p.SyncSecurityGroups(ctx, region, webAndLB(vms, f.vpcs[0])); err != nil {
		t.Fatal(err)
	}
	// Every VM became agented: no managed group is left.
	res, err := p.SyncSecurityGroups(ctx, region, provider.SecurityGroupSpec{VPCID: f.vpcs[0], Prefix: "antreaplus-"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) != 2 || len(res.Unrealized) != 0 {
		t.Fatalf("result %+v; want both groups deleted (web refers to lb)", res)
	}
	for _, vm := range vms {
		if groups, _ := f.emu.InterfaceGroups(region, vm.NICs[0]); len(groups) != 1 {
			t.Errorf("%s keeps %v; want only its default group", vm.NICs[0], groups)
		}
	}
}

func TestSyncSecurityGroupsReportsWhatTheCloudRefuses(t *testing.T) {
	emu := awsemu.New(awsemu.Options{
		Credentials: []awsemu.Credential{{AccessKeyID: keyID, SecretAccessKey: secret}},
		Quotas:      awsemu.Quotas{RulesPerGroup: 1}, // lower than the provider believes
	})
	f := &fixture{emu: emu, url: newServer(t, emu)}
	vpc, _ := emu.AddVPC(awsemu.VPCSpec{Region: region})
	f.vpcs = []string{vpc}
	vms := f.addVMs(t, 2, awsemu.InstanceSpec{})
	res, err := f.provider(t, nil).SyncSecurityGroups(t.Context(), region, webAndLB(vms, vpc))
	if err != nil {
		t.Fatalf("a refused call is not a failed sync: %v", err)
	}
	var codes []string
	for _, u := range res.Unrealized {
		codes = append(codes, u.Object+" "+strings.SplitN(u.Reason, ":", 2)[0])
	}
	if !slices.Contains(codes, "antreaplus-web RulesPerSecurityGroupLimitExceeded") || len(res.Created) != 2 || res.InterfacesChanged != 2 {
		t.Errorf("result %+v; want the quota reported and the rest done", res)
	}
}

func TestSyncSecurityGroupsStopsOnCloudFailure(t *testing.T) {
	f := newFixture(t, 1)
	vms := f.addVMs(t, 2, awsemu.InstanceSpec{})
	f.emu.Throttle("CreateSecurityGroup", -1)
	_, err := f.provider(t, func(o *aws.Options) { o.MaxAttempts = 2 }).SyncSecurityGroups(t.Context(), region, webAndLB(vms, f.vpcs[0]))
	if !errors.Is(err, provider.ErrThrottled) {
		t.Fatalf("error = %v; want ErrThrottled", err)
	}
	if got := f.emu.Calls("CreateSecurityGroup"); got != 2 {
		t.Errorf("CreateSecurityGroup calls = %d; want 2 attempts, then stop", got)
	}
	if writes(f.emu) != 2 {
		t.Errorf("%d writes after the failure began; want none", writes(f.emu)-2)
	}
}
