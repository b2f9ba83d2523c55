package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// buildAgent builds cmd/vm-agent for linux/arch into out: static
// (CGO_ENABLED=0: it programs nftables through netlink in Go), without
// paths of this machine or VCS stamps, stripped, stamped with the version.
// The caller's GOFLAGS and CPU-level variables are overridden, so that a
// build's bytes depend on the commit and the Go version only.
func (b build) buildAgent(ctx context.Context, arch, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -X main.version="+b.version, "-o", out, "./cmd/vm-agent")
	cmd.Dir = b.repo
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0", "GOFLAGS=",
		"GOAMD64=v1", "GOARM64=v8.0", "GOEXPERIMENT=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/vm-agent: %w\n%s", err, stderr.Bytes())
	}
	return nil
}

// moduleRoot is the directory of the main module (the repository).
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run hack/packages inside the AntreaPlus module")
	}
	return filepath.Dir(gomod), nil
}
