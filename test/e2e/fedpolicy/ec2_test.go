package fedpolicy

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/rds"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	cloudaws "antreaplus.io/antreaplus/pkg/cloud/aws"
)

// awsOptions are the endpoint, region and credentials of the sandbox's AWS
// account, as member-1's cloud controller reads them.
func awsOptions(t testing.TB) (endpoint, region string, creds aws.CredentialsProvider) {
	t.Helper()
	acct := &cloudv1alpha1.CloudProviderAccount{}
	if err := cl("member-1").Get(bg, client.ObjectKey{Namespace: ns, Name: awsAccount}, acct); err != nil || acct.Spec.AWS == nil {
		t.Fatalf("reading the AWS account %s of member-1: %v", awsAccount, err)
	}
	spec := acct.Spec.AWS
	secret := &corev1.Secret{}
	if err := cl("member-1").Get(bg, client.ObjectKey{Namespace: ns, Name: spec.Credentials.SecretRef.Name}, secret); err != nil {
		t.Fatalf("reading the credentials of %s: %v", awsAccount, err)
	}
	keyID := secret.Data[string(cmp.Or(spec.Credentials.AccessKeyIDKey, "accessKeyID"))]
	key := secret.Data[string(cmp.Or(spec.Credentials.SecretAccessKeyKey, "secretAccessKey"))]
	return spec.Endpoint, spec.Regions[0], credentials.NewStaticCredentialsProvider(string(keyID), string(key), "")
}

// rdsClient is the real SDK's RDS client of the sandbox's AWS account.
func rdsClient(t testing.TB) *rds.Client {
	t.Helper()
	endpoint, region, creds := awsOptions(t)
	return rds.New(rds.Options{Region: region, BaseEndpoint: aws.String(endpoint), Credentials: creds, HTTPClient: cloudaws.NewHTTPClient()})
}

// dbIngressCIDRs lists "group proto/port from cidr" of the inbound rules of
// the security groups of a DB instance, read through the RDS API.
func dbIngressCIDRs(t testing.TB, c *ec2.Client, r *rds.Client, id string) ([]string, error) {
	t.Helper()
	out, err := r.DescribeDBInstances(bg, &rds.DescribeDBInstancesInput{DBInstanceIdentifier: aws.String(id)})
	if err != nil {
		return nil, fmt.Errorf("DescribeDBInstances %s: %w", id, err)
	}
	if len(out.DBInstances) != 1 {
		return nil, fmt.Errorf("DescribeDBInstances %s: %d instances", id, len(out.DBInstances))
	}
	var ids []string
	for _, g := range out.DBInstances[0].VpcSecurityGroups {
		ids = append(ids, aws.ToString(g.VpcSecurityGroupId))
	}
	return groupsIngress(c, ids)
}

// ec2Client is the real SDK's EC2 client of the sandbox's AWS account, as
// member-1's cloud controller reads it: the endpoint and region of the
// CloudProviderAccount aws-emulator, the keys of its Secret.
func ec2Client(t testing.TB) *ec2.Client {
	t.Helper()
	endpoint, region, creds := awsOptions(t)
	return ec2.New(ec2.Options{Region: region, BaseEndpoint: aws.String(endpoint), Credentials: creds, HTTPClient: cloudaws.NewHTTPClient()})
}

// instanceNamed is the running instance whose Name tag is name.
func instanceNamed(t testing.TB, c *ec2.Client, name string) types.Instance {
	t.Helper()
	out, err := c.DescribeInstances(bg, &ec2.DescribeInstancesInput{Filters: []types.Filter{
		{Name: aws.String("tag:Name"), Values: []string{name}}, {Name: aws.String("instance-state-name"), Values: []string{"running"}}}})
	if err != nil {
		t.Fatalf("DescribeInstances of %s: %v", name, err)
	}
	for _, r := range out.Reservations {
		for _, i := range r.Instances {
			return i
		}
	}
	t.Fatalf("no running instance named %s", name)
	return types.Instance{}
}

// primaryInterface is the id of an instance's primary network interface.
func primaryInterface(t testing.TB, i types.Instance) string {
	t.Helper()
	for _, n := range i.NetworkInterfaces {
		if n.Attachment != nil && aws.ToInt32(n.Attachment.DeviceIndex) == 0 {
			return aws.ToString(n.NetworkInterfaceId)
		}
	}
	t.Fatalf("instance %s has no primary interface", aws.ToString(i.InstanceId))
	return ""
}

// ingressCIDRs lists "proto/port from cidr" of the inbound rules of the
// security groups attached to an interface.
func ingressCIDRs(t testing.TB, c *ec2.Client, eni string) ([]string, error) {
	t.Helper()
	nics, err := c.DescribeNetworkInterfaces(bg, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{eni}})
	if err != nil {
		return nil, fmt.Errorf("DescribeNetworkInterfaces %s: %w", eni, err)
	}
	var ids []string
	for _, g := range nics.NetworkInterfaces[0].Groups {
		ids = append(ids, aws.ToString(g.GroupId))
	}
	return groupsIngress(c, ids)
}

// groupsIngress lists "group proto/port from cidr" of the inbound rules of
// security groups.
func groupsIngress(c *ec2.Client, ids []string) ([]string, error) {
	groups, err := c.DescribeSecurityGroups(bg, &ec2.DescribeSecurityGroupsInput{GroupIds: ids})
	if err != nil {
		return nil, fmt.Errorf("DescribeSecurityGroups %v: %w", ids, err)
	}
	var out []string
	for _, g := range groups.SecurityGroups {
		for _, p := range g.IpPermissions {
			for _, r := range p.IpRanges {
				out = append(out, fmt.Sprintf("%s %s/%d from %s", aws.ToString(g.GroupName), aws.ToString(p.IpProtocol), aws.ToInt32(p.FromPort), aws.ToString(r.CidrIp)))
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
