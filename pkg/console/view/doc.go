// Package view computes the console's views from what the console holds of
// each member (Member): the federation as a picture (members by region and
// zone, supervisors, who leads whom, reachability, recent changes of
// leader), the federated Services (exporters, importers, conflicts, DNS
// names, ExternalDNS records), the policies (every member's, federated
// ones with their remote sources and refused peers, realisation per
// enforcement point) and the clouds (accounts, networks, VMs and services
// with their enforcement, tenants and their owners).
//
// It is pure: functions from the members' objects to the views' JSON
// models, tested by tables; the console's server only reads (package
// source), calls these, and serves. It computes what the CLI's commands
// compute, through the same functions (membership.Merge for `federation
// status`, federatedservice.Build for `service list`, policyview for
// `policy list` and `policy status`), so the console and the CLI never
// disagree.
//
// A kind a member would not let the user read is never shown as empty:
// every view lists, per member, the kinds it could not read and why
// (Member.Kinds), and a view whose kinds a member does not let be read
// says so for that member.
package view
