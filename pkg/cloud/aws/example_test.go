package aws_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

// A provider for an account whose Secret holds an access key that may
// only assume the role the account names; it reads every region of the
// account, one Inventory per region.
func ExampleNew() {
	run := func(ctx context.Context, keyID, secret string) error {
		p, err := aws.New(aws.Options{
			AccessKeyID:     keyID, // from the account's Secret
			SecretAccessKey: secret,
			AssumeRole:      &aws.AssumeRole{RoleARN: "arn:aws:iam::123456789012:role/antreaplus", ExternalID: "acme"},
		})
		if err != nil {
			return err
		}
		snap, err := p.Inventory(ctx, "eu-west-1")
		if err != nil {
			return err
		}
		fmt.Println(len(snap.VPCs), "VPCs,", len(snap.VMs), "VMs,", len(snap.Services), "services")
		return nil
	}
	_ = run
}

// Agentless enforcement against the emulator: a managed group allowing
// HTTPS from 10.0.0.0/8, attached to an instance's interface. The second
// sync of the same spec writes nothing.
func ExampleProvider_SyncSecurityGroups() {
	emu := awsemu.New(awsemu.Options{Credentials: []awsemu.Credential{{AccessKeyID: keyID, SecretAccessKey: secret}}})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	vpc, _ := emu.AddVPC(awsemu.VPCSpec{Region: region, Name: "prod", CIDR: "10.10.0.0/16"})
	vm, err := emu.AddInstance(awsemu.InstanceSpec{Region: region, VPCID: vpc, Name: "web-1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := aws.New(aws.Options{AccessKeyID: keyID, SecretAccessKey: secret, Endpoint: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	spec := provider.SecurityGroupSpec{
		VPCID: vpc, Prefix: "antreaplus-",
		Groups: []provider.SecurityGroup{{Name: "antreaplus-web", Ingress: []provider.Rule{
			{Protocol: "tcp", FromPort: 443, ToPort: 443, CIDR: "10.0.0.0/8"}}}},
		Attachments: map[string][]string{vm.NICs[0]: {"antreaplus-web"}},
	}
	for range 2 {
		res, err := p.SyncSecurityGroups(context.Background(), region, spec)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("writes:", res.Writes, "created:", res.Created, "rules added:", res.RulesAdded,
			"interfaces changed:", res.InterfacesChanged, "unrealized:", len(res.Unrealized))
	}
	// Output:
	// writes: 4 created: [antreaplus-web] rules added: 1 interfaces changed: 1 unrealized: 0
	// writes: 0 created: [] rules added: 0 interfaces changed: 0 unrealized: 0
}
