package membercontroller_test

import (
	"context"

	"antreaplus.io/antreaplus/internal/restconfig"
	"antreaplus.io/antreaplus/pkg/membercontroller"
)

// What cmd/member-controller runs: the member's controllers against the
// cluster of a kubeconfig context, until ctx ends, with a fresh manager
// after every outage of its API server.
func ExampleRun() {
	run := func(ctx context.Context) error {
		cfg, err := restconfig.Load("/path/to/kubeconfig", "member-1")
		if err != nil {
			return err
		}
		return membercontroller.Run(ctx, cfg, membercontroller.Options{LeaderElect: true, MetricsAddr: ":8080"})
	}
	_ = run
}
