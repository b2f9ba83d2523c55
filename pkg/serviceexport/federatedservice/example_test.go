package federatedservice_test

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/rest"

	"antreaplus.io/antreaplus/pkg/serviceexport/federatedservice"
)

// What 'antreaplus service export' and 'service list' do: export demo/web
// of member-1, wait for the member controller's verdict, then list the
// federation's Services as every member sees them.
func Example() {
	run := func(ctx context.Context, member1, member2 *rest.Config) error {
		if _, err := federatedservice.Export(ctx, member1, "demo", "web", federatedservice.ExportOptions{}); err != nil {
			return err
		}
		conds, err := federatedservice.WaitForConditions(ctx, member1, "demo", "web", 15*time.Second)
		if err != nil {
			return err
		}
		for _, c := range conds {
			fmt.Println(c.Type, c.Status, c.Message)
		}
		listing, err := federatedservice.List(ctx, "acme", map[string]*rest.Config{"member-1": member1, "member-2": member2})
		if err != nil {
			return err
		}
		for _, s := range listing.Services {
			fmt.Println(s.Namespace, s.Name, s.Type, len(s.Exporters), "exporters", len(s.Importers), "importers", s.Conflicts)
		}
		_, err = federatedservice.Unexport(ctx, member1, "demo", "web")
		return err
	}
	_ = run
}
