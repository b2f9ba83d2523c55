// Package azure is the Azure provider plugin of the cloud controller: it
// reads a subscription's VNets, VMs, network interfaces and public IPs
// through Azure Resource Manager with the track-2 SDK (azidentity,
// armcompute, armnetwork), and returns one region of them as a
// provider.Snapshot.
//
// # Usage
//
// See ExampleNew; package azureemu's example polls the emulator.
//
// # Behaviour
//
//   - Authentication is a service principal with a client secret
//     (azidentity.ClientSecretCredential), or any azcore.TokenCredential in
//     Options.Credential (StaticToken for tests).
//   - The region is checked against the subscription's locations, listed
//     once per Provider (and again only for a location not in the list): a
//     missing one is ErrRegionUnavailable.
//   - ARM lists VMs, NICs, VNets and public IPs per subscription; the four
//     ListAll pagers run concurrently, follow nextLink to the end, and the
//     snapshot keeps what is in the region. VMs are listed with
//     statusOnly=true for their power state. Several regions of one
//     subscription therefore each read the whole subscription.
//   - Retries are azcore's: 429 and 5xx retried up to MaxRetries with
//     exponential backoff, honouring Retry-After unless it exceeds
//     MaxRetryDelay (then the call fails at once with ErrThrottled).
//   - Errors wrap provider.ErrAuthentication (Entra ID refusing the client,
//     or ARM 401/403, SubscriptionNotFound), ErrRegionUnavailable or
//     ErrThrottled, and never carry the client secret; Options prints
//     without it.
//   - Internal load balancers (with a private frontend) are read as
//     cloud-native services, with the frontend ports of their
//     load-balancing rules; Azure SQL is not read yet.
//
// # Agentless enforcement
//
// SyncSecurityGroups keeps one VNet's managed application security groups
// (one per group of the spec, its members the interfaces the group is
// attached to) and network security groups (one per interface with
// groups: the groups' allow rules, then a deny of everything else at
// priority 4096) what the spec says. planNSGs (nsgplan.go) is the pure
// plan; readSecurity and nsgRun read and write ARM. Only resources named
// with the prefix and tagged with the VNet (TagVNet) are changed or
// deleted; a changed NSG is one PUT of the whole NSG; an unchanged VNet
// costs three list calls and no write. docs/agentless.md has the details.
package azure
