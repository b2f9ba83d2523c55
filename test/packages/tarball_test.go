package packages

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	vmagentpkg "antreaplus.io/antreaplus/deploy/vm-agent"
)

// checkTarball lists the tarball: one directory named after it, holding
// the agent (the .deb's), the unit, the env file and the README with
// their modes, root's, every time the .deb's.
func checkTarball(t *testing.T, tarball, debRoot, version, arch string) {
	t.Helper()
	dir := vmagentpkg.Name + "-" + version + "-linux-" + arch + "/"
	want := map[string]struct {
		mode fs.FileMode
		from string // the file of the .deb it is
	}{
		dir:                         {mode: 0o755},
		dir + "antreaplus-vm-agent": {0o755, vmagentpkg.Binary},
		dir + vmagentpkg.UnitName:   {0o644, vmagentpkg.UnitPath},
		dir + "env":                 {0o644, envPath(t)},
		dir + "README":              {0o644, "/usr/share/doc/" + vmagentpkg.Name + "/README"},
	}
	mtime := modTime(t, filepath.Join(debRoot, vmagentpkg.Binary))
	var names []string
	for h, data := range tarEntries(t, tarball) {
		names = append(names, h.Name)
		w, ok := want[h.Name]
		switch {
		case !ok:
			t.Errorf("%s: unexpected", h.Name)
		case fs.FileMode(h.Mode) != w.mode || h.Uname != "root" || h.Gname != "root" || h.Uid != 0 || h.Gid != 0 || !h.ModTime.Equal(mtime):
			t.Errorf("%s: mode %o, owner %s(%d):%s(%d), time %v; want %o, root, %v", h.Name, h.Mode, h.Uname, h.Uid, h.Gname, h.Gid, h.ModTime, w.mode, mtime)
		case w.from != "":
			if deb, err := os.ReadFile(filepath.Join(debRoot, w.from)); err != nil || !bytes.Equal(data, deb) {
				t.Errorf("%s is not the .deb's %s (%v)", h.Name, w.from, err)
			}
		}
	}
	if !slices.IsSorted(names) || len(names) != len(want) {
		t.Errorf("tarball entries %q: want the %d of the package, sorted", names, len(want))
	}
	if listed := strings.Fields(run(t, "tar", "-tzf", tarball)); !slices.Equal(listed, names) {
		t.Errorf("tar -tzf lists %q, archive/tar %q", listed, names)
	}
}

// tarEntries reads every entry of a .tar.gz with its data.
func tarEntries(t *testing.T, path string) func(func(*tar.Header, []byte) bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	return func(yield func(*tar.Header, []byte) bool) {
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatalf("%s: %s: %v", path, h.Name, err)
			}
			if !yield(h, data) {
				return
			}
		}
	}
}

func modTime(t *testing.T, path string) time.Time {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.ModTime()
}
