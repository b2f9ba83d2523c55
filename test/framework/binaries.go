package framework

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"

	"antreaplus.io/antreaplus/pkg/sandbox"
)

// BinDirEnv names a directory holding the project's programs already built
// (`make test` builds every cmd/ once for all test packages; linking them
// again in each package cost minutes of CPU).
const BinDirEnv = "ANTREAPLUS_BIN_DIR"

var (
	binMu    sync.Mutex
	builtDir string
)

// RepoRoot is the repository the tests run from.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Binary returns the path of the program <name> (cmd/<name>, or a
// development tool under test/infrastructure/cmd): the one in
// $ANTREAPLUS_BIN_DIR when that holds it, else one built from the
// repository once per test process.
func Binary(name string) (string, error) {
	if dir := os.Getenv(BinDirEnv); dir != "" {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, nil
		}
	}
	binMu.Lock()
	defer binMu.Unlock()
	if builtDir == "" {
		d, err := os.MkdirTemp("", "antreaplus-test-bin-")
		if err != nil {
			return "", err
		}
		builtDir = d
	}
	p := filepath.Join(builtDir, name)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	pkg := sandbox.SourcePackage(name)
	cmd := exec.Command("go", "build", "-o", p, pkg)
	cmd.Dir = RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %w\n%s", pkg, err, out)
	}
	return p, nil
}

// removeBuilt deletes what Binary built in this process.
func removeBuilt() {
	binMu.Lock()
	defer binMu.Unlock()
	if builtDir != "" {
		_ = os.RemoveAll(builtDir)
		builtDir = ""
	}
}
