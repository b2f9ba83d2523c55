package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/rds"
)

// nativeServices protects the RDS database prod-orders with a federated
// policy (dev-build-1 here, azure-dev-build-1 of member-2) and the load
// balancer prod-web with a plain one, and reads the groups back from the
// cloud's API: the database's and load balancer's own groups kept, ours
// beside them with exactly the allowed peers on the service's ports.
func (d *demo) nativeServices() error {
	d.printf("  member-2 exports its dev VMs too (the same EntityExport, applied in member-2):\n")
	if err := d.apply("member-2", "dev-vms-export.yaml", true); err != nil {
		return err
	}
	var remote []string
	err := d.wait("member-2's azure dev-build-1 imported into member-1", time.Minute, func() error {
		out := d.jsonpath("member-1", "-n", cloudNS, "get", "remoteentities",
			"-l", "federation.antreaplus.io/source-cluster=member-2,tag.cloud.antreaplus.io/Name=dev-build-1",
			"-o", "jsonpath={.items[*].spec.endpoints[*].ip} {.items[*].spec.addresses[*].ip}")
		remote = strings.Fields(out)
		if len(remote) == 0 {
			return errNot("no RemoteEntity yet")
		}
		return nil
	})
	if err != nil {
		return err
	}
	local := strings.Fields(d.jsonpath("member-1", "-n", cloudNS, "get", "externalentities",
		"-l", "tag.cloud.antreaplus.io/Name=dev-build-1,cloud.antreaplus.io/account-name=aws-emulator", "-o", "jsonpath={.items[*].spec.endpoints[*].ip}"))
	if len(local) == 0 {
		return fmt.Errorf("dev-build-1 of member-1 has no ExternalEntity with addresses")
	}
	if err := d.apply("member-1", "orders-ingress.yaml", true); err != nil {
		return err
	}
	if err := d.apply("member-1", "web-lb-ingress.yaml", true); err != nil {
		return err
	}
	cfg, err := d.awsConfig()
	if err != nil {
		return err
	}
	var db, lb []string
	err = d.wait("prod-orders' security groups hold dev-build-1 and azure-dev-build-1 on 5432 alone", time.Minute, func() error {
		db, err = d.dbGroups(cfg, "prod-orders")
		if err != nil {
			return err
		}
		return wantManaged(db, "tcp/5432", local, remote)
	})
	if err != nil {
		return err
	}
	err = d.wait("prod-web's security groups hold the dev network on its listeners' ports", time.Minute, func() error {
		lb, err = d.lbGroups(cfg, "prod-web")
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(lb, func(l string) bool {
			return strings.HasPrefix(l, "  antreaplus") && strings.Contains(l, "tcp/443") && strings.Contains(l, "tcp/80 ") && strings.HasSuffix(l, "from 10.20.0.0/16")
		}) {
			return errNot("%v", lb)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := d.realized("member-1", "web-lb-ingress"); err != nil {
		return err
	}
	if err := d.wait("orders-ingress realised", time.Minute, func() error {
		if st := d.jsonpath("member-1", "-n", cloudNS, "get", "federatednetworkpolicies", "orders-ingress", "-o", "jsonpath={.status.phase}"); st != "Realized" {
			return errNot("phase %q", st)
		}
		return nil
	}); err != nil {
		return err
	}
	d.printf("  read back from the cloud (RDS DescribeDBInstances, ELBv2 DescribeLoadBalancers, EC2 DescribeSecurityGroups):\n")
	d.printf("  RDS DB instance prod-orders (PostgreSQL, port 5432):\n")
	for _, l := range db {
		d.printf("  %s\n", l)
	}
	d.printf("  -> dev-build-1 of member-1 (%s) and azure-dev-build-1 of member-2 (%s) may reach the database, on its port only\n",
		strings.Join(slices.Compact(slices.Sorted(slices.Values(local))), ", "), strings.Join(slices.Compact(slices.Sorted(slices.Values(remote))), ", "))
	d.printf("  Application Load Balancer prod-web (listeners 443 and 80):\n")
	for _, l := range lb {
		d.printf("  %s\n", l)
	}
	d.printf("  -> the policy allowed every port from 10.20.0.0/16: narrowed to the listeners' ports\n\n")
	if err := d.showK("  ", "--context", "member-1", "-n", cloudNS, "get", "federatednetworkpolicies,networkpolicies.crd.antrea.io", "orders-ingress", "web-lb-ingress",
		"--ignore-not-found", "-o", "custom-columns=KIND:.kind,POLICY:.metadata.name,PHASE:.status.phase"); err != nil {
		return err
	}
	return d.policyCLI("status", "orders-ingress", "-n", cloudNS, "--context", "member-1")
}

// wantManaged checks that one managed group allows on port addresses of
// both VMs, local's and remote's, and none of any other host (which of a
// VM's addresses, private or public, is what its traffic carries to the
// database's network: docs/networks.md).
func wantManaged(lines []string, port string, local, remote []string) error {
	for _, l := range lines {
		if !strings.HasPrefix(l, "  antreaplus") {
			continue
		}
		_, from, ok := strings.Cut(l, " from ")
		if !ok || !strings.Contains(l, "inbound "+port+" ") {
			continue
		}
		cidrs := strings.Fields(from)
		of := func(ips []string) func(string) bool {
			return func(c string) bool { return slices.ContainsFunc(ips, func(ip string) bool { return c == ip+"/32" }) }
		}
		if slices.ContainsFunc(cidrs, of(local)) && slices.ContainsFunc(cidrs, of(remote)) &&
			!slices.ContainsFunc(cidrs, func(c string) bool { return !of(local)(c) && !of(remote)(c) }) {
			return nil
		}
	}
	return errNot("%v", lines)
}

// dbGroups describes the security groups of a DB instance, one line each:
// the operator's, and ours with their inbound rules.
func (d *demo) dbGroups(cfg aws.Config, id string) ([]string, error) {
	ctx, cancel := context.WithTimeout(d.ctx, 10*time.Second)
	defer cancel()
	out, err := rds.NewFromConfig(cfg).DescribeDBInstances(ctx, &rds.DescribeDBInstancesInput{DBInstanceIdentifier: aws.String(id)})
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
	return d.describeGroups(ctx, cfg, ids)
}

// lbGroups describes the security groups of a load balancer.
func (d *demo) lbGroups(cfg aws.Config, name string) ([]string, error) {
	ctx, cancel := context.WithTimeout(d.ctx, 10*time.Second)
	defer cancel()
	out, err := elb.NewFromConfig(cfg).DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{Names: []string{name}})
	if err != nil {
		return nil, fmt.Errorf("DescribeLoadBalancers %s: %w", name, err)
	}
	if len(out.LoadBalancers) != 1 {
		return nil, fmt.Errorf("DescribeLoadBalancers %s: %d load balancers", name, len(out.LoadBalancers))
	}
	return d.describeGroups(ctx, cfg, out.LoadBalancers[0].SecurityGroups)
}

func (d *demo) describeGroups(ctx context.Context, cfg aws.Config, ids []string) ([]string, error) {
	out, err := ec2.NewFromConfig(cfg).DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: ids})
	if err != nil {
		return nil, fmt.Errorf("DescribeSecurityGroups %v: %w", ids, err)
	}
	var lines []string
	for _, g := range out.SecurityGroups {
		name := aws.ToString(g.GroupName)
		if !strings.HasPrefix(name, "antreaplus") {
			lines = append(lines, fmt.Sprintf("  %s (%s): the operator's, kept", name, aws.ToString(g.GroupId)))
			continue
		}
		var ports, from []string
		for _, p := range g.IpPermissions {
			ports = append(ports, fmt.Sprintf("%s/%d", aws.ToString(p.IpProtocol), aws.ToInt32(p.FromPort)))
			for _, r := range p.IpRanges {
				from = append(from, aws.ToString(r.CidrIp))
			}
		}
		slices.Sort(ports)
		slices.Sort(from)
		lines = append(lines, fmt.Sprintf("  %s: inbound %s from %s", name, strings.Join(slices.Compact(ports), " "), strings.Join(slices.Compact(from), " ")))
	}
	slices.Sort(lines)
	return lines, nil
}
