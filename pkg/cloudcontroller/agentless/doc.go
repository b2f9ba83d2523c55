// Package agentless enforces the rules of agentless VMs with their cloud's
// security groups: the cloud controller's consumer of the policy
// distribution.
//
// A Syncer watches the agentless scope of the policy controller (package
// consumer), places each enforcement point (an ExternalEntity) on its
// network interface through the imported inventory, translates the rules
// into one security group spec per account, region and VPC (package
// sgtranslate, pure), and hands each spec to the account's provider, which
// writes only the difference. It syncs again on every change of the rules
// and every Interval, which corrects drift in the cloud and removes stale
// managed groups (a VPC that held managed groups is synced with an empty
// spec while the controller runs; after a restart, every VPC of the
// inventory is). After every round it reports to the policy controller
// what it could not enforce, which the policy controller writes to each
// policy's status.
//
// # Usage
//
// See ExampleNew.
//
// Until the first view arrives nothing is synced: the groups in the cloud
// stay as they are, as they do while the policy controller is unreachable.
package agentless
