package awsemu_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/rds"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	cloudaws "antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

const testRole = "arn:aws:iam::123456789012:role/reader"

// clients are SDK clients of every service the emulator serves, signed
// with one credential and not retrying.
type clients struct {
	ec2 *ec2.Client
	elb *elb.Client
	rds *rds.Client
	sts *sts.Client
}

func clientsFor(url string, creds aws.CredentialsProvider) clients {
	h := cloudaws.NewHTTPClient()
	return clients{
		ec2: ec2.New(ec2.Options{Region: testRegion, BaseEndpoint: &url, Credentials: creds, RetryMaxAttempts: 1, HTTPClient: h}),
		elb: elb.New(elb.Options{Region: testRegion, BaseEndpoint: &url, Credentials: creds, RetryMaxAttempts: 1, HTTPClient: h}),
		rds: rds.New(rds.Options{Region: testRegion, BaseEndpoint: &url, Credentials: creds, RetryMaxAttempts: 1, HTTPClient: h}),
		sts: sts.New(sts.Options{Region: testRegion, BaseEndpoint: &url, Credentials: creds, RetryMaxAttempts: 1, HTTPClient: h}),
	}
}

// call makes one describe of each service and returns their errors.
func (c clients) call() (ec2Err, elbErr, rdsErr error) {
	ctx := context.Background()
	_, ec2Err = c.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
	_, elbErr = c.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{})
	_, rdsErr = c.rds.DescribeDBInstances(ctx, &rds.DescribeDBInstancesInput{})
	return
}

func TestAssumeRoleSessions(t *testing.T) {
	emu := awsemu.New(awsemu.Options{
		Credentials: []awsemu.Credential{{AccessKeyID: testKeyID, SecretAccessKey: testSecret}},
		Roles:       []awsemu.Role{{ARN: testRole, ExternalID: "ext-1"}},
	})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	base := clientsFor(srv.URL, credentials.NewStaticCredentialsProvider(testKeyID, testSecret, ""))
	ctx := t.Context()

	for _, ext := range []string{"", "ext-2"} {
		_, err := base.sts.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(testRole), RoleSessionName: aws.String("s1"), ExternalId: aws.String(ext)})
		wantCode(t, err, "AccessDenied")
	}
	out, err := base.sts.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(testRole), RoleSessionName: aws.String("test"), ExternalId: aws.String("ext-1")})
	if err != nil {
		t.Fatal(err)
	}
	c := out.Credentials
	if aws.ToString(out.AssumedRoleUser.Arn) != "arn:aws:sts::123456789012:assumed-role/reader/test" || c.Expiration == nil {
		t.Errorf("assumed role user %s, expiration %v", aws.ToString(out.AssumedRoleUser.Arn), c.Expiration)
	}
	session := clientsFor(srv.URL, credentials.NewStaticCredentialsProvider(*c.AccessKeyId, *c.SecretAccessKey, *c.SessionToken))
	if e1, e2, e3 := session.call(); e1 != nil || e2 != nil || e3 != nil {
		t.Fatalf("calls with the role's credentials: %v, %v, %v", e1, e2, e3)
	}
	// Without the session token the key is unknown.
	noToken := clientsFor(srv.URL, credentials.NewStaticCredentialsProvider(*c.AccessKeyId, *c.SecretAccessKey, ""))
	e1, e2, e3 := noToken.call()
	wantCode(t, e1, "AuthFailure")
	wantCode(t, e2, "InvalidClientTokenId")
	wantCode(t, e3, "InvalidClientTokenId")
	// A session cannot assume the role again (no role chaining here).
	_, err = session.sts.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(testRole), RoleSessionName: aws.String("again"), ExternalId: aws.String("ext-1")})
	wantCode(t, err, "AccessDenied")

	emu.ExpireSessions()
	e1, e2, e3 = session.call()
	wantCode(t, e1, "RequestExpired")
	wantCode(t, e2, "ExpiredToken")
	wantCode(t, e3, "ExpiredToken")
}

