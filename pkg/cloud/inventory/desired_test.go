package inventory

import (
	"slices"
	"testing"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

func TestDesiredSelection(t *testing.T) {
	snap := snapshot("us-east-1",
		withVPC("vpc-a", "prod", map[string]string{"tier": "front"}),
		withVPC("vpc-b", "dev", nil),
		withVM("i-1", "vpc-a", named("web-1"), tagged("role", "web")),
		withVM("i-2", "vpc-a", named("db-1"), tagged("role", "db")),
		withVM("i-3", "vpc-b", named("web-2"), tagged("role", "web")),
		withVM("i-4", "vpc-b", named("gone"), inState(provider.VMTerminated)),
		withVM("i-5", "vpc-unknown", named("orphan")),
	)
	for _, tc := range []struct {
		name      string
		entries   []cloudv1alpha1.VirtualMachineMatch
		want      []string
		wantModes []cloudv1alpha1.EnforcementMode
	}{
		{name: "no entries", want: nil},
		{name: "VPC by id", entries: []cloudv1alpha1.VirtualMachineMatch{byVPC("vpc-a")}, want: []string{"i-1", "i-2"}},
		{name: "VPC by name", entries: []cloudv1alpha1.VirtualMachineMatch{{VPCMatch: &cloudv1alpha1.EntityMatch{Names: []string{"dev"}}}}, want: []string{"i-3"}},
		{name: "VPC by tag", entries: []cloudv1alpha1.VirtualMachineMatch{{VPCMatch: &cloudv1alpha1.EntityMatch{Tags: map[string]string{"tier": "front"}}}}, want: []string{"i-1", "i-2"}},
		{name: "VPC missing from the snapshot matches by id only", entries: []cloudv1alpha1.VirtualMachineMatch{byVPC("vpc-unknown")}, want: []string{"i-5"}},
		{name: "VM by tag across VPCs", entries: []cloudv1alpha1.VirtualMachineMatch{{VMMatch: &cloudv1alpha1.EntityMatch{Tags: map[string]string{"role": "web"}}}}, want: []string{"i-1", "i-3"}},
		{name: "VM by name", entries: []cloudv1alpha1.VirtualMachineMatch{{VMMatch: &cloudv1alpha1.EntityMatch{Names: []string{"db-1", "web-2"}}}}, want: []string{"i-2", "i-3"}},
		{name: "VM by id, case-insensitive", entries: []cloudv1alpha1.VirtualMachineMatch{{VMMatch: &cloudv1alpha1.EntityMatch{IDs: []string{"I-2"}}}}, want: []string{"i-2"}},
		{name: "VPC and VM must both match", entries: []cloudv1alpha1.VirtualMachineMatch{{
			VPCMatch: &cloudv1alpha1.EntityMatch{IDs: []string{"vpc-a"}}, VMMatch: &cloudv1alpha1.EntityMatch{Tags: map[string]string{"role": "web"}},
		}}, want: []string{"i-1"}},
		{name: "every criterion of a match", entries: []cloudv1alpha1.VirtualMachineMatch{{VMMatch: &cloudv1alpha1.EntityMatch{Names: []string{"web-1", "web-2"}, Tags: map[string]string{"role": "db"}}}}, want: nil},
		{name: "terminated never imported", entries: []cloudv1alpha1.VirtualMachineMatch{{VMMatch: &cloudv1alpha1.EntityMatch{Names: []string{"gone"}}}}, want: nil},
		{
			name: "first matching entry sets the mode",
			entries: []cloudv1alpha1.VirtualMachineMatch{
				{VMMatch: &cloudv1alpha1.EntityMatch{Tags: map[string]string{"role": "db"}}, EnforcementMode: cloudv1alpha1.EnforcementAgented},
				byVPC("vpc-a", "vpc-b"),
			},
			want:      []string{"i-1", "i-2", "i-3"},
			wantModes: []cloudv1alpha1.EnforcementMode{cloudv1alpha1.EnforcementAgentless, cloudv1alpha1.EnforcementAgented, cloudv1alpha1.EnforcementAgentless},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Desired(input(selector(tc.entries), snap))
			var ids []string
			var modes []cloudv1alpha1.EnforcementMode
			for _, vm := range got.VirtualMachines {
				ids = append(ids, vm.Spec.CloudID)
				modes = append(modes, vm.Spec.EnforcementMode)
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("selected %v; want %v", ids, tc.want)
			}
			if tc.wantModes != nil && !slices.Equal(modes, tc.wantModes) {
				t.Errorf("modes %v; want %v", modes, tc.wantModes)
			}
			if len(got.NetworkInterfaces) != len(ids) {
				t.Errorf("%d NICs for %d VMs", len(got.NetworkInterfaces), len(ids))
			}
		})
	}
}

