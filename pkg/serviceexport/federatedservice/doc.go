// Package federatedservice is what the CLI does with federated Services:
// export and unexport a Service of one member, and list every federated
// Service of a federation with its exporters (Service type, the addresses
// they offer, their conditions), its importers and its conflicts. It works
// with admin credentials of each member, as the CLI has them.
//
// # Usage
//
//	err := federatedservice.Export(ctx, cfg, "demo", "web", federatedservice.ExportOptions{FlatNetwork: false})
//	conds, err := federatedservice.WaitForConditions(ctx, cfg, "demo", "web", 15*time.Second)
//	listing, err := federatedservice.List(ctx, "fed", map[string]*rest.Config{"member-1": cfg1, ...})
package federatedservice
