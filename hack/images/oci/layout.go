package oci

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// WriteLayout writes idx as the OCI image layout dir (replacing what was
// there), named in index.json by m's version (RefName: skopeo's
// oci:<dir>:<version>) and full reference (ContainerdName).
func WriteLayout(dir string, idx v1.ImageIndex, m Metadata) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("removing the previous layout %s: %w", dir, err)
	}
	top := mutate.AppendManifests(empty.Index, mutate.IndexAddendum{
		Add: idx,
		Descriptor: v1.Descriptor{Annotations: map[string]string{
			RefName:        m.Version,
			ContainerdName: m.Reference(),
		}},
	})
	if _, err := layout.Write(dir, top); err != nil {
		return fmt.Errorf("writing the OCI layout %s: %w", dir, err)
	}
	return readOnlyFiles(dir)
}

// readOnlyFiles makes the files under dir 0644: go-containerregistry writes
// them executable (os.ModePerm).
func readOnlyFiles(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chmod(p, 0o644)
	})
}

// Archive writes the directory dir as the tar file out (Tar's rules:
// sorted, every timestamp at mtime, root-owned, directories 0755 and files
// 0644), so that an OCI layout travels as one file (skopeo's
// oci-archive:<file>).
func Archive(dir, out string, mtime time.Time) error {
	var entries []Entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			entries = append(entries, Dir(filepath.ToSlash(rel), 0o755))
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		entries = append(entries, File(filepath.ToSlash(rel), 0o644, data))
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading the layout %s: %w", dir, err)
	}
	b, err := Tar(entries, mtime)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return nil
}
