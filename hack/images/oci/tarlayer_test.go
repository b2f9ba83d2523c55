package oci

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// header is what a test checks of a tar entry.
type header struct {
	Name     string
	Type     byte
	Mode     int64
	UID, GID int
	Size     int64
	ModTime  time.Time
}

func readTar(t *testing.T, b []byte) []header {
	t.Helper()
	var out []header
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, header{h.Name, h.Typeflag, h.Mode, h.Uid, h.Gid, h.Size, h.ModTime.UTC()})
	}
}

func TestTar(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []Entry
		want    []header
		wantErr bool
	}{{
		name:    "sorted, parents added, every time the epoch",
		entries: []Entry{File("/usr/local/bin/x", 0o755, []byte("bin")), Dir("/tmp", 0o1777), File("/etc/passwd", 0o644, []byte("root"))},
		want: []header{
			{"etc/", tar.TypeDir, 0o755, 0, 0, 0, epoch},
			{"etc/passwd", tar.TypeReg, 0o644, 0, 0, 4, epoch},
			{"tmp/", tar.TypeDir, 0o1777, 0, 0, 0, epoch},
			{"usr/", tar.TypeDir, 0o755, 0, 0, 0, epoch},
			{"usr/local/", tar.TypeDir, 0o755, 0, 0, 0, epoch},
			{"usr/local/bin/", tar.TypeDir, 0o755, 0, 0, 0, epoch},
			{"usr/local/bin/x", tar.TypeReg, 0o755, 0, 0, 3, epoch},
		},
	}, {
		name:    "a given parent keeps its mode and owner",
		entries: []Entry{{Path: "/home/nonroot", Dir: true, Mode: 0o700, UID: 65532, GID: 65532}, File("/home/nonroot/.profile", 0o600, nil)},
		want: []header{
			{"home/", tar.TypeDir, 0o755, 0, 0, 0, epoch},
			{"home/nonroot/", tar.TypeDir, 0o700, 65532, 65532, 0, epoch},
			{"home/nonroot/.profile", tar.TypeReg, 0o600, 0, 0, 0, epoch},
		},
	}, {
		name:    "relative paths (an archive)",
		entries: []Entry{File("index.json", 0o644, []byte("{}")), File("blobs/sha256/ab", 0o644, []byte("x"))},
		want: []header{
			{"blobs/", tar.TypeDir, 0o755, 0, 0, 0, epoch},
			{"blobs/sha256/", tar.TypeDir, 0o755, 0, 0, 0, epoch},
			{"blobs/sha256/ab", tar.TypeReg, 0o644, 0, 0, 1, epoch},
			{"index.json", tar.TypeReg, 0o644, 0, 0, 2, epoch},
		},
	}, {
		name:    "a path given twice",
		entries: []Entry{File("/etc/passwd", 0o644, nil), File("etc/passwd", 0o644, nil)},
		wantErr: true,
	}, {
		name:    "no path",
		entries: []Entry{Dir("/", 0o755)},
		wantErr: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Tar(tc.entries, epoch.Add(900*time.Millisecond))
			if tc.wantErr {
				if err == nil {
					t.Fatal("Tar accepted the entries")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := readTar(t, b); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("entries:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// The order entries are given in does not change a byte.
func TestTarIsDeterministic(t *testing.T) {
	a := []Entry{File("/b", 0o644, []byte("b")), File("/a/c", 0o600, []byte("c")), Dir("/d", 0o755)}
	b := []Entry{a[2], a[0], a[1]}
	ta, err := Tar(a, epoch)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Tar(b, epoch)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ta, tb) {
		t.Error("the same entries in another order gave other bytes")
	}
}
