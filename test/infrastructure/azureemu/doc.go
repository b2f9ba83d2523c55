// Package azureemu is a local emulator of Azure Resource Manager and of the
// Microsoft Entra token endpoint, for development and tests only. It is not
// Azure: it holds a small in-memory subscription of VNets, VMs, network
// interfaces, public IPs, internal load balancers, network and application
// security groups, and speaks enough of the ARM REST API (JSON,
// value/nextLink paging, long-running operations, ARM error bodies) and of
// OAuth 2.0 client credentials for the unmodified track-2 Azure SDK
// (azidentity, armcompute, armnetwork) to list them and to write security
// groups. Never use it as a stand-in for
// Azure in production.
//
// # Usage
//
// See Example: a subscription read by the real provider over HTTPS, then
// throttled. The SDK reaches the emulator when its cloud.Configuration
// names srv.URL as the authority host and as Resource Manager's endpoint
// and audience, and trusts it with srv.Client() as the transport: the
// provider's azure.Options Endpoint, AuthorityHost and Transport do that.
//
// # Operations
//
// GET /subscriptions/{id}/locations and the subscription-wide ListAll of
// Microsoft.Compute/virtualMachines (with the power state in
// instanceView), Microsoft.Network/networkInterfaces, virtualNetworks and
// publicIPAddresses, loadBalancers, networkSecurityGroups and
// applicationSecurityGroups, paged by PageSize with a nextLink whose
// $skiptoken is a cursor; GET /{tenant}/v2.0/.well-known/openid-configuration
// and POST /{tenant}/oauth2/v2.0/token (client credentials).
//
// Single resources: GET of NSGs, ASGs, network interfaces and VNets; PUT
// of NSGs and ASGs (create or replace) and of existing interfaces (only
// their NSG and ASGs change); DELETE of NSGs and ASGs. A PUT answers 201
// or 200 with provisioningState Updating and an Azure-AsyncOperation URL,
// a DELETE 202 with one (204 when absent); the operation is done at once,
// so the SDK's first poll (Operations.Get) reads Succeeded and, for a PUT,
// its final GET the resource. Azure's checks are applied: rule priorities
// 100-4096 unique per direction, Allow/Deny, references to existing ASGs
// and NSGs, MaxRulesPerNSG and MaxASGsPerIPConfig quotas (400
// SecurityRulesLimitReached, ApplicationSecurityGroupLimitReached, codes
// of the emulator), no deletion of an NSG or ASG in use. Operation names
// are "<Type>.CreateOrUpdate", ".Get", ".Delete".
//
// # Faults
//
//   - Authentication: ARM calls need a bearer token the token endpoint
//     issued (or one of Options.StaticTokens), else 401
//     InvalidAuthenticationToken; a wrong client secret gets AADSTS7000215,
//     an unknown client AADSTS700016; RevokeTokens invalidates issued tokens.
//   - Unknown subscription: 404 SubscriptionNotFound.
//   - Throttling: Throttle answers 429 TooManyRequests with Retry-After;
//     InjectFault injects any status and code.
//   - Eventual consistency: HideNewVMs(k) keeps new VMs (and their NICs) out
//     of the next k VM list calls.
//   - Latency and mid-list changes: SetLatency, OnCall.
//
// Calls, CallCounts and TotalCalls count calls per operation
// ("VirtualMachines.ListAll", "Token", ...), failed ones included.
//
// # Poll stats
//
// PollStats counts the authenticated calls per account (the client id a
// token was issued to, or StaticTokenAccount) and per replica of the cloud
// controller (the User-Agent token antreaplus-replica/<replica>), groups
// the list calls into poll windows per subscription and records every call
// of one replica made while another's window for the same account is open
// (package pollstats). The admin API serves them on the same endpoint:
// GET /admin/pollstats (JSON, pollstats.Fetch) and POST
// /admin/pollstats/reset (pollstats.Reset, ResetPollStats).
package azureemu
