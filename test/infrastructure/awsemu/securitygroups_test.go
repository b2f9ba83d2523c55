package awsemu_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

func tcpFrom(cidr string, port int32) types.IpPermission {
	return types.IpPermission{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(port), ToPort: aws.Int32(port), IpRanges: []types.IpRange{{CidrIp: aws.String(cidr)}}}
}

func describeGroup(t *testing.T, c *ec2.Client, id string) types.SecurityGroup {
	t.Helper()
	out, err := c.DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{GroupIds: []string{id}})
	if err != nil {
		t.Fatal(err)
	}
	return out.SecurityGroups[0]
}

func TestSecurityGroupLifecycle(t *testing.T) {
	emu, c := newEmulator(t, awsemu.Options{})
	ctx := t.Context()
	vpc := mustVPC(t, emu, awsemu.VPCSpec{})
	vm := mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpc})

	created, err := c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{
		GroupName: aws.String("antreaplus-web"), Description: aws.String("web tier"), VpcId: aws.String(vpc),
		TagSpecifications: []types.TagSpecification{{ResourceType: types.ResourceTypeSecurityGroup, Tags: []types.Tag{{Key: aws.String("antreaplus.io/managed"), Value: aws.String("true")}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	web := aws.ToString(created.GroupId)
	peer, err := c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String("antreaplus-db"), Description: aws.String("db"), VpcId: aws.String(vpc)})
	if err != nil {
		t.Fatal(err)
	}
	db := aws.ToString(peer.GroupId)
	_, err = c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String("antreaplus-web"), Description: aws.String("again"), VpcId: aws.String(vpc)})
	wantCode(t, err, "InvalidGroup.Duplicate")
	_, err = c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String("x"), Description: aws.String("x"), VpcId: aws.String("vpc-00000000000000bad")})
	wantCode(t, err, "InvalidVpcID.NotFound")

	// Two CIDRs on one port, and a group reference: three rules.
	perms := []types.IpPermission{
		{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(443), ToPort: aws.Int32(443), IpRanges: []types.IpRange{{CidrIp: aws.String("10.0.0.0/24")}, {CidrIp: aws.String("10.0.1.0/24"), Description: aws.String("office")}}},
		{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(5432), ToPort: aws.Int32(5432), UserIdGroupPairs: []types.UserIdGroupPair{{GroupId: aws.String(db)}}},
	}
	if _, err := c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(web), IpPermissions: perms}); err != nil {
		t.Fatal(err)
	}
	_, err = c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(web), IpPermissions: []types.IpPermission{tcpFrom("10.0.0.0/24", 443)}})
	wantCode(t, err, "InvalidPermission.Duplicate")
	_, err = c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(web), IpPermissions: []types.IpPermission{tcpFrom("10.0.0.300/24", 1)}})
	wantCode(t, err, "InvalidParameterValue")
	if _, err := c.AuthorizeSecurityGroupEgress(ctx, &ec2.AuthorizeSecurityGroupEgressInput{GroupId: aws.String(web), IpPermissions: []types.IpPermission{{IpProtocol: aws.String("udp"), FromPort: aws.Int32(53), ToPort: aws.Int32(53), Ipv6Ranges: []types.Ipv6Range{{CidrIpv6: aws.String("fd00::/64")}}}}}); err != nil {
		t.Fatal(err)
	}

	g := describeGroup(t, c, web)
	if len(g.IpPermissions) != 2 || len(g.IpPermissions[0].IpRanges) != 2 || aws.ToString(g.IpPermissions[0].IpRanges[1].Description) != "office" {
		t.Fatalf("ingress = %+v; want 443 with two ranges, 5432 from a group", g.IpPermissions)
	}
	if aws.ToString(g.IpPermissions[1].UserIdGroupPairs[0].GroupId) != db {
		t.Errorf("group reference = %+v", g.IpPermissions[1].UserIdGroupPairs)
	}
	if len(g.IpPermissionsEgress) != 2 || aws.ToString(g.IpPermissionsEgress[0].IpProtocol) != "-1" || g.IpPermissionsEgress[0].FromPort != nil {
		t.Errorf("egress = %+v; want the default allow-all and udp/53", g.IpPermissionsEgress)
	}
	if len(g.Tags) != 1 {
		t.Errorf("tags = %+v", g.Tags)
	}

	// Revoke one known rule and one unknown one.
	rev, err := c.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String(web), IpPermissions: []types.IpPermission{tcpFrom("10.0.1.0/24", 443), tcpFrom("192.0.2.0/24", 22)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rev.UnknownIpPermissions) != 1 || aws.ToInt32(rev.UnknownIpPermissions[0].FromPort) != 22 {
		t.Errorf("unknown permissions = %+v", rev.UnknownIpPermissions)
	}
	if g := describeGroup(t, c, web); len(g.IpPermissions[0].IpRanges) != 1 {
		t.Errorf("after revoke: %+v", g.IpPermissions)
	}

	// Attach to the VM's interface; the group cannot go while in use or referenced.
	if _, err := c.ModifyNetworkInterfaceAttribute(ctx, &ec2.ModifyNetworkInterfaceAttributeInput{NetworkInterfaceId: aws.String(vm.NICs[0]), Groups: []string{web, db}}); err != nil {
		t.Fatal(err)
	}
	if groups, _ := emu.InterfaceGroups(testRegion, vm.NICs[0]); len(groups) != 2 {
		t.Errorf("interface groups = %v", groups)
	}
	_, err = c.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(web)})
	wantCode(t, err, "DependencyViolation")
	if _, err := c.ModifyNetworkInterfaceAttribute(ctx, &ec2.ModifyNetworkInterfaceAttributeInput{NetworkInterfaceId: aws.String(vm.NICs[0]), Groups: []string{web}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(db)})
	wantCode(t, err, "DependencyViolation") // web's rule refers to it
	if _, err := c.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String(web), IpPermissions: []types.IpPermission{perms[1]}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(db)}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{db}})
	wantCode(t, err, "InvalidGroup.NotFound")

	def, err := c.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{{Name: aws.String("group-name"), Values: []string{"default"}}}})
	if err != nil || len(def.SecurityGroups) != 1 {
		t.Fatalf("default group: %v, %v", def, err)
	}
	_, err = c.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: def.SecurityGroups[0].GroupId})
	wantCode(t, err, "CannotDelete")

	tagged, err := c.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{{Name: aws.String("tag-key"), Values: []string{"antreaplus.io/*"}}}})
	if err != nil || len(tagged.SecurityGroups) != 1 || aws.ToString(tagged.SecurityGroups[0].GroupId) != web {
		t.Errorf("groups by tag: %+v, %v", tagged, err)
	}
}

