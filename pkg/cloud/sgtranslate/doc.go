// Package sgtranslate translates the compiled rules of agentless
// enforcement points (ExternalEntities of VM network interfaces whose
// externalNode is the cloud controller) into the security groups of their
// VPCs: one provider.SecurityGroupSpec per account, region and VPC, with
// one managed group per enforcement point, attached to its interface.
//
// It is a pure function: rules and inventory in, specs and findings out.
// The cloud controller's agentless syncer calls it on every change of its
// view and hands the specs to the account's provider.
//
// # Semantics
//
// Security groups hold allow rules only and deny what none allows, while
// Antrea-native rules Allow, Drop, Reject or Pass in priority order and let
// through what none decides. The translation is exact where the two agree
// and conservative where they do not: it never allows what Antrea would
// deny, and it reports every difference as a Finding, never silently.
// Each direction (ingress, egress) and address family (IPv4, IPv6) is
// translated on its own:
//
//   - Isolated: the rules contain a deny-all, a Drop or Reject rule for every
//     peer of the family and every port. Traffic reaching it is denied,
//     which is what a security group does by default; rules after it are
//     never reached. Before it, Allow rules become security group rules,
//     minus the peers of earlier Drop, Reject and Pass rules that overlap
//     them (exact when the earlier rule covers every port of the Allow;
//     otherwise the overlapping peers are denied on every port of the
//     Allow and the rule is reported Unrealized). Drop rules are exact.
//     Reject rules are enforced as Drop (reported Approximated). A Pass rule
//     is exact when the baseline tier denies what it passes; otherwise what
//     it passes is denied and it is reported Unrealized.
//   - Open: no deny-all. Antrea lets through what no rule decides, so the
//     group allows every flow of the family; Allow rules are realised, and
//     every Drop or Reject rule that an earlier Allow does not already
//     cover is reported Unrealized: a security group cannot deny it.
//
// Ports that a security group cannot express (SCTP, IGMP, source ports)
// are left out of the allowed traffic and reported Unrealized. An
// endpoint without rules gets no managed group (Antrea lets everything
// through, and the interface keeps only its own groups); an endpoint that
// is not a VM network interface is reported and skipped.
//
// # Usage
//
// See ExampleTranslate: one VM's rules as a security group spec per
// location, each for its account's provider's SyncSecurityGroups.
package sgtranslate
