package oci

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Layer is a gzip-compressed OCI layer with its history entry and the size
// of its uncompressed tar.
type Layer struct {
	v1.Layer
	History v1.History
	TarSize int64
}

// NewLayer writes entries as a layer (Tar, then gzip at the default level:
// on a 92 MB binary 24.8% in 2.3 s, where the best level takes 6 s for
// 24.7%), its timestamps and history at created; createdBy says what the
// layer holds.
func NewLayer(entries []Entry, created time.Time, createdBy string) (Layer, error) {
	t, err := Tar(entries, created)
	if err != nil {
		return Layer{}, err
	}
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	if err != nil {
		return Layer{}, err
	}
	if _, err := zw.Write(t); err != nil {
		return Layer{}, fmt.Errorf("compressing the layer %q: %w", createdBy, err)
	}
	if err := zw.Close(); err != nil {
		return Layer{}, fmt.Errorf("compressing the layer %q: %w", createdBy, err)
	}
	compressed := gz.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(compressed)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return Layer{}, fmt.Errorf("making the layer %q: %w", createdBy, err)
	}
	h := v1.History{Created: v1.Time{Time: created.UTC()}, CreatedBy: createdBy, Comment: "antreaplus hack/images"}
	return Layer{Layer: l, History: h, TarSize: int64(len(t))}, nil
}

// Image is an OCI image (OCI manifest and config media types) of cfg with
// layers, base first.
func Image(cfg *v1.ConfigFile, layers ...Layer) (v1.Image, error) {
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err := mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, fmt.Errorf("setting the image configuration: %w", err)
	}
	adds := make([]mutate.Addendum, 0, len(layers))
	for _, l := range layers {
		adds = append(adds, mutate.Addendum{Layer: l.Layer, History: l.History, MediaType: types.OCILayer})
	}
	img, err = mutate.Append(img, adds...)
	if err != nil {
		return nil, fmt.Errorf("adding the layers: %w", err)
	}
	return img, nil
}

// PlatformImage is the image of one platform of an index.
type PlatformImage struct {
	Platform v1.Platform
	Image    v1.Image
}

// Index is the OCI image index of images, in their order, each described
// with its platform, the index annotated with annotations.
func Index(images []PlatformImage, annotations map[string]string) (v1.ImageIndex, error) {
	adds := make([]mutate.IndexAddendum, 0, len(images))
	for _, pi := range images {
		p := pi.Platform
		adds = append(adds, mutate.IndexAddendum{Add: pi.Image, Descriptor: v1.Descriptor{Platform: &p}})
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	annotated, ok := mutate.Annotations(idx, annotations).(v1.ImageIndex)
	if !ok {
		return nil, fmt.Errorf("annotating the image index: not an index")
	}
	return annotated, nil
}

// Size is what pulling an image transfers (its manifest, config and
// compressed layers) and what it takes unpacked (its layers' tars).
type Size struct {
	Compressed, Unpacked int64
}

// ImageSize adds up the size of an image made of layers.
func ImageSize(img v1.Image, layers []Layer) (Size, error) {
	var s Size
	m, err := img.RawManifest()
	if err != nil {
		return s, err
	}
	c, err := img.RawConfigFile()
	if err != nil {
		return s, err
	}
	s.Compressed = int64(len(m) + len(c))
	for _, l := range layers {
		n, err := l.Size()
		if err != nil {
			return s, err
		}
		s.Compressed += n
		s.Unpacked += l.TarSize
	}
	return s, nil
}
