// Package awsemu is a local emulator of the Amazon EC2 Query API, for
// development and tests only. It is not AWS: it holds a small in-memory model
// of VPCs, instances, network interfaces and security groups, speaks enough
// of the real wire protocol (form-encoded POSTs with Action and
// Version=2016-11-15, SigV4-signed, XML answers in the EC2 namespace) for the
// unmodified aws-sdk-go-v2 EC2 client, and can inject the faults a cloud
// controller must survive. Never point it at real credentials you care about,
// and never use it as a stand-in for AWS in production.
//
// # Usage
//
//	emu := awsemu.New(awsemu.Options{
//		Credentials: []awsemu.Credential{{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}},
//	})
//	srv := httptest.NewServer(emu) // or http.ListenAndServe(addr, emu)
//	vpc, _ := emu.AddVPC(awsemu.VPCSpec{Region: "us-east-1", Name: "prod"})
//	vm, _ := emu.AddInstance(awsemu.InstanceSpec{Region: "us-east-1", VPCID: vpc, Name: "web-1"})
//	// point the SDK at srv.URL: ec2.Options{BaseEndpoint: &srv.URL, ...}
//	emu.Throttle("DescribeInstances", 3) // the next 3 calls get RequestLimitExceeded
//	n := emu.Calls("DescribeInstances")
//
// # Actions
//
// DescribeRegions, DescribeVpcs, DescribeInstances, DescribeNetworkInterfaces
// and DescribeSecurityGroups (id lists, Filter.N with * and ? wildcards and
// tag:<key>, tag-key, tag-value, MaxResults within EC2's bounds, NextToken
// cursors that stay stable while resources come and go);
// CreateSecurityGroup, DeleteSecurityGroup, AuthorizeSecurityGroupIngress/
// Egress, RevokeSecurityGroupIngress/Egress, ModifyNetworkInterfaceAttribute
// (security groups), CreateTags and DeleteTags, with EC2's error codes
// (InvalidPermission.Duplicate, DependencyViolation, quota errors, ...).
// Unknown actions fail with InvalidAction.
//
// # Faults
//
//   - Authentication: every call must carry a valid SigV4 signature from one
//     of Options.Credentials, else AuthFailure (HTTP 401); FailAuth fails the
//     next calls as if the credentials were revoked.
//   - Regions: a call signed for a region not in Options.Regions fails with
//     AuthFailure "Credential should be scoped to a valid region".
//   - Throttling: Throttle fails the next N calls with RequestLimitExceeded
//     (HTTP 503); InjectFault injects any code and status.
//   - Eventual consistency: HideNewInstances(k) keeps new instances out of
//     the next k DescribeInstances calls of their region.
//   - Latency: SetLatency delays every call.
//   - Mid-poll changes: OnCall runs a function at the start of every call,
//     e.g. to terminate an instance between two pages.
//
// Calls, CallCounts and TotalCalls count the calls received per action,
// failed ones included, so tests and benchmarks can report API cost.
package awsemu
