// Package awsemu is a local emulator of the Amazon EC2, Elastic Load
// Balancing v2, RDS and STS Query APIs, for development and tests only. It
// is not AWS: it holds a small in-memory model of VPCs, instances, network
// interfaces, security groups, load balancers, DB instances and IAM roles,
// speaks enough of the real wire protocols (form-encoded POSTs with Action
// and Version, SigV4-signed; EC2's XML answers, and the AWS Query protocol's
// <Action>Result and ErrorResponse for the others) for the unmodified
// aws-sdk-go-v2 clients, all on one endpoint (the service is the one the
// request is signed for), and can inject the faults a cloud controller must
// survive. Never point it at real credentials you care about,
// and never use it as a stand-in for AWS in production.
//
// # Usage
//
// See Example: an account read by the real provider over HTTP, then
// throttled.
//
// # Actions
//
// DescribeRegions, DescribeVpcs, DescribeInstances, DescribeNetworkInterfaces
// and DescribeSecurityGroups (id lists, Filter.N with * and ? wildcards and
// tag:<key>, tag-key, tag-value, MaxResults within EC2's bounds, NextToken
// cursors that stay stable while resources come and go);
// CreateSecurityGroup, DeleteSecurityGroup, AuthorizeSecurityGroupIngress/
// Egress, RevokeSecurityGroupIngress/Egress, ModifyNetworkInterfaceAttribute
// (security groups), CreateTags and DeleteTags, TerminateInstances,
// AssignPrivateIpAddresses and UnassignPrivateIpAddresses (secondary
// private addresses of an interface), with EC2's error codes
// (InvalidPermission.Duplicate, DependencyViolation, quota errors, ...).
// Unknown actions fail with InvalidAction.
//
// ELBv2 (2015-12-01): DescribeLoadBalancers (LoadBalancerArns, Names,
// PageSize 1..400, Marker), DescribeListeners, DescribeTags (at most 20
// ARNs), SetSecurityGroups (refused for a Network Load Balancer created
// without security groups, InvalidConfigurationRequest, and for an
// Application Load Balancer left with none). A load balancer added with
// AddLoadBalancer gets one requester-managed interface per zone, described
// "ELB app/<name>/<id>" as on AWS, carrying its groups;
// ReplaceLoadBalancerInterfaces moves it to new addresses.
//
// RDS (2014-10-31): DescribeDBInstances (DBInstanceIdentifier, MaxRecords
// 20..100, Marker), DescribeDBClusters (the same), ModifyDBInstance and
// ModifyDBCluster (VpcSecurityGroupIds; a cluster member's are its
// cluster's, InvalidParameterCombination). AddDBInstance gives each
// instance an endpoint name, which LookupHost resolves, and an interface
// holding its address; FailOverDBInstance moves it; AddDBCluster adds an
// Aurora cluster and its member instances. A service's groups are its
// requester-managed interfaces' groups, which ModifyNetworkInterfaceAttribute
// refuses to change (OperationNotPermitted); ServiceGroups reads them.
//
// STS (2011-06-15): AssumeRole of the Options.Roles (or AddRole), checking
// that the caller is a trusted long-term key and the external id matches,
// else AccessDenied; it issues temporary credentials (ASIA...) that every
// service accepts with their session token until they expire, then refuses
// with RequestExpired (EC2) or ExpiredToken. Options.SessionLifetime
// shortens them for tests; ExpireSessions expires them all at once.
//
// # Faults
//
//   - Authentication: every call must carry a valid SigV4 signature from one
//     of Options.Credentials or a live temporary credential, else AuthFailure
//     (HTTP 401; InvalidClientTokenId or SignatureDoesNotMatch, HTTP 403, on
//     the other services); FailAuth fails the next calls as if the
//     credentials were revoked.
//   - Regions: a call signed for a region not in Options.Regions fails with
//     AuthFailure "Credential should be scoped to a valid region".
//   - A proxy's answer: a Fault with Body answers that text (text/html) with
//     its Status, which the SDK cannot read as an error document.
//   - Throttling: Throttle fails the next N calls with RequestLimitExceeded
//     (HTTP 503; Throttling, HTTP 400, on the other services); InjectFault
//     injects any code and status.
//   - Eventual consistency: HideNewInstances(k) keeps new instances out of
//     the next k DescribeInstances calls of their region.
//   - Latency: SetLatency delays every call.
//   - Mid-poll changes: OnCall runs a function at the start of every call,
//     e.g. to terminate an instance between two pages.
//
// Calls, CallCounts and TotalCalls count the calls received per action,
// failed ones included, so tests and benchmarks can report API cost (ELBv2's
// DescribeTags counts as DescribeTags, the name EC2's would have).
//
// # Poll stats
//
// PollStats counts the authenticated calls per account (access key id, or
// AssumedRoleAccount for an assumed role's credentials) and per replica of
// the cloud controller (the User-Agent token antreaplus-replica/<replica>),
// groups the describes into poll windows per region and records every call
// of one replica made while another's window for the same account is open
// (package pollstats). The admin API serves them on the same endpoint:
// GET /admin/pollstats (JSON, pollstats.Fetch) and POST
// /admin/pollstats/reset (pollstats.Reset, ResetPollStats).
package awsemu
