// Package networkstatus is the member controller's Network status
// controller: it judges the member's Networks as a whole
// (networks.Validate: overlapping flat peers, a flat network of unknown
// ranges, a cloud network no account imports, a second cluster network)
// and writes each one's Valid condition, so that an operator sees at
// `kubectl get networks` what is declared wrongly and how to fix it. It
// reads the Networks and the imported NetworkInterfaces and
// CloudNativeServices (their VPCs), and writes only status.
//
// # Usage
//
// See ExampleReconciler: the controller in a manager of the member, and its
// metrics.
package networkstatus
