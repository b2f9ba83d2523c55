package aws_test

import (
	"errors"
	"net/http"
	"slices"
	"testing"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

// serviceWrites are the calls that set a service's groups.
var serviceWrites = []string{"ModifyDBInstance", "ModifyDBCluster", "SetSecurityGroups"}

func serviceCalls(emu *awsemu.Server) int {
	n := 0
	for _, a := range serviceWrites {
		n += emu.Calls(a)
	}
	return n
}

// operatorGroup creates a group the operator owns in vpc.
func (f *fixture) operatorGroup(t *testing.T, vpc, name string) string {
	t.Helper()
	out, err := f.ec2Client().CreateSecurityGroup(t.Context(), &ec2.CreateSecurityGroupInput{
		GroupName: awssdk.String(name), Description: awssdk.String("the operator's"), VpcId: awssdk.String(vpc)})
	if err != nil {
		t.Fatal(err)
	}
	return awssdk.ToString(out.GroupId)
}

// service is one kind of service under test: how to add it with the
// operator's group, and the id ServiceGroups takes.
type serviceCase struct {
	kind string
	add  func(t *testing.T, f *fixture, vpc, ops string) (arn, id string)
}

var serviceCases = []serviceCase{{
	kind: "RDS DB instance",
	add: func(t *testing.T, f *fixture, vpc, ops string) (string, string) {
		t.Helper()
		db, err := f.emu.AddDBInstance(awsemu.DBInstanceSpec{Region: region, VPCID: vpc, Identifier: "orders", SecurityGroupIDs: []string{ops}})
		if err != nil {
			t.Fatal(err)
		}
		return db.ARN, "orders"
	},
}, {
	kind: "Aurora DB cluster",
	add: func(t *testing.T, f *fixture, vpc, ops string) (string, string) {
		t.Helper()
		c, err := f.emu.AddDBCluster(awsemu.DBClusterSpec{Region: region, VPCID: vpc, Identifier: "ledger", Instances: 2, SecurityGroupIDs: []string{ops}})
		if err != nil {
			t.Fatal(err)
		}
		return c.ARN, "ledger"
	},
}, {
	kind: "Application Load Balancer",
	add: func(t *testing.T, f *fixture, vpc, ops string) (string, string) {
		t.Helper()
		lb, err := f.emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: region, VPCID: vpc, Name: "web", Internal: true,
			SecurityGroupIDs: []string{ops}, Listeners: []awsemu.Listener{{Protocol: "HTTPS", Port: 443}}})
		if err != nil {
			t.Fatal(err)
		}
		return lb.ARN, lb.ARN
	},
}, {
	kind: "Network Load Balancer with security groups",
	add: func(t *testing.T, f *fixture, vpc, ops string) (string, string) {
		t.Helper()
		lb, err := f.emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: region, VPCID: vpc, Name: "api", Type: "network", Internal: true,
			SecurityGroupIDs: []string{ops}, Listeners: []awsemu.Listener{{Protocol: "TCP", Port: 8443}}})
		if err != nil {
			t.Fatal(err)
		}
		return lb.ARN, lb.ARN
	},
}}

func serviceSpec(vpc, arn string, peers ...string) provider.SecurityGroupSpec {
	g := provider.SecurityGroup{Name: "antreaplus-t.db", Egress: []provider.Rule{}}
	for _, p := range peers {
		g.Ingress = append(g.Ingress, tcpRule(5432, p))
	}
	return provider.SecurityGroupSpec{VPCID: vpc, Prefix: "antreaplus-", Groups: []provider.SecurityGroup{g},
		Services: map[string][]string{arn: {g.Name}}}
}

func TestSyncServiceGroups(t *testing.T) {
	for _, sc := range serviceCases {
		t.Run(sc.kind, func(t *testing.T) {
			f := newFixture(t, 1)
			vpc := f.vpcs[0]
			ops := f.operatorGroup(t, vpc, "ops-db")
			arn, id := sc.add(t, f, vpc, ops)
			p := f.provider(t, nil)
			groups := func() []string {
				t.Helper()
				g, err := f.emu.ServiceGroups(region, id)
				if err != nil {
					t.Fatal(err)
				}
				return g
			}

			// Rules in: our group beside the operator's.
			res, err := p.SyncSecurityGroups(t.Context(), region, serviceSpec(vpc, arn, "10.1.0.0/16"))
			if err != nil || res.ServicesChanged != 1 || len(res.Unrealized) != 0 || serviceCalls(f.emu) != 1 {
				t.Fatalf("first sync: %+v, %v (%d service calls); want the service changed once", res, err, serviceCalls(f.emu))
			}
			managed := f.groupByName(t, "antreaplus-t.db")
			if managed == nil || !slices.Equal(groups(), slices.Sorted(slices.Values([]string{ops, awssdk.ToString(managed.GroupId)}))) {
				t.Fatalf("service groups %v; want the operator's %s and ours", groups(), ops)
			}
			if len(managed.IpPermissionsEgress) != 0 || len(managed.IpPermissions) != 1 {
				t.Errorf("managed group rules: ingress %+v egress %+v; want one ingress rule and no egress", managed.IpPermissions, managed.IpPermissionsEgress)
			}
			// The VPC's interfaces of the service carry its groups, and
			// are never written through EC2.
			if n := f.emu.Calls("ModifyNetworkInterfaceAttribute"); n != 0 {
				t.Errorf("%d ModifyNetworkInterfaceAttribute calls; want none: a service's interfaces are its own", n)
			}

			// Nothing changed: nothing written.
			before := writes(f.emu) + serviceCalls(f.emu)
			if res, err := p.SyncSecurityGroups(t.Context(), region, serviceSpec(vpc, arn, "10.1.0.0/16")); err != nil || res.Writes != 0 {
				t.Fatalf("unchanged sync: %+v, %v", res, err)
			}
			if after := writes(f.emu) + serviceCalls(f.emu); after != before {
				t.Errorf("unchanged sync wrote %d calls", after-before)
			}

			// Rules changed: the group's rules only.
			res, err = p.SyncSecurityGroups(t.Context(), region, serviceSpec(vpc, arn, "10.2.0.0/16"))
			if err != nil || res.ServicesChanged != 0 || res.RulesAdded != 1 || res.RulesRemoved != 1 {
				t.Fatalf("changed rules: %+v, %v", res, err)
			}

			// Policy deleted: our group detached and deleted, the
			// operator's kept.
			res, err = p.SyncSecurityGroups(t.Context(), region, provider.SecurityGroupSpec{VPCID: vpc, Prefix: "antreaplus-"})
			if err != nil || res.ServicesChanged != 1 || !slices.Equal(res.Deleted, []string{"antreaplus-t.db"}) {
				t.Fatalf("policy deleted: %+v, %v", res, err)
			}
			if !slices.Equal(groups(), []string{ops}) {
				t.Errorf("service groups %v; want the operator's alone", groups())
			}
		})
	}
}

