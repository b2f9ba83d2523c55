package oci

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBaseFiles(t *testing.T) {
	files := map[string]Entry{}
	for _, e := range BaseFiles([]byte("CA")) {
		files[e.Path] = e
	}
	for _, tc := range []struct {
		path     string
		dir      bool
		mode     int64
		uid      int
		contains string
	}{
		{path: "/etc/passwd", mode: 0o644, contains: "nonroot:x:65532:65532:"},
		{path: "/etc/group", mode: 0o644, contains: "nonroot:x:65532:"},
		{path: "/etc/nsswitch.conf", mode: 0o644, contains: "hosts: files dns"},
		{path: "/etc/ssl/certs/ca-certificates.crt", mode: 0o644, contains: "CA"},
		{path: "/tmp", dir: true, mode: 0o1777},
		{path: "/home/nonroot", dir: true, mode: 0o700, uid: NonRoot},
	} {
		e, ok := files[tc.path]
		switch {
		case !ok:
			t.Errorf("%s is missing", tc.path)
		case e.Dir != tc.dir || e.Mode != tc.mode || e.UID != tc.uid:
			t.Errorf("%s: dir %v mode %o uid %d, want dir %v mode %o uid %d", tc.path, e.Dir, e.Mode, e.UID, tc.dir, tc.mode, tc.uid)
		case !strings.Contains(string(e.Data), tc.contains):
			t.Errorf("%s holds %q, want it to contain %q", tc.path, e.Data, tc.contains)
		}
	}
}

func TestReadCABundle(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.crt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(good, []byte("CA"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, wantErr string
	}{
		{path: good},
		{path: filepath.Join(dir, "missing.crt"), wantErr: "install Debian's ca-certificates package"},
		{path: empty, wantErr: "is empty"},
	} {
		_, err := ReadCABundle(tc.path)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.path, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one saying %q", tc.path, err, tc.wantErr)
		}
	}
}
