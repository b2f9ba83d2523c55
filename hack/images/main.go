// Command images builds the container images of the product's programs
// without a container runtime (`make images`): for each program a static
// binary per platform, the OCI image of each platform (the base root
// filesystem of hack/images/oci and the binary), their index, written as an
// OCI layout <output>/<name> and as the tarball <output>/<name>.tar.
//
//	go run ./hack/images [-output _output/images] [-registry R] [-version V]
//
// It runs from the repository's top directory. The version, revision and
// creation time default to git's (git describe --tags --always --dirty,
// the commit, the commit's time or SOURCE_DATE_EPOCH): the same commit
// gives the same digests.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"antreaplus.io/antreaplus/hack/images/oci"
)

// defaultPrograms are the product's programs that run in clusters, one image each.
var defaultPrograms = []string{"federation-manager", "member-controller", "coredns", "policy-controller", "cloud-controller", "console"}

// defaultRegistry is where the images are named to be pushed
// (IMAGE_REGISTRY of the Makefile).
const defaultRegistry = "registry.antreaplus.io/antreaplus"

// defaultSource is the images' org.opencontainers.image.source.
const defaultSource = "https://antreaplus.io/antreaplus"

type options struct {
	output, registry, source, caBundle string
	version, revision, epoch           string
	programs, platforms                string
}

func main() {
	var o options
	fs := flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	fs.StringVar(&o.output, "output", "_output/images", "directory of the layouts and tarballs")
	fs.StringVar(&o.registry, "registry", defaultRegistry, "registry and path the images are named in: <registry>/<program>:<version>")
	fs.StringVar(&o.source, "source", defaultSource, "URL of the source repository (label org.opencontainers.image.source)")
	fs.StringVar(&o.caBundle, "ca-bundle", oci.DefaultCABundle, "CA bundle copied into the images (Debian's ca-certificates)")
	fs.StringVar(&o.version, "version", "", "tag and main.version (default: git describe --tags --always --dirty)")
	fs.StringVar(&o.revision, "revision", "", "commit (default: git rev-parse HEAD)")
	fs.StringVar(&o.epoch, "source-date-epoch", os.Getenv("SOURCE_DATE_EPOCH"), "every timestamp of the images, in Unix seconds (default: $SOURCE_DATE_EPOCH, else the commit's time)")
	fs.StringVar(&o.programs, "programs", strings.Join(defaultPrograms, ","), "comma-separated programs (cmd/<name>)")
	fs.StringVar(&o.platforms, "platforms", "linux/amd64,linux/arm64", "comma-separated platforms")
	_ = fs.Parse(os.Args[1:])
	started := time.Now()
	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "[images] failed: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("[images] done in %s\n", time.Since(started).Round(100*time.Millisecond))
}

func run(o options) error {
	platforms, err := parsePlatforms(o.platforms)
	if err != nil {
		return err
	}
	programs := splitList(o.programs)
	if len(programs) == 0 {
		return fmt.Errorf("no programs given")
	}
	meta, err := metadata(o, gitInfo)
	if err != nil {
		return err
	}
	ca, err := oci.ReadCABundle(o.caBundle)
	if err != nil {
		return err
	}
	fmt.Printf("[images] version %s, revision %s, created %s, registry %s, CA bundle %s (sha256 %.12x)\n",
		meta.Version, meta.Revision, meta.Created.UTC().Format(time.RFC3339), meta.Registry, o.caBundle, sha256.Sum256(ca))
	bins, err := os.MkdirTemp("", "antreaplus-images-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(bins) }()
	if err := buildAll(bins, programs, platforms, meta.Version); err != nil {
		return err
	}
	if err := os.MkdirAll(o.output, 0o755); err != nil {
		return err
	}
	return assembleAll(o.output, bins, programs, platforms, meta, ca)
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