func TestSecurityGroupQuotas(t *testing.T) {
	emu, c := newEmulator(t, awsemu.Options{Quotas: awsemu.Quotas{RulesPerGroup: 5, GroupsPerInterface: 2, GroupsPerVPC: 3}})
	ctx := t.Context()
	vpc := mustVPC(t, emu, awsemu.VPCSpec{})
	vm := mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpc})
	var groups []string
	for n := range 2 { // the default group is the third
		out, err := c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String(fmt.Sprint("g", n)), Description: aws.String("d"), VpcId: aws.String(vpc)})
		if err != nil {
			t.Fatal(err)
		}
		groups = append(groups, aws.ToString(out.GroupId))
	}
	_, err := c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String("one-too-many"), Description: aws.String("d"), VpcId: aws.String(vpc)})
	wantCode(t, err, "SecurityGroupLimitExceeded")

	var ranges []types.IpRange
	for n := range 6 {
		ranges = append(ranges, types.IpRange{CidrIp: aws.String(fmt.Sprintf("10.0.%d.0/24", n))})
	}
	_, err = c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(groups[0]), IpPermissions: []types.IpPermission{{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(80), ToPort: aws.Int32(80), IpRanges: ranges}}})
	wantCode(t, err, "RulesPerSecurityGroupLimitExceeded")
	if g := describeGroup(t, c, groups[0]); len(g.IpPermissions) != 0 {
		t.Errorf("a refused call added rules: %+v", g.IpPermissions)
	}
	_, err = c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(groups[0]), IpPermissions: []types.IpPermission{{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(80), ToPort: aws.Int32(80), IpRanges: ranges[:5]}}})
	if err != nil {
		t.Fatalf("5 rules within a quota of 5: %v", err)
	}

	all, err := c.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, g := range all.SecurityGroups {
		ids = append(ids, aws.ToString(g.GroupId))
	}
	_, err = c.ModifyNetworkInterfaceAttribute(ctx, &ec2.ModifyNetworkInterfaceAttributeInput{NetworkInterfaceId: aws.String(vm.NICs[0]), Groups: ids})
	wantCode(t, err, "SecurityGroupsPerInterfaceLimitExceeded")
	_, err = c.ModifyNetworkInterfaceAttribute(ctx, &ec2.ModifyNetworkInterfaceAttributeInput{NetworkInterfaceId: aws.String("eni-00000000000000bad"), Groups: ids[:1]})
	wantCode(t, err, "InvalidNetworkInterfaceID.NotFound")
}

func TestCreateAndDeleteTags(t *testing.T) {
	emu, c := newEmulator(t, awsemu.Options{})
	ctx := t.Context()
	vpc := mustVPC(t, emu, awsemu.VPCSpec{})
	vm := mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpc, Name: "a"})
	_, err := c.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{vm.ID, vpc}, Tags: []types.Tag{{Key: aws.String("env"), Value: aws.String("prod")}}})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := allInstances(t, c, &ec2.DescribeInstancesInput{Filters: []types.Filter{{Name: aws.String("tag:env"), Values: []string{"prod"}}}})
	if err != nil || len(ids) != 1 {
		t.Fatalf("tagged instances = %v, %v", ids, err)
	}
	_, err = c.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{vm.ID, "i-00000000000000bad"}, Tags: []types.Tag{{Key: aws.String("x"), Value: aws.String("y")}}})
	wantCode(t, err, "InvalidInstanceID.NotFound")
	if _, err := c.DeleteTags(ctx, &ec2.DeleteTagsInput{Resources: []string{vm.ID}, Tags: []types.Tag{{Key: aws.String("env"), Value: aws.String("staging")}}}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := allInstances(t, c, &ec2.DescribeInstancesInput{Filters: []types.Filter{{Name: aws.String("tag:env"), Values: []string{"prod"}}}}); len(ids) != 1 {
		t.Error("DeleteTags with another value removed the tag")
	}
	if _, err := c.DeleteTags(ctx, &ec2.DeleteTagsInput{Resources: []string{vm.ID}, Tags: []types.Tag{{Key: aws.String("env")}}}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := allInstances(t, c, &ec2.DescribeInstancesInput{Filters: []types.Filter{{Name: aws.String("tag-key"), Values: []string{"env"}}}}); len(ids) != 0 {
		t.Error("DeleteTags without a value kept the tag")
	}
}
