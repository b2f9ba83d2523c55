// Package provider defines the one interface a cloud provider plugin
// implements for the cloud controller, and its plain Go types: a Snapshot
// of one region's VPCs, VMs (with their network interfaces) and cloud-native
// services, which Inventory reads; and a SecurityGroupSpec, the managed
// security groups of one VPC for agentless enforcement, which
// SyncSecurityGroups makes the cloud hold.
//
// The types here are deliberately not the Kubernetes API types: a plugin
// knows its cloud, not the cluster. Package inventory maps snapshots to the
// VirtualMachine, NetworkInterface and CloudNativeService objects of
// api/cloud/v1alpha1.
//
// There is no registry. Each provider lives in its own package (aws, azure)
// with its own Options and constructor, and the cloud controller wires the
// one an account names explicitly.
//
// # Usage
//
//	var p provider.Provider = aws.New(aws.Options{...}) // or azure.New(...)
//	snap, err := p.Inventory(ctx, "us-east-1")
//	switch {
//	case errors.Is(err, provider.ErrAuthentication): // AuthenticationFailed
//	case errors.Is(err, provider.ErrRegionUnavailable): // RegionUnavailable
//	case errors.Is(err, provider.ErrThrottled): // Throttled
//	case err != nil: // PollFailed
//	}
//
//	res, err := p.SyncSecurityGroups(ctx, "us-east-1", provider.SecurityGroupSpec{
//		VPCID: "vpc-0a1b", Prefix: "antreaplus-",
//		Groups: []provider.SecurityGroup{{Name: "antreaplus-web", Ingress: []provider.Rule{
//			{Protocol: "tcp", FromPort: 443, ToPort: 443, CIDR: "10.0.0.0/8"}}}},
//		Attachments: map[string][]string{"eni-0123": {"antreaplus-web"}},
//	})
//	// res.Unrealized: what the cloud cannot hold, to report on the policy.
//
// # Errors
//
// Plugins wrap the cloud's error with one of ErrAuthentication,
// ErrRegionUnavailable or ErrThrottled when it is one of those, so the
// controller can set the account's condition reason; the cloud's own message
// stays in the error text. Plugins never put credentials in errors.
package provider
