// Package federatedservice is what the CLI does with federated Services:
// export and unexport a Service of one member, and list every federated
// Service of a federation with its exporters (Service type, the addresses
// they offer, their conditions), its importers and its conflicts. It works
// with admin credentials of each member, as the CLI has them.
//
// # Usage
//
// See Example: export, the member controller's verdict, the listing,
// unexport.
package federatedservice