func TestDesiredObjects(t *testing.T) {
	snap := snapshot("eu-west-1",
		withVPC("vpc-a", "prod", nil),
		withVM("i-1", "vpc-a", named("web-1"), tagged("env", "prod", "Cost Center", "R&D"), func(v *provider.VM) {
			v.NICs = append(v.NICs, provider.NIC{ID: "eni-second", VPCID: "vpc-a", PrivateIPs: []string{"10.0.0.2"}, Tags: map[string]string{"role": "backend"}})
		}),
	)
	got := Desired(input(selector([]cloudv1alpha1.VirtualMachineMatch{byVPC("vpc-a")}), snap))
	if len(got.VirtualMachines) != 1 || len(got.NetworkInterfaces) != 2 {
		t.Fatalf("got %d VMs, %d NICs", len(got.VirtualMachines), len(got.NetworkInterfaces))
	}
	vm := got.VirtualMachines[0]
	if vm.Name != "i-1" || vm.Namespace != "tenant-a" {
		t.Errorf("VM name %s/%s", vm.Namespace, vm.Name)
	}
	wantSpec := cloudv1alpha1.VirtualMachineSpec{
		Provider: cloudv1alpha1.ProviderAWS, AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "acct", Namespace: "tenant-a"},
		CloudID: "i-1", CloudName: "web-1", Region: "eu-west-1", Zone: "eu-west-1a", VPCID: "vpc-a", InstanceType: "t3.micro",
		State: cloudv1alpha1.VMStateRunning, Tags: map[string]string{"env": "prod", "Cost Center": "R&D"},
		NetworkInterfaces: []string{"eni-i-1", "eni-second"}, EnforcementMode: cloudv1alpha1.EnforcementAgentless,
	}
	if !equalJSON(t, vm.Spec, wantSpec) {
		t.Errorf("VM spec\n got %+v\nwant %+v", vm.Spec, wantSpec)
	}
	for k, v := range map[string]string{
		cloudv1alpha1.LabelAccountName: "acct", cloudv1alpha1.LabelAccountNamespace: "tenant-a", cloudv1alpha1.LabelSelectorName: "sel",
		TagLabelPrefix + "env": "prod", TagLabelPrefix + LabelName("Cost Center"): LabelValue("R&D"),
	} {
		if vm.Labels[k] != v {
			t.Errorf("label %s = %q; want %q (labels %v)", k, vm.Labels[k], v, vm.Labels)
		}
	}
	primary, second := got.NetworkInterfaces[0], got.NetworkInterfaces[1]
	if primary.Name != "eni-i-1" || !primary.Spec.Primary || primary.Spec.VirtualMachine != "i-1" || primary.Labels[cloudv1alpha1.LabelVirtualMachine] != "i-1" {
		t.Errorf("primary NIC = %+v", primary)
	}
	if second.Spec.Primary || second.Labels[TagLabelPrefix+"role"] != "backend" || second.Spec.Region != "eu-west-1" {
		t.Errorf("second NIC = %+v", second)
	}
}

func TestDesiredServices(t *testing.T) {
	snap := snapshot("us-east-1",
		withVPC("vpc-a", "prod", nil),
		withService("arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/app/web/1", "AWSLoadBalancer", "vpc-a"),
		withService("arn:aws:rds:us-east-1:1:db:orders", "AWSRDS", "vpc-a", func(s *provider.Service) { s.Tags = map[string]string{"app": "orders"} }),
		withService("arn:aws:rds:us-east-1:1:db:other", "AWSRDS", "vpc-b"),
	)
	for _, tc := range []struct {
		name  string
		match cloudv1alpha1.CloudNativeServiceMatch
		want  int
	}{
		{"every kind of the provider in a VPC", cloudv1alpha1.CloudNativeServiceMatch{VPCMatch: &cloudv1alpha1.EntityMatch{IDs: []string{"vpc-a"}}}, 2},
		{"one kind", cloudv1alpha1.CloudNativeServiceMatch{Kinds: []cloudv1alpha1.CloudNativeServiceKind{cloudv1alpha1.ServiceKindAWSRDS}}, 2},
		{"another provider's kind never matches", cloudv1alpha1.CloudNativeServiceMatch{Kinds: []cloudv1alpha1.CloudNativeServiceKind{cloudv1alpha1.ServiceKindAzureSQL}}, 0},
		{"by tag", cloudv1alpha1.CloudNativeServiceMatch{ServiceMatch: &cloudv1alpha1.EntityMatch{Tags: map[string]string{"app": "orders"}}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Desired(input(selector(nil, tc.match), snap))
			if len(got.CloudNativeServices) != tc.want || len(got.VirtualMachines) != 0 {
				t.Fatalf("%d services (%d VMs); want %d", len(got.CloudNativeServices), len(got.VirtualMachines), tc.want)
			}
			for _, s := range got.CloudNativeServices {
				if s.Spec.Region != "us-east-1" || len(s.Spec.Ports) != 1 || s.Spec.Ports[0].Port != 443 || s.Spec.AccountRef.Namespace != "tenant-a" {
					t.Errorf("service = %+v", s.Spec)
				}
			}
		})
	}
}

func TestDesiredIsDeterministic(t *testing.T) {
	a := fleet("us-east-1", 50)
	b := fleet("us-east-1", 50)
	slices.Reverse(b.VMs)
	sel := selector([]cloudv1alpha1.VirtualMachineMatch{byVPC("vpc-1", "vpc-2")})
	if !equalJSON(t, Desired(input(sel, a)), Desired(input(sel, b))) {
		t.Error("the order of the snapshot changed the result")
	}
}
