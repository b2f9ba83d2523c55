// Package aws is the AWS provider plugin of the cloud controller: it reads an
// account's VPCs, EC2 instances and their network interfaces through the
// EC2 API with aws-sdk-go-v2, and returns them as a provider.Snapshot.
//
// # Usage
//
//	p, err := aws.New(aws.Options{
//		AccessKeyID:     keyID,  // from the account's Secret
//		SecretAccessKey: secret,
//		SessionToken:    token,  // optional
//		Endpoint:        "",     // or a VPC endpoint / emulator URL
//	})
//	snap, err := p.Inventory(ctx, "eu-west-1")
//
// # Behaviour
//
//   - Credentials are static (access key id, secret, optional session
//     token). Assuming an IAM role through STS (the account's
//     spec.aws.credentials.assumeRole) is not implemented yet.
//   - The region is set per call, so one Provider serves every region of an
//     account; Endpoint, when set, replaces the regional endpoints.
//   - Every describe pages with MaxResults=PageSize (default 1000) until
//     NextToken is empty. DescribeVpcs, DescribeInstances and
//     DescribeNetworkInterfaces run concurrently; the first failure cancels
//     the others and no partial snapshot is returned. 10k instances cost 21
//     calls.
//   - Terminated instances are filtered out on the server side.
//   - Retries use the SDK's standard retryer (jittered exponential backoff up
//     to MaxBackoff, MaxAttempts attempts), which retries RequestLimitExceeded
//     and the other throttling codes, 5xx answers and broken connections; the
//     client-side retry quota is off, since a poll is retried at the next
//     interval anyway.
//   - Errors wrap provider.ErrAuthentication, ErrRegionUnavailable or
//     ErrThrottled where they are one of those; they never carry secrets, and
//     Options prints without them.
//   - SyncSecurityGroups realises a provider.SecurityGroupSpec: it reads the
//     VPC's groups named with the managed prefix and its interfaces' groups
//     (two describes), plans the difference as a pure function (sgplan.go),
//     and writes only that, authorizing before revoking. Groups without the
//     prefix are never changed; an interface keeps them. Specs over the
//     configured quotas (RulesPerGroup, GroupsPerInterface) are reported in
//     SyncResult.Unrealized, as are calls the cloud refuses for one object.
//     Created groups are tagged ManagedTag. Rule descriptions and
//     prefix-list peers are not managed.
//   - Cloud-native services (ELBv2 load balancers, RDS) are not read yet.
package aws
