package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

type options struct {
	out, version string
	arches       []string
}

// build is what one run packages: the version and time of the commit.
type build struct {
	repo, version string
	mtime         time.Time
}

func run(ctx context.Context, opts options) error {
	repo, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	b := build{repo: repo}
	if b.version, b.mtime, err = commitVersion(ctx, repo, opts.version); err != nil {
		return err
	}
	if err := os.MkdirAll(opts.out, 0o755); err != nil {
		return err
	}
	for _, arch := range opts.arches {
		if err := b.packageArch(ctx, arch, opts.out); err != nil {
			return fmt.Errorf("linux/%s: %w", arch, err)
		}
	}
	return nil
}

// packageArch builds the agent for arch and writes its .deb and tarball
// into out.
func (b build) packageArch(ctx context.Context, arch, out string) error {
	stage, err := os.MkdirTemp("", "antreaplus-packages-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(stage) }()
	start := time.Now()
	binary := filepath.Join(stage, "antreaplus-vm-agent")
	if err := b.buildAgent(ctx, arch, binary); err != nil {
		return err
	}
	files, err := packageFiles(stage, binary)
	if err != nil {
		return err
	}
	deb, err := b.writeDeb(arch, files, out)
	if err != nil {
		return err
	}
	tgz, err := b.writeTarball(arch, files, out)
	if err != nil {
		return err
	}
	for _, p := range []string{deb, tgz} {
		if err := report(p); err != nil {
			return err
		}
	}
	fmt.Printf("[packages] linux/%s %s in %.1fs\n", arch, b.version, time.Since(start).Seconds())
	return nil
}

// report prints a package's path, size and sha256.
func report(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return err
	}
	fmt.Printf("[packages] %s %.1f MiB sha256:%x\n", path, float64(n)/(1<<20), h.Sum(nil))
	return nil
}
