package main

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	vmagentpkg "antreaplus.io/antreaplus/deploy/vm-agent"
)

// writeTarball writes the tarball of arch into out and returns its path:
// one directory named after it holding the files with a tarball name,
// sorted, owned by root, every time the commit's.
func (b build) writeTarball(arch string, pkgFiles []pkgFile, out string) (string, error) {
	dir := fmt.Sprintf("%s-%s-linux-%s", vmagentpkg.Name, b.version, arch)
	path := filepath.Join(out, dir+".tar.gz")
	files := slices.DeleteFunc(slices.Clone(pkgFiles), func(f pkgFile) bool { return f.tar == "" })
	slices.SortFunc(files, func(a, b pkgFile) int { return strings.Compare(a.tar, b.tar) })
	return path, writeFile(path, func(f *os.File) error {
		zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
		if err != nil {
			return err
		}
		tw := tar.NewWriter(zw)
		if err := tw.WriteHeader(b.tarHeader(dir+"/", tar.TypeDir, 0o755, 0)); err != nil {
			return err
		}
		for _, pf := range files {
			if err := b.addTarFile(tw, dir+"/"+pf.tar, pf); err != nil {
				return err
			}
		}
		if err := tw.Close(); err != nil {
			return err
		}
		return zw.Close()
	})
}

func (b build) addTarFile(tw *tar.Writer, name string, pf pkgFile) error {
	f, err := os.Open(pf.src)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(b.tarHeader(name, tar.TypeReg, pf.mode, info.Size())); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

func (b build) tarHeader(name string, typ byte, mode os.FileMode, size int64) *tar.Header {
	return &tar.Header{Name: name, Typeflag: typ, Mode: int64(mode), Size: size, ModTime: b.mtime,
		Uname: "root", Gname: "root", Format: tar.FormatUSTAR}
}
