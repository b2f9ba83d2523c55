package provider_test

import (
	"context"
	"errors"
	"fmt"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// reason is the account condition's reason for a failed poll: the cloud's
// errors are told apart with errors.Is, whichever provider returned them.
func reason(err error) string {
	switch {
	case errors.Is(err, provider.ErrAuthentication):
		return "AuthenticationFailed"
	case errors.Is(err, provider.ErrRegionUnavailable):
		return "RegionUnavailable"
	case errors.Is(err, provider.ErrThrottled):
		return "Throttled"
	default:
		return "PollFailed"
	}
}

// Polling a region through any provider (aws.New, azure.New) and naming
// what went wrong.
func ExampleProvider() {
	poll := func(ctx context.Context, p provider.Provider) string {
		snap, err := p.Inventory(ctx, "us-east-1")
		if err != nil {
			return reason(err)
		}
		return fmt.Sprint(len(snap.VMs), " VMs")
	}
	_ = poll
	fmt.Println(reason(fmt.Errorf("DescribeInstances: %w: RequestLimitExceeded", provider.ErrThrottled)))
	fmt.Println(reason(fmt.Errorf("ListAll: %w: AADSTS7000215", provider.ErrAuthentication)))
	fmt.Println(reason(errors.New("connection reset by peer")))
	// Output:
	// Throttled
	// AuthenticationFailed
	// PollFailed
}

// Agentless enforcement through any provider: the managed groups of one
// VPC and their attachments made what the spec says; what the cloud cannot
// hold comes back in the result, to report on the policy.
func ExampleProvider_syncSecurityGroups() {
	sync := func(ctx context.Context, p provider.Provider) error {
		res, err := p.SyncSecurityGroups(ctx, "us-east-1", provider.SecurityGroupSpec{
			VPCID: "vpc-0a1b", Prefix: "antreaplus-",
			Groups: []provider.SecurityGroup{{Name: "antreaplus-web", Ingress: []provider.Rule{
				{Protocol: "tcp", FromPort: 443, ToPort: 443, CIDR: "10.0.0.0/8"}}}},
			Attachments: map[string][]string{"eni-0123": {"antreaplus-web"}},
		})
		if err != nil {
			return err
		}
		for _, u := range res.Unrealized {
			fmt.Println(u.Object, u.Reason)
		}
		return nil
	}
	_ = sync
}
