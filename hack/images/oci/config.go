package oci

import (
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// The OCI annotation keys (image-spec annotations.md) the images carry as
// labels of their configuration and as annotations of their index.
const (
	LabelTitle    = "org.opencontainers.image.title"
	LabelVersion  = "org.opencontainers.image.version"
	LabelRevision = "org.opencontainers.image.revision"
	LabelSource   = "org.opencontainers.image.source"
	LabelCreated  = "org.opencontainers.image.created"
	// RefName names an image of an OCI layout in its index.json: the tag,
	// as skopeo (oci:<dir>:<tag>) and umoci (<dir>:<tag>) look it up.
	RefName = "org.opencontainers.image.ref.name"
	// ContainerdName is the full reference containerd (ctr images import)
	// gives an image it imports from a layout.
	ContainerdName = "io.containerd.image.name"
)

// Path is the PATH of every image.
const Path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Metadata says what an image is: the program, its version and where it
// comes from.
type Metadata struct {
	// Name is the program (cmd/<name>), also the image's name in Registry.
	Name string
	// Version is the image's tag and the program's main.version.
	Version string
	// Revision is the commit the image is built from.
	Revision string
	// Source is the URL of the source repository.
	Source string
	// Registry is where the image is pushed: its reference is
	// <Registry>/<Name>:<Version>.
	Registry string
	// Created is every timestamp of the image: the commit's time.
	Created time.Time
}

// Reference is the image's full reference, <registry>/<name>:<version>.
func (m Metadata) Reference() string {
	return m.Registry + "/" + m.Name + ":" + m.Version
}

// Labels are the image's OCI labels (org.opencontainers.image.*).
func (m Metadata) Labels() map[string]string {
	return map[string]string{
		LabelTitle:    m.Name,
		LabelVersion:  m.Version,
		LabelRevision: m.Revision,
		LabelSource:   m.Source,
		LabelCreated:  m.Created.UTC().Format(time.RFC3339),
	}
}

// ConfigFile is the configuration of the image of m for platform p: run as
// nonroot, entrypoint the program, the labels; the root filesystem is
// filled in by Image.
func ConfigFile(m Metadata, p v1.Platform) *v1.ConfigFile {
	user := strconv.Itoa(NonRoot) + ":" + strconv.Itoa(NonRoot)
	return &v1.ConfigFile{
		Architecture: p.Architecture,
		OS:           p.OS,
		Variant:      p.Variant,
		Created:      v1.Time{Time: m.Created.UTC()},
		Config: v1.Config{
			User:       user,
			Entrypoint: []string{BinDir + "/" + m.Name},
			WorkingDir: "/",
			Env:        []string{"PATH=" + Path},
			Labels:     m.Labels(),
		},
		RootFS: v1.RootFS{Type: "layers"},
	}
}
