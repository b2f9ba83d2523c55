package cmdutil_test

import (
	"context"
	"time"

	"antreaplus.io/antreaplus/internal/cmdutil"
)

// The main of a controller program: the shared flags and the program's
// own, then a run that ends on SIGTERM or SIGINT and exits 1 with the
// error logged.
func ExampleRun() {
	main := func() {
		var c cmdutil.Common
		var resync time.Duration
		fs := cmdutil.NewFlagSet()
		c.AddFlags(fs, "this member cluster")
		fs.DurationVar(&resync, "resync", time.Minute, "how often everything is reconciled again") // the program's own flags
		// The program's main.version, printed by -version.
		cmdutil.Parse(fs, "v0.1.0-dev")
		cmdutil.Run("example-controller", func(ctx context.Context) error {
			cfg, err := c.RESTConfig()
			if err != nil {
				return err
			}
			_ = cfg // a manager with c.ManagerOptions(scheme), its controllers, cmdutil.AddPing(mgr), mgr.Start(ctx)
			<-ctx.Done()
			return nil
		})
	}
	_ = main
}
