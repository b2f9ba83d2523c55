// Command packages builds the VM agent's packages (`make packages`): for
// linux/amd64 and linux/arm64, a static vm-agent binary and, around it, the
// files of package deploy/vm-agent (the systemd unit, the env file, the
// maintainer scripts, the README), as
//
//	_output/packages/antreaplus-vm-agent_<version>_<arch>.deb
//	_output/packages/antreaplus-vm-agent-<version>-linux-<arch>.tar.gz
//
// The .deb is written by nfpm (github.com/goreleaser/nfpm/v2) as a library,
// the tarball by archive/tar. The version comes from git (see
// packageVersion), every timestamp is the commit's time (SOURCE_DATE_EPOCH
// when set), owners are root and entries sorted: the same commit gives the
// same bytes.
//
//	go run ./hack/packages [--out DIR] [--arch amd64,arm64] [--version V]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

func main() {
	var opts options
	flag.StringVar(&opts.out, "out", "_output/packages", "directory the packages are written to")
	arches := flag.String("arch", "amd64,arm64", "comma-separated linux architectures (GOARCH)")
	flag.StringVar(&opts.version, "version", "", "package version (default: from git describe)")
	flag.Parse()
	opts.arches = strings.Split(*arches, ",")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, opts); err != nil {
		fmt.Fprintf(os.Stderr, "[packages] %v\n", err)
		os.Exit(1)
	}
}
