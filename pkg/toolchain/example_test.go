package toolchain_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"antreaplus.io/antreaplus/pkg/toolchain"
)

// The sandbox's tools, built first when they are missing (that takes
// minutes, with progress on stderr), then run from the cache.
func ExampleEnsure() {
	run := func(ctx context.Context) error {
		tc, err := toolchain.Ensure(ctx, os.Stderr, toolchain.SandboxTools()...)
		if err != nil {
			return err
		}
		out, err := exec.CommandContext(ctx, tc.Path("kwokctl"), "--version").Output()
		fmt.Print(string(out))
		return err
	}
	_ = run
}
