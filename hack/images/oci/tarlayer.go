package oci

import (
	"archive/tar"
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// Entry is one file or directory of a layer (or of an archive).
type Entry struct {
	// Path is absolute in the image ("/etc/passwd") or relative in an
	// archive ("blobs/sha256/..."); it is written without the leading
	// slash, as image tools expect.
	Path string
	// Dir makes the entry a directory; Data is then empty.
	Dir bool
	// Mode holds the permission bits (and sticky, setuid, setgid).
	Mode int64
	// UID and GID own the entry (0: root).
	UID, GID int
	Data     []byte
}

// File is a regular file owned by root.
func File(p string, mode int64, data []byte) Entry {
	return Entry{Path: p, Mode: mode, Data: data}
}

// Dir is a directory owned by root.
func Dir(p string, mode int64) Entry {
	return Entry{Path: p, Dir: true, Mode: mode}
}

// Tar writes entries as a tar stream with every timestamp at mtime: sorted
// by path, with the parent directories they lack added (0755, root), so the
// same entries give the same bytes whatever their order.
func Tar(entries []Entry, mtime time.Time) ([]byte, error) {
	all, err := withParents(entries)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range all {
		if err := writeEntry(tw, e, mtime.UTC().Truncate(time.Second)); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("closing the tar stream: %w", err)
	}
	return buf.Bytes(), nil
}

// withParents returns entries cleaned, sorted by path, with the missing
// parent directories added; a path given twice is an error.
func withParents(entries []Entry) ([]Entry, error) {
	byPath := map[string]Entry{}
	for _, e := range entries {
		p := strings.TrimPrefix(path.Clean("/"+e.Path), "/")
		if p == "" {
			return nil, fmt.Errorf("tar entry %q: no path", e.Path)
		}
		if _, dup := byPath[p]; dup {
			return nil, fmt.Errorf("tar entry %q given twice", p)
		}
		e.Path = p
		byPath[p] = e
	}
	for p := range byPath {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, ok := byPath[d]; !ok {
				byPath[d] = Dir(d, 0o755)
			}
		}
	}
	all := make([]Entry, 0, len(byPath))
	for _, e := range byPath {
		all = append(all, e)
	}
	slices.SortFunc(all, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return all, nil
}

func writeEntry(tw *tar.Writer, e Entry, mtime time.Time) error {
	h := &tar.Header{
		Name:    e.Path,
		Mode:    e.Mode,
		Uid:     e.UID,
		Gid:     e.GID,
		ModTime: mtime,
		Format:  tar.FormatPAX,
	}
	if e.Dir {
		h.Typeflag = tar.TypeDir
		h.Name += "/"
	} else {
		h.Typeflag = tar.TypeReg
		h.Size = int64(len(e.Data))
	}
	if err := tw.WriteHeader(h); err != nil {
		return fmt.Errorf("writing the tar header of %s: %w", e.Path, err)
	}
	if _, err := tw.Write(e.Data); err != nil {
		return fmt.Errorf("writing %s into the tar stream: %w", e.Path, err)
	}
	return nil
}
