package agentless

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// Builders of the objects a user creates.

func awsAccount(ns, name, endpoint string) (*corev1.Secret, *cloudv1alpha1.CloudProviderAccount) {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-credentials"},
		StringData: map[string]string{"accessKeyID": awsKeyID, "secretAccessKey": awsSecret}}
	account := &cloudv1alpha1.CloudProviderAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS, PollIntervalSeconds: ptr.To[int32](30),
			AWS: &cloudv1alpha1.AWSAccountConfig{Regions: []string{region}, Endpoint: endpoint,
				Credentials: cloudv1alpha1.AWSCredentials{SecretRef: cloudv1alpha1.SecretReference{Name: name + "-credentials"}}}},
	}
	return secret, account
}

// agentlessSelector imports every VM of the prod VPC, agentless.
func agentlessSelector(ns, account string) *cloudv1alpha1.CloudEntitySelector {
	return &cloudv1alpha1.CloudEntitySelector{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: account},
		Spec: cloudv1alpha1.CloudEntitySelectorSpec{
			AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: account},
			VirtualMachines: []cloudv1alpha1.VirtualMachineMatch{{VPCMatch: &cloudv1alpha1.EntityMatch{Names: []string{"prod"}},
				EnforcementMode: cloudv1alpha1.EnforcementAgentless}},
		},
	}
}

type ruleOpt func(*antreav1beta1.Rule)

func rule(name string, action antreav1beta1.RuleAction, opts ...ruleOpt) antreav1beta1.Rule {
	r := antreav1beta1.Rule{Name: name, Action: &action}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func fromCIDR(cidr string) ruleOpt {
	return func(r *antreav1beta1.Rule) {
		r.From = append(r.From, antreav1beta1.NetworkPolicyPeer{IPBlock: &antreav1beta1.IPBlock{CIDR: cidr}})
	}
}

func toCIDR(cidr string) ruleOpt {
	return func(r *antreav1beta1.Rule) {
		r.To = append(r.To, antreav1beta1.NetworkPolicyPeer{IPBlock: &antreav1beta1.IPBlock{CIDR: cidr}})
	}
}

func tcp(ports ...int) ruleOpt {
	return func(r *antreav1beta1.Rule) {
		for _, p := range ports {
			r.Ports = append(r.Ports, antreav1beta1.NetworkPolicyPort{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt(p))})
		}
	}
}

// policyOn is a NetworkPolicy applied to the ExternalEntities of the VM
// whose Name tag is vm.
func policyOn(ns, name, vm string, ingress ...antreav1beta1.Rule) *antreav1beta1.NetworkPolicy {
	return &antreav1beta1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: antreav1beta1.NetworkPolicySpec{Priority: 10, Ingress: ingress,
			AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"tag.cloud.antreaplus.io/Name": vm}}}}},
	}
}

// managedGroup is the managed group attached to an interface, as the
// cloud holds it.
type managedGroup struct {
	id, name        string
	ingress, egress []string // "tcp 80-80 10.0.0.0/8", sorted
}

// managedGroups returns the managed groups attached to nic.
func (c *cloud) managedGroups(ctx context.Context, nic string) ([]managedGroup, error) {
	out, err := c.ec2.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{nic}})
	if err != nil {
		return nil, fmt.Errorf("describing %s: %w", nic, err)
	}
	var ids []string
	for _, n := range out.NetworkInterfaces {
		for _, g := range n.Groups {
			if strings.HasPrefix(aws.ToString(g.GroupName), prefix) {
				ids = append(ids, aws.ToString(g.GroupId))
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	sgs, err := c.ec2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: ids})
	if err != nil {
		return nil, fmt.Errorf("describing groups %v: %w", ids, err)
	}
	var groups []managedGroup
	for _, g := range sgs.SecurityGroups {
		groups = append(groups, managedGroup{id: aws.ToString(g.GroupId), name: aws.ToString(g.GroupName),
			ingress: permissions(g.IpPermissions), egress: permissions(g.IpPermissionsEgress)})
	}
	return groups, nil
}

// groupNamed reports whether a managed group of that name exists in the
// VPC.
func (c *cloud) groupNamed(ctx context.Context, name string) (bool, error) {
	out, err := c.ec2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{
		{Name: aws.String("group-name"), Values: []string{name}}, {Name: aws.String("vpc-id"), Values: []string{c.vpc}}}})
	if err != nil {
		return false, err
	}
	return len(out.SecurityGroups) > 0, nil
}

func permissions(perms []types.IpPermission) []string {
	var out []string
	for _, p := range perms {
		for _, r := range p.IpRanges {
			out = append(out, fmt.Sprintf("%s %d-%d %s", aws.ToString(p.IpProtocol), aws.ToInt32(p.FromPort), aws.ToInt32(p.ToPort), aws.ToString(r.CidrIp)))
		}
		for _, r := range p.Ipv6Ranges {
			out = append(out, fmt.Sprintf("%s %d-%d %s", aws.ToString(p.IpProtocol), aws.ToInt32(p.FromPort), aws.ToInt32(p.ToPort), aws.ToString(r.CidrIpv6)))
		}
	}
	slices.Sort(out)
	return out
}

// wantGroup waits until nic carries exactly one managed group with these
// ingress rules, and returns it.
func (c *cloud) wantGroup(t *testing.T, nic string, ingress ...string) managedGroup {
	t.Helper()
	slices.Sort(ingress)
	var got managedGroup
	eventually(t, func() error {
		groups, err := c.managedGroups(t.Context(), nic)
		if err != nil {
			return err
		}
		if len(groups) != 1 || !slices.Equal(groups[0].ingress, ingress) {
			return fmt.Errorf("managed groups of %s: %+v; want one with ingress %q", nic, groups, ingress)
		}
		got = groups[0]
		return nil
	})
	return got
}