func TestSyncServiceGroupsRefusals(t *testing.T) {
	f := newFixture(t, 1)
	vpc := f.vpcs[0]
	ops := f.operatorGroup(t, vpc, "ops")
	nlb, err := f.emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: region, VPCID: vpc, Name: "bare", Type: "network", Internal: true,
		Listeners: []awsemu.Listener{{Protocol: "TCP", Port: 5432}}})
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := f.emu.AddDBCluster(awsemu.DBClusterSpec{Region: region, VPCID: vpc, Identifier: "ledger", SecurityGroupIDs: []string{ops}})
	if err != nil {
		t.Fatal(err)
	}
	db, err := f.emu.AddDBInstance(awsemu.DBInstanceSpec{Region: region, VPCID: vpc, Identifier: "orders", SecurityGroupIDs: []string{ops}})
	if err != nil {
		t.Fatal(err)
	}
	p := f.provider(t, nil)
	code := func(res provider.SyncResult, object string) string {
		for _, u := range res.Unrealized {
			if u.Object == object {
				return u.Code
			}
		}
		return "(none)"
	}
	t.Run("an NLB without security groups, a cluster member", func(t *testing.T) {
		spec := serviceSpec(vpc, nlb.ARN, "10.1.0.0/16")
		spec.Services[cluster.Instances[0].ARN] = []string{"antreaplus-t.db"}
		res, err := p.SyncSecurityGroups(t.Context(), region, spec)
		if err != nil || code(res, nlb.ARN) != provider.UnrealizedNoSecurityGroups ||
			code(res, cluster.Instances[0].ARN) != provider.UnrealizedClusterMember || serviceCalls(f.emu) != 0 {
			t.Fatalf("%+v, %v; want both reported and no service written", res, err)
		}
	})
	t.Run("quota", func(t *testing.T) {
		q := f.provider(t, func(o *aws.Options) { o.GroupsPerInterface = 1 })
		res, err := q.SyncSecurityGroups(t.Context(), region, serviceSpec(vpc, db.ARN, "10.1.0.0/16"))
		if err != nil || code(res, db.ARN) != provider.UnrealizedQuota || res.ServicesChanged != 0 {
			t.Fatalf("%+v, %v; want the quota reported", res, err)
		}
	})
	t.Run("the service deleted mid-sync", func(t *testing.T) {
		// Deleted between the read and the write: RDS answers
		// DBInstanceNotFound; the rest of the VPC is still synced.
		f.emu.InjectFault(awsemu.Fault{Action: "ModifyDBInstance", Times: 1, Status: http.StatusNotFound, Code: "DBInstanceNotFound", Message: "DBInstance orders not found."})
		spec := serviceSpec(vpc, db.ARN, "10.1.0.0/16")
		spec.Services[cluster.ARN] = []string{"antreaplus-t.db"}
		res, err := p.SyncSecurityGroups(t.Context(), region, spec)
		if err != nil || code(res, db.ARN) != provider.UnrealizedNotFound || res.ServicesChanged != 1 {
			t.Fatalf("%+v, %v; want the instance reported gone and the cluster done", res, err)
		}
	})
	t.Run("credentials revoked mid-sync", func(t *testing.T) {
		f.emu.InjectFault(awsemu.Fault{Action: "ModifyDBInstance", Times: -1, Status: http.StatusForbidden, Code: "InvalidClientTokenId",
			Message: "The security token included in the request is invalid."})
		defer f.emu.ClearFaults()
		deletes := f.emu.Calls("DeleteSecurityGroup")
		spec := serviceSpec(vpc, db.ARN, "10.1.0.0/16")
		spec.Groups = append(spec.Groups, provider.SecurityGroup{Name: "antreaplus-t.other"})
		_, err := p.SyncSecurityGroups(t.Context(), region, provider.SecurityGroupSpec{VPCID: vpc, Prefix: "antreaplus-",
			Groups: spec.Groups, Services: map[string][]string{db.ARN: {"antreaplus-t.db"}, cluster.ARN: {"antreaplus-t.db"}}})
		if !errors.Is(err, provider.ErrAuthentication) {
			t.Fatalf("error %v; want ErrAuthentication", err)
		}
		if f.emu.Calls("DeleteSecurityGroup") != deletes {
			t.Errorf("a sync whose credentials were refused went on deleting groups")
		}
		// The cluster keeps what the last sync gave it.
		if g, _ := f.emu.ServiceGroups(region, "ledger"); len(g) != 2 {
			t.Errorf("cluster groups %v; want the operator's and ours, untouched", g)
		}
	})
}