func TestQueryServiceFaults(t *testing.T) {
	emu, _ := newEmulator(t, awsemu.Options{})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	c := clientsFor(srv.URL, credentials.NewStaticCredentialsProvider(testKeyID, testSecret, ""))
	emu.Throttle("", 3)
	e1, e2, e3 := c.call()
	wantCode(t, e1, "RequestLimitExceeded")
	wantCode(t, e2, "Throttling")
	wantCode(t, e3, "Throttling")
	emu.FailAuth(3)
	_, e2, e3 = c.call()
	wantCode(t, e2, "InvalidClientTokenId")
	wantCode(t, e3, "InvalidClientTokenId")
	wrong := clientsFor(srv.URL, credentials.NewStaticCredentialsProvider(testKeyID, "wrong", ""))
	_, e2, _ = wrong.call()
	wantCode(t, e2, "SignatureDoesNotMatch")
	_, err := c.elb.DescribeLoadBalancers(t.Context(), &elb.DescribeLoadBalancersInput{PageSize: aws.Int32(401)})
	wantCode(t, err, "ValidationError")
	_, err = c.rds.DescribeDBInstances(t.Context(), &rds.DescribeDBInstancesInput{DBInstanceIdentifier: aws.String("nope")})
	wantCode(t, err, "DBInstanceNotFound")
}

