// Package benchbuild builds the repository's programs for the benchmarks:
// plain builds (no race detector), as an operator runs them.
package benchbuild

import (
	"fmt"
	"os/exec"
	"path/filepath"

	"antreaplus.io/antreaplus/pkg/toolchain"
)

// Program builds ./cmd/<name> of this repository into dir and returns the
// program's path.
func Program(dir, name string) (string, error) {
	repo, err := toolchain.FindRepo()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, "./cmd/"+name)
	cmd.Dir = repo
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building cmd/%s: %w\n%s", name, err, msg)
	}
	return out, nil
}
