// Command antreaplus sets up and shows an AntreaPlus federation, and runs a
// local sandbox of real clusters to try it.
package main

import (
	"os"

	"antreaplus.io/antreaplus/cmd/antreaplus/cmd"
)

func main() {
	if err := cmd.NewRoot(os.Stdout, os.Stderr).Execute(); err != nil {
		os.Exit(1)
	}
}
