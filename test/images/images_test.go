package images

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
)

// What the images are stamped with: fixed, so that the test needs no git.
const (
	version      = "v0.0.0-imagetest"
	revision     = "0123456789abcdef0123456789abcdef01234567"
	epoch        = "1700000000"
	created      = "2023-11-14T22:13:20Z"
	registryName = "registry.example.test/antreaplus"
)

// notInClusters are the programs of cmd/ that have no image: the operator's
// CLI and the VM agent (a package for VMs).
var notInClusters = []string{"antreaplus", "vm-agent"}

var platforms = []string{"linux/amd64", "linux/arm64"}

func TestImages(t *testing.T) {
	requireTools(t)
	root := repoRoot(t)
	tool := filepath.Join(t.TempDir(), "images")
	run(t, root, "go", "build", "-o", tool, "./hack/images")
	first, second := filepath.Join(t.TempDir(), "first"), filepath.Join(t.TempDir(), "second")
	for _, out := range []string{first, second} {
		run(t, root, tool, "-output", out, "-registry", registryName, "-version", version,
			"-revision", revision, "-source-date-epoch", epoch)
	}
	programs := imagesIn(t, first)
	checkEveryProgram(t, root, programs)
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(reg.Close)
	for _, name := range programs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			idx := checkIndex(t, first, name)
			checkPush(t, first, name, strings.TrimPrefix(reg.URL, "http://"))
			if again := inspectIndex(t, second, name); !reflect.DeepEqual(digests(again), digests(idx)) {
				t.Errorf("not reproducible: the second build's images are %v, the first's %v", digests(again), digests(idx))
			}
			if a, b := fileSum(t, filepath.Join(first, name+".tar")), fileSum(t, filepath.Join(second, name+".tar")); a != b {
				t.Errorf("not reproducible: the two builds' %s.tar differ (sha256 %x and %x)", name, a, b)
			}
			for _, p := range platforms {
				checkConfig(t, first, name, p)
			}
			checkEntrypointRuns(t, first, name)
		})
	}
}

// requireTools ends a test that this machine cannot run: under make test
// (ANTREAPLUS_REQUIRE_CLUSTERS=1, which requires every test to run) it
// fails with the reason; elsewhere (make test-unit, a developer's go test)
// it is skipped.
func requireTools(t *testing.T) {
	t.Helper()
	var missing []string
	for _, tool := range []string{"skopeo", "umoci"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := "cannot check the images without " + strings.Join(missing, " and ") +
		" (make test installs them: hack/ensure-packages.sh skopeo umoci)"
	if os.Getenv("ANTREAPLUS_REQUIRE_CLUSTERS") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// repoRoot is the repository's top directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the source of the images test")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// run runs a command in dir and returns its standard output; it fails the
// test with the command's output when the command fails.
func run(t *testing.T, dir, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}

// imagesIn lists the programs whose tarball hack/images wrote into out.
func imagesIn(t *testing.T, out string) []string {
	t.Helper()
	tars, err := filepath.Glob(filepath.Join(out, "*.tar"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range tars {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".tar"))
	}
	return names
}

// checkEveryProgram checks that every program of cmd/ that runs in a
// cluster has an image.
func checkEveryProgram(t *testing.T, root string, programs []string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		if e.IsDir() && !slices.Contains(notInClusters, e.Name()) {
			want = append(want, e.Name())
		}
	}
	slices.Sort(want)
	if !slices.Equal(programs, want) {
		t.Errorf("hack/images built images of %v; the programs of cmd/ that run in clusters are %v", programs, want)
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// isMissing reports whether err says a file does not exist.
func isMissing(err error) bool { return errors.Is(err, os.ErrNotExist) }

func decode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}
