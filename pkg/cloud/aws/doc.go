// Package aws is the AWS provider plugin of the cloud controller: it reads an
// account's VPCs, EC2 instances and their network interfaces through the
// EC2 API, its ELBv2 load balancers and RDS DB instances through those
// APIs, all with aws-sdk-go-v2, and returns them as a provider.Snapshot.
//
// # Usage
//
// See ExampleNew (an account's provider, with an assumed role) and
// ExampleProvider_SyncSecurityGroups (against the emulator); package
// awsemu's example polls the emulator.
//
// # Behaviour
//
//   - Credentials are static (access key id, secret, optional session
//     token), or those of an IAM role they assume through STS AssumeRole
//     (stscreds: role ARN, external id, session name), cached and renewed
//     RefreshWindow before they expire. A role that cannot be assumed is an
//     *AssumeRoleError wrapping provider.ErrAuthentication, naming the role
//     and the cloud's code (AccessDenied), never the external id. Calls the
//     cloud refuses as expired (RequestExpired, ExpiredToken) drop the
//     cached credentials, so the next poll fetches new ones.
//   - The region is set per call, so one Provider serves every region of an
//     account; Endpoint, when set, replaces the regional endpoints.
//   - Every describe pages with MaxResults=PageSize (default 1000) until
//     NextToken is empty (ELBv2: at most 400 a page; RDS: 20 to 100).
//     DescribeVpcs, DescribeInstances, DescribeNetworkInterfaces,
//     DescribeLoadBalancers (then DescribeListeners per load balancer and
//     DescribeTags per 20) and DescribeDBInstances run concurrently; the
//     first failure cancels the others (except a refusal of credentials or
//     region, so that the error reported is the same at every poll) and no
//     partial snapshot is returned. 10k instances and no services cost 23
//     calls.
//   - Load balancers get their addresses from the network interfaces ELB
//     creates for them, which DescribeNetworkInterfaces already lists, with
//     the description "ELB app/<name>/<id>" (the end of the ARN): no extra
//     call. Listeners become ports (HTTP, HTTPS, TLS, TCP: TCP; UDP, QUIC:
//     UDP; TCP_UDP: both). DB instances have an endpoint name and port; the
//     name is resolved with Options.Resolver, addresses in the VPC or
//     private becoming private IPs; a name that does not resolve leaves the
//     service without addresses, which is not an error.
//   - The account's IAM policy must allow ec2:Describe*,
//     elasticloadbalancing:DescribeLoadBalancers, DescribeListeners and
//     DescribeTags, and rds:DescribeDBInstances; a refused one fails the
//     poll with the cloud's AccessDenied.
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
package aws
