package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"antreaplus.io/antreaplus/hack/images/oci"
)

// assembleAll writes the image of every program from the binaries under
// bins: the layout <output>/<name> and the tarball <output>/<name>.tar.
func assembleAll(output, bins string, programs []string, platforms []v1.Platform, meta oci.Metadata, ca []byte) error {
	base, err := oci.NewLayer(oci.BaseFiles(ca), meta.Created, "base root filesystem: users (nonroot 65532), nsswitch.conf, CA bundle, /tmp")
	if err != nil {
		return err
	}
	for _, name := range programs {
		m := meta
		m.Name = name
		if err := assemble(output, bins, platforms, m, base); err != nil {
			return fmt.Errorf("image of %s: %w", name, err)
		}
	}
	return nil
}

// assemble writes the image index of one program, its platforms' images
// made side by side (compressing the binaries takes most of the time).
func assemble(output, bins string, platforms []v1.Platform, m oci.Metadata, base oci.Layer) error {
	images := make([]oci.PlatformImage, len(platforms))
	lines := make([]string, len(platforms))
	errs := make([]error, len(platforms))
	var wg sync.WaitGroup
	for i, p := range platforms {
		wg.Go(func() {
			images[i] = oci.PlatformImage{Platform: p}
			images[i].Image, lines[i], errs[i] = platformImage(bins, p, m, base)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, l := range lines {
		fmt.Println(l)
	}
	idx, err := oci.Index(images, m.Labels())
	if err != nil {
		return err
	}
	dir := filepath.Join(output, m.Name)
	if err := oci.WriteLayout(dir, idx, m); err != nil {
		return err
	}
	if err := oci.Archive(dir, dir+".tar", m.Created); err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("[images] %s index %s -> %s, %s.tar\n", m.Reference(), d, dir, dir)
	return nil
}

// platformImage is the image of one program for p and a line saying its
// digest and sizes.
func platformImage(bins string, p v1.Platform, m oci.Metadata, base oci.Layer) (v1.Image, string, error) {
	binary, err := os.ReadFile(filepath.Join(binDir(bins, p), m.Name))
	if err != nil {
		return nil, "", fmt.Errorf("reading the %s binary: %w", p.String(), err)
	}
	prog, err := oci.NewLayer(oci.ProgramFiles(m.Name, binary), m.Created, oci.BinDir+"/"+m.Name)
	if err != nil {
		return nil, "", err
	}
	img, err := oci.Image(oci.ConfigFile(m, p), base, prog)
	if err != nil {
		return nil, "", err
	}
	d, err := img.Digest()
	if err != nil {
		return nil, "", err
	}
	size, err := oci.ImageSize(img, []oci.Layer{base, prog})
	if err != nil {
		return nil, "", err
	}
	line := fmt.Sprintf("[images] %-18s %-11s %s  %s compressed, %s unpacked", m.Name, p.String(), d, mb(size.Compressed), mb(size.Unpacked))
	return img, line, nil
}

// mb formats a size in megabytes (10^6 bytes), as registries show them.
func mb(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
