// Package fedpolicy tests federated NetworkPolicies end to end, as an
// operator meets them: one sandbox of three real clusters, two of them
// supervisors running federation managers, a member controller in every
// member, the local cloud (AWS imported into member-1, Azure into member-2)
// and the agented VMs of both clouds played as network namespaces on one
// bridge, each with its VM agent programming nftables. Real TCP connections
// between the VMs' namespaces decide what a policy allows and drops; the
// policies' status, `antreaplus policy status`, the RemoteEntities, the
// derived Antrea objects, the agents' rules and the emulator's security
// groups (read through the EC2 API) say why. The sandbox runs with
// --tenancy: TestSandboxTenants checks that member-1's tenants are claimed
// by the right controller instances (the shared one, of two replicas, also
// manages cloud-demo).
//
// It needs root (network namespaces, nftables) and the ip and nft programs:
// without them it fails, saying so, when ANTREAPLUS_REQUIRE_CLUSTERS=1 (as
// under `make test`), and is skipped otherwise.
//
// # Running
//
//	sudo ANTREAPLUS_REQUIRE_CLUSTERS=1 go test ./test/e2e/fedpolicy/ -v
//	sudo go test ./test/e2e/fedpolicy/ -run 'TestFederatedPolicies/policies/ingress' -v
package fedpolicy
