package azure_test

import (
	"context"
	"fmt"

	"antreaplus.io/antreaplus/pkg/cloud/azure"
)

// A provider for a subscription, authenticating as the service principal
// of the account's Secret; one Inventory per region (package azureemu's
// example runs one against the emulator).
func ExampleNew() {
	run := func(ctx context.Context, subscription, tenant, clientID, clientSecret string) error {
		p, err := azure.New(azure.Options{
			SubscriptionID: subscription, TenantID: tenant,
			ClientID: clientID, ClientSecret: clientSecret, // from the account's Secret
			// Endpoint and AuthorityHost: empty for Azure's public cloud, or a
			// sovereign cloud's, or an emulator's.
		})
		if err != nil {
			return err
		}
		snap, err := p.Inventory(ctx, "eastus")
		if err != nil {
			return err
		}
		fmt.Println(len(snap.VPCs), "VNets,", len(snap.VMs), "VMs,", len(snap.Services), "services")
		return nil
	}
	_ = run
}
