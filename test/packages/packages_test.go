package packages

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	vmagentpkg "antreaplus.io/antreaplus/deploy/vm-agent"
)

var arches = []string{"amd64", "arm64"}

// TestPackages builds the packages twice and checks them.
func TestPackages(t *testing.T) {
	for _, tool := range []string{"dpkg-deb", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			cannot := t.Skipf
			if os.Getenv("ANTREAPLUS_REQUIRE_CLUSTERS") == "1" {
				cannot = t.Fatalf
			}
			cannot("%s is not installed (Debian's dpkg): cannot check the packages: %v", tool, err)
		}
	}
	first, second := buildPackages(t), buildPackages(t)
	t.Run("two builds give the same bytes", func(t *testing.T) {
		if !slices.Equal(first.sums, second.sums) {
			t.Errorf("the builds differ:\n%s\n%s", strings.Join(first.sums, "\n"), strings.Join(second.sums, "\n"))
		}
	})
	for _, arch := range arches {
		deb, tarball := first.path(t, arch, ".deb"), first.path(t, arch, ".tar.gz")
		t.Run(arch+" deb control", func(t *testing.T) { checkControl(t, deb, arch, first.version) })
		t.Run(arch+" deb contents", func(t *testing.T) { checkContents(t, deb) })
		root := extract(t, deb)
		t.Run(arch+" deb files", func(t *testing.T) { checkFiles(t, deb, root, arch, first.version) })
		t.Run(arch+" tarball", func(t *testing.T) { checkTarball(t, tarball, root, first.version, arch) })
		if arch == "amd64" {
			t.Run("unit", func(t *testing.T) { checkUnit(t, root) })
		}
	}
}

// packages is one build: its directory, version and the sha256 of each file.
type packages struct {
	dir, version string
	sums         []string
}

func (p packages) path(t *testing.T, arch, ext string) string {
	t.Helper()
	name := fmt.Sprintf("%s_%s_%s.deb", vmagentpkg.Name, p.version, arch)
	if ext != ".deb" {
		name = fmt.Sprintf("%s-%s-linux-%s.tar.gz", vmagentpkg.Name, p.version, arch)
	}
	return filepath.Join(p.dir, name)
}

// buildPackages runs hack/packages into a directory of its own.
func buildPackages(t *testing.T) packages {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), "go", "run", "./hack/packages", "--out", dir)
	cmd.Dir = repoRoot(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run ./hack/packages: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	p := packages{dir: dir}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		p.sums = append(p.sums, fmt.Sprintf("%x  %s", sha256.Sum256(data), e.Name()))
		if v, ok := strings.CutPrefix(e.Name(), vmagentpkg.Name+"_"); ok && strings.HasSuffix(v, "_amd64.deb") {
			p.version = strings.TrimSuffix(v, "_amd64.deb")
		}
	}
	if len(p.sums) != 2*len(arches) || p.version == "" {
		t.Fatalf("hack/packages wrote %q, want a .deb and a tarball for each of %v", p.sums, arches)
	}
	return p
}

// repoRoot is the module's directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		t.Fatalf("go env GOMOD: %q, %v", out, err)
	}
	return filepath.Dir(string(bytes.TrimSpace(out)))
}

// run runs a command and returns its standard output; it fails the test
// with its standard error when it fails.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out)
}

// extract unpacks a .deb's files into a directory and returns it.
func extract(t *testing.T, deb string) string {
	t.Helper()
	root := t.TempDir()
	run(t, "dpkg-deb", "--extract", deb, root)
	return root
}