func TestLoadBalancerInterfaces(t *testing.T) {
	emu, ec2c := newEmulator(t, awsemu.Options{})
	vpc := mustVPC(t, emu, awsemu.VPCSpec{Name: "prod"})
	lb, err := emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: testRegion, VPCID: vpc, Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	// As on AWS, the interfaces are found by their description.
	out, err := ec2c.DescribeNetworkInterfaces(t.Context(), &ec2.DescribeNetworkInterfacesInput{
		Filters: []ec2types.Filter{{Name: aws.String("description"), Values: []string{"ELB app/web/*"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.NetworkInterfaces) != 2 || aws.ToString(out.NetworkInterfaces[0].RequesterId) != "amazon-elb" ||
		!aws.ToBool(out.NetworkInterfaces[0].RequesterManaged) || out.NetworkInterfaces[0].Attachment != nil {
		t.Fatalf("interfaces of %s: %+v", lb.ARN, out.NetworkInterfaces)
	}
}

// TestServiceSecurityGroups: the services' groups through the real SDK,
// with the errors AWS answers.
func TestServiceSecurityGroups(t *testing.T) {
	emu := awsemu.New(awsemu.Options{Credentials: []awsemu.Credential{{AccessKeyID: testKeyID, SecretAccessKey: testSecret}}})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	c := clientsFor(srv.URL, credentials.NewStaticCredentialsProvider(testKeyID, testSecret, ""))
	ctx := t.Context()
	vpc, err := emu.AddVPC(awsemu.VPCSpec{Region: testRegion, Name: "prod", CIDR: "10.0.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.ec2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String("extra"), Description: aws.String("d"), VpcId: aws.String(vpc)})
	if err != nil {
		t.Fatal(err)
	}
	extra := aws.ToString(g.GroupId)
	db, err := emu.AddDBInstance(awsemu.DBInstanceSpec{Region: testRegion, VPCID: vpc, Identifier: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := emu.AddDBCluster(awsemu.DBClusterSpec{Region: testRegion, VPCID: vpc, Identifier: "ledger", Instances: 2})
	if err != nil {
		t.Fatal(err)
	}
	nlb, err := emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: testRegion, VPCID: vpc, Name: "bare", Type: "network"})
	if err != nil {
		t.Fatal(err)
	}
	alb, err := emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: testRegion, VPCID: vpc, Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	code := func(err error) string {
		var api interface{ ErrorCode() string }
		if !errors.As(err, &api) {
			return fmt.Sprint(err)
		}
		return api.ErrorCode()
	}

	// A DB instance's groups, on it and on its interface.
	out, err := c.rds.ModifyDBInstance(ctx, &rds.ModifyDBInstanceInput{DBInstanceIdentifier: aws.String("orders"), VpcSecurityGroupIds: []string{extra}, ApplyImmediately: aws.Bool(true)})
	if err != nil || len(out.DBInstance.VpcSecurityGroups) != 1 || aws.ToString(out.DBInstance.VpcSecurityGroups[0].VpcSecurityGroupId) != extra {
		t.Fatalf("ModifyDBInstance: %+v, %v", out, err)
	}
	nics, err := c.ec2.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{db.NIC}})
	if err != nil || len(nics.NetworkInterfaces[0].Groups) != 1 || aws.ToString(nics.NetworkInterfaces[0].Groups[0].GroupId) != extra {
		t.Fatalf("the DB's interface: %+v, %v; want its groups", nics, err)
	}
	// ...which EC2 does not change.
	_, err = c.ec2.ModifyNetworkInterfaceAttribute(ctx, &ec2.ModifyNetworkInterfaceAttributeInput{NetworkInterfaceId: aws.String(db.NIC), Groups: []string{extra}})
	if code(err) != "OperationNotPermitted" {
		t.Errorf("ModifyNetworkInterfaceAttribute of a requester-managed interface: %v; want OperationNotPermitted", err)
	}
	// A cluster member's groups are the cluster's.
	_, err = c.rds.ModifyDBInstance(ctx, &rds.ModifyDBInstanceInput{DBInstanceIdentifier: aws.String("ledger-instance-1"), VpcSecurityGroupIds: []string{extra}})
	if code(err) != "InvalidParameterCombination" {
		t.Errorf("ModifyDBInstance of a cluster member: %v; want InvalidParameterCombination", err)
	}
	cl, err := c.rds.ModifyDBCluster(ctx, &rds.ModifyDBClusterInput{DBClusterIdentifier: aws.String("ledger"), VpcSecurityGroupIds: []string{extra}})
	if err != nil || len(cl.DBCluster.VpcSecurityGroups) != 1 {
		t.Fatalf("ModifyDBCluster: %+v, %v", cl, err)
	}
	clusters, err := c.rds.DescribeDBClusters(ctx, &rds.DescribeDBClustersInput{})
	if err != nil || len(clusters.DBClusters) != 1 || aws.ToString(clusters.DBClusters[0].DBClusterArn) != cluster.ARN ||
		len(clusters.DBClusters[0].DBClusterMembers) != 2 || !aws.ToBool(clusters.DBClusters[0].DBClusterMembers[0].IsClusterWriter) {
		t.Fatalf("DescribeDBClusters: %+v, %v", clusters, err)
	}
	members, err := c.rds.DescribeDBInstances(ctx, &rds.DescribeDBInstancesInput{DBInstanceIdentifier: aws.String("ledger-instance-2")})
	if err != nil || aws.ToString(members.DBInstances[0].DBClusterIdentifier) != "ledger" ||
		aws.ToString(members.DBInstances[0].VpcSecurityGroups[0].VpcSecurityGroupId) != extra {
		t.Fatalf("a cluster member after ModifyDBCluster: %+v, %v", members, err)
	}
	if _, err := c.rds.ModifyDBInstance(ctx, &rds.ModifyDBInstanceInput{DBInstanceIdentifier: aws.String("nope"), VpcSecurityGroupIds: []string{extra}}); code(err) != "DBInstanceNotFound" {
		t.Errorf("ModifyDBInstance of an unknown instance: %v; want DBInstanceNotFound", err)
	}
	if _, err := c.rds.ModifyDBInstance(ctx, &rds.ModifyDBInstanceInput{DBInstanceIdentifier: aws.String("orders"), VpcSecurityGroupIds: []string{"sg-00000000000000bad"}}); code(err) != "InvalidParameterValue" {
		t.Errorf("ModifyDBInstance with an unknown group: %v; want InvalidParameterValue", err)
	}

	// Load balancers: an ALB's groups replaced; an NLB created without
	// groups refused.
	set, err := c.elb.SetSecurityGroups(ctx, &elb.SetSecurityGroupsInput{LoadBalancerArn: aws.String(alb.ARN), SecurityGroups: []string{extra}})
	if err != nil || len(set.SecurityGroupIds) != 1 || set.SecurityGroupIds[0] != extra {
		t.Fatalf("SetSecurityGroups: %+v, %v", set, err)
	}
	if _, err := c.elb.SetSecurityGroups(ctx, &elb.SetSecurityGroupsInput{LoadBalancerArn: aws.String(nlb.ARN), SecurityGroups: []string{extra}}); code(err) != "InvalidConfigurationRequest" {
		t.Errorf("SetSecurityGroups of an NLB without groups: %v; want InvalidConfigurationRequest", err)
	}
	if _, err := c.elb.SetSecurityGroups(ctx, &elb.SetSecurityGroupsInput{LoadBalancerArn: aws.String(alb.ARN), SecurityGroups: []string{"sg-00000000000000bad"}}); code(err) != "InvalidSecurityGroup" {
		t.Errorf("SetSecurityGroups with an unknown group: %v; want InvalidSecurityGroup", err)
	}
}
