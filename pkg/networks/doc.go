// Package networks decides which addresses of a remote entity an
// enforcement point really sees. It does no I/O: the member controller
// reads the member's Networks and the RemoteEntities, and the federated
// policy translation asks a View for the addresses of each peer.
//
// # Rules
//
// Every address belongs to a network (a routing domain). A View is what one
// enforcement point sees: its own network and the networks declared flat
// to it (private addresses arrive unchanged, both ways); every other
// network reaches it only through NAT or public addresses.
//
//   - As a destination (an egress rule's peer), an entity is reached at
//     its private addresses when its network is visible (the point's own
//     network or flat to it), and at its public addresses from anywhere.
//   - As a source (an ingress rule's peer), an entity arrives with its
//     private addresses when its network is visible, else with its egress
//     addresses (its NAT gateway's or its own public IP).
//   - Never the wrong host: a private address is used only when it falls
//     in no visible network other than its own (two flat networks that
//     overlap are ambiguous: nothing in the overlap is used); a public or
//     egress address is used only when it falls in no range of this
//     member's networks nor of any visible network.
//   - An entity its member did not classify (no addresses, only endpoints)
//     has its endpoints outside the private and special-purpose ranges
//     used as public (and egress) addresses, the rest not at all.
//   - Flat is not transitive, and nothing is flat unless declared.
//
// When nothing is usable the Verdict says why and what would fix it; an
// egress address shared by several entities (a NAT gateway) is reported
// with who shares it, as it admits them all.
//
// # Usage
//
// See ExampleView: a remote VM behind a NAT gateway, seen from a local
// network that overlaps its own.
package networks
