package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// binDir is where buildAll puts the binaries of platform p under dir.
func binDir(dir string, p v1.Platform) string {
	return filepath.Join(dir, p.OS+"_"+p.Architecture)
}

// buildCommand is the go build of programs for p into out: static
// (CGO_ENABLED=0), without paths or VCS stamps of the build machine, without
// symbols, main.version set, at the base instruction set of each
// architecture; GOFLAGS cleared, so that the environment adds nothing.
func buildCommand(out string, programs []string, p v1.Platform, version string) (args, env []string) {
	args = []string{"build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -X main.version=" + version, "-o", out + string(filepath.Separator)}
	for _, name := range programs {
		args = append(args, "./cmd/"+name)
	}
	env = []string{"CGO_ENABLED=0", "GOOS=" + p.OS, "GOARCH=" + p.Architecture,
		"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS="}
	return args, env
}

// buildAll builds every program for every platform under dir (binDir).
func buildAll(dir string, programs []string, platforms []v1.Platform, version string) error {
	for _, p := range platforms {
		started := time.Now()
		out := binDir(dir, p)
		args, env := buildCommand(out, programs, p, version)
		cmd := exec.Command("go", args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %d programs for %s (go %v): %w", len(programs), p.String(), args, err)
		}
		fmt.Printf("[images] built %d programs for %s in %s\n", len(programs), p.String(), time.Since(started).Round(100*time.Millisecond))
	}
	return nil
}
