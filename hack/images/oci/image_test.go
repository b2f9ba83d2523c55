package oci

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

var (
	amd64 = v1.Platform{OS: "linux", Architecture: "amd64"}
	arm64 = v1.Platform{OS: "linux", Architecture: "arm64"}
	meta  = Metadata{Name: "member-controller", Version: "v1.2.3", Revision: "0123abc", Source: "https://example.test/src",
		Registry: "registry.example.test/antreaplus", Created: epoch}
)

// testIndex is the index of a program with a base layer and a binary per
// platform, as hack/images makes it.
func testIndex(t *testing.T) v1.ImageIndex {
	t.Helper()
	base, err := NewLayer(BaseFiles([]byte("CA")), epoch, "base")
	if err != nil {
		t.Fatal(err)
	}
	var images []PlatformImage
	for _, p := range []v1.Platform{amd64, arm64} {
		prog, err := NewLayer(ProgramFiles(meta.Name, []byte("binary for "+p.Architecture)), epoch, "program")
		if err != nil {
			t.Fatal(err)
		}
		img, err := Image(ConfigFile(meta, p), base, prog)
		if err != nil {
			t.Fatal(err)
		}
		images = append(images, PlatformImage{Platform: p, Image: img})
	}
	idx, err := Index(images, meta.Labels())
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func TestConfigFile(t *testing.T) {
	cfg := ConfigFile(meta, arm64)
	want := v1.Config{
		User:       "65532:65532",
		Entrypoint: []string{"/usr/local/bin/member-controller"},
		WorkingDir: "/",
		Env:        []string{"PATH=" + Path},
		Labels: map[string]string{
			"org.opencontainers.image.title":    "member-controller",
			"org.opencontainers.image.version":  "v1.2.3",
			"org.opencontainers.image.revision": "0123abc",
			"org.opencontainers.image.source":   "https://example.test/src",
			"org.opencontainers.image.created":  "2026-01-02T03:04:05Z",
		},
	}
	if !reflect.DeepEqual(cfg.Config, want) {
		t.Errorf("config:\n got %+v\nwant %+v", cfg.Config, want)
	}
	if cfg.OS != "linux" || cfg.Architecture != "arm64" || !cfg.Created.Equal(epoch) {
		t.Errorf("platform %s/%s created %s", cfg.OS, cfg.Architecture, cfg.Created)
	}
	if got := meta.Reference(); got != "registry.example.test/antreaplus/member-controller:v1.2.3" {
		t.Errorf("reference %s", got)
	}
}

// The layout holds one index named by the version, whose images are the
// platforms', with the config, layers and media types of OCI.
func TestWriteLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "member-controller")
	idx := testIndex(t)
	if err := WriteLayout(dir, idx, meta); err != nil {
		t.Fatal(err)
	}
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Manifests) != 1 {
		t.Fatalf("index.json lists %d manifests, want 1", len(tm.Manifests))
	}
	d := tm.Manifests[0]
	wantAnn := map[string]string{RefName: "v1.2.3", ContainerdName: meta.Reference()}
	if d.MediaType != types.OCIImageIndex || !reflect.DeepEqual(d.Annotations, wantAnn) {
		t.Errorf("index.json names %s %v, want an OCI index with %v", d.MediaType, d.Annotations, wantAnn)
	}
	inner, err := top.ImageIndex(d.Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := inner.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if im.Annotations[LabelVersion] != "v1.2.3" || len(im.Manifests) != 2 {
		t.Fatalf("the image index has annotations %v and %d manifests", im.Annotations, len(im.Manifests))
	}
	for i, want := range []v1.Platform{amd64, arm64} {
		checkImage(t, inner, im.Manifests[i], want)
	}
}

func checkImage(t *testing.T, idx v1.ImageIndex, d v1.Descriptor, want v1.Platform) {
	t.Helper()
	if d.Platform == nil || d.Platform.String() != want.String() || d.MediaType != types.OCIManifestSchema1 {
		t.Errorf("manifest %s: platform %v media type %s", d.Digest, d.Platform, d.MediaType)
		return
	}
	img, err := idx.Image(d.Digest)
	if err != nil {
		t.Fatal(err)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.MediaType != types.OCIConfigJSON || len(m.Layers) != 2 {
		t.Fatalf("%s: config %s, %d layers", want.String(), m.Config.MediaType, len(m.Layers))
	}
	for _, l := range m.Layers {
		if l.MediaType != types.OCILayer {
			t.Errorf("%s: layer media type %s", want.String(), l.MediaType)
		}
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Architecture != want.Architecture || len(cfg.RootFS.DiffIDs) != 2 || len(cfg.History) != 2 {
		t.Errorf("%s: config for %s with %d diff IDs and %d history entries", want.String(), cfg.Architecture, len(cfg.RootFS.DiffIDs), len(cfg.History))
	}
}

// The same inputs give the same digests and the same archive, byte for byte.
func TestReproducible(t *testing.T) {
	var archives [][]byte
	var digests []v1.Hash
	for i := range 2 {
		dir := filepath.Join(t.TempDir(), "img")
		idx := testIndex(t)
		d, err := idx.Digest()
		if err != nil {
			t.Fatal(err)
		}
		digests = append(digests, d)
		if err := WriteLayout(dir, idx, meta); err != nil {
			t.Fatal(err)
		}
		if err := Archive(dir, dir+".tar", epoch); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(dir + ".tar")
		if err != nil {
			t.Fatal(err)
		}
		archives = append(archives, b)
		if i == 0 {
			checkArchive(t, b)
		}
	}
	if digests[0] != digests[1] {
		t.Errorf("two builds gave the index digests %s and %s", digests[0], digests[1])
	}
	if !bytes.Equal(archives[0], archives[1]) {
		t.Error("two builds gave different archives")
	}
}

// checkArchive checks that the archive holds the layout's files.
func checkArchive(t *testing.T, b []byte) {
	t.Helper()
	names := map[string]bool{}
	for _, h := range readTar(t, b) {
		names[h.Name] = true
		if h.UID != 0 || !h.ModTime.Equal(epoch) {
			t.Errorf("%s: uid %d, time %s", h.Name, h.UID, h.ModTime)
		}
	}
	for _, want := range []string{"oci-layout", "index.json", "blobs/", "blobs/sha256/"} {
		if !names[want] {
			t.Errorf("the archive lacks %s", want)
		}
	}
}
