package toolchain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// DirEnv overrides the directory that holds the tool binaries.
const DirEnv = "ANTREAPLUS_TOOLS_DIR"

// RepoEnv names the repository whose hack/tools.sh builds missing tools.
const RepoEnv = "ANTREAPLUS_REPO"

// SandboxTools lists the tools a sandbox cluster needs.
func SandboxTools() []string {
	return []string{"kwokctl", "kwok", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd", "kubectl"}
}

// ExternalDNSTools lists the tools that publish names the way a deployment
// does (docs/external-dns.md): ExternalDNS, whose coredns provider writes
// SkyDNS entries into an etcd, and that etcd (the sandbox's own binary).
func ExternalDNSTools() []string {
	return []string{"external-dns", "etcd"}
}

// Toolchain is a directory of tool binaries.
type Toolchain struct {
	Dir string
}

// Path returns the path of the named tool.
func (t Toolchain) Path(name string) string { return filepath.Join(t.Dir, name) }

// Missing returns the named tools that are not executable files in Dir.
func (t Toolchain) Missing(names ...string) []string {
	var missing []string
	for _, n := range names {
		info, err := os.Stat(t.Path(n))
		if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			missing = append(missing, n)
		}
	}
	return missing
}

// DefaultDir is where hack/tools.sh links the cached binaries.
func DefaultDir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = filepath.Join(os.TempDir(), "antreaplus-cache")
	}
	return filepath.Join(cache, "antreaplus", "tools", "bin")
}

// Ensure returns the toolchain holding every named tool, building the
// missing ones with the repository's hack/tools.sh (progress goes to
// progress). It fails with advice when they are missing and no repository
// can be found to build them.
func Ensure(ctx context.Context, progress io.Writer, names ...string) (Toolchain, error) {
	t := Toolchain{Dir: DefaultDir()}
	missing := t.Missing(names...)
	if len(missing) == 0 {
		return t, nil
	}
	script, err := findBuildScript()
	if err != nil {
		return t, fmt.Errorf("tools %s are not built yet and %w; run 'make tools' in the AntreaPlus repository, or set %s to it",
			strings.Join(missing, ", "), err, RepoEnv)
	}
	fmt.Fprintf(progress, "Tools %s are not built yet: building them from source with %s (the first build takes several minutes) ...\n",
		strings.Join(missing, ", "), script)
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Stdout, cmd.Stderr = progress, progress
	if err := cmd.Run(); err != nil {
		return t, fmt.Errorf("building tools with %s: %w", script, err)
	}
	if still := t.Missing(names...); len(still) > 0 {
		return t, fmt.Errorf("%s ran but %s are still missing from %s", script, strings.Join(still, ", "), t.Dir)
	}
	return t, nil
}

// FindRepo returns the root of the AntreaPlus repository, found as for the build script.
func FindRepo() (string, error) {
	script, err := findBuildScript()
	if err != nil {
		return "", err
	}
	return filepath.Dir(filepath.Dir(script)), nil
}

// findBuildScript looks for hack/tools.sh in $ANTREAPLUS_REPO, then upwards
// from the working directory and from the running executable.
func findBuildScript() (string, error) {
	var starts []string
	if r := os.Getenv(RepoEnv); r != "" {
		starts = append(starts, r)
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, dir := range starts {
		for d := dir; ; d = filepath.Dir(d) {
			candidate := filepath.Join(d, "hack", "tools.sh")
			if _, err := os.Stat(candidate); err == nil {
				return candidate, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", errors.New("no AntreaPlus repository (hack/tools.sh) was found to build them")
}
