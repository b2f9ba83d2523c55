// Command clidocs writes the CLI reference, docs/cli.md, from antreaplus's
// commands (make generate; make verify checks it is current).
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"antreaplus.io/antreaplus/cmd/antreaplus/cmd"
)

func main() {
	out := "docs/cli.md"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	var b bytes.Buffer
	if err := cmd.WriteReference(&b, cmd.NewRoot(io.Discard, io.Discard)); err != nil {
		fmt.Fprintln(os.Stderr, "clidocs:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "clidocs:", err)
		os.Exit(1)
	}
}
