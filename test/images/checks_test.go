package images

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// index is what the test reads of an OCI image index.
type index struct {
	MediaType string `json:"mediaType"`
	Manifests []struct {
		MediaType string `json:"mediaType"`
		Digest    string `json:"digest"`
		Platform  struct {
			OS           string `json:"os"`
			Architecture string `json:"architecture"`
		} `json:"platform"`
	} `json:"manifests"`
	Annotations map[string]string `json:"annotations"`
}

// digests maps each platform of idx to its image's digest.
func digests(idx index) map[string]string {
	m := map[string]string{}
	for _, d := range idx.Manifests {
		m[d.Platform.OS+"/"+d.Platform.Architecture] = d.Digest
	}
	return m
}

// layoutRef is skopeo's name of a program's image in the layouts under out.
func layoutRef(out, name string) string {
	return "oci:" + filepath.Join(out, name) + ":" + version
}

// inspectIndex reads the index of a program's layout with skopeo.
func inspectIndex(t *testing.T, out, name string) index {
	t.Helper()
	var idx index
	decode(t, run(t, out, "skopeo", "inspect", "--raw", layoutRef(out, name)), &idx)
	return idx
}

// labels are the OCI labels every image and index carries.
func labels(name string) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":    name,
		"org.opencontainers.image.version":  version,
		"org.opencontainers.image.revision": revision,
		"org.opencontainers.image.source":   "https://antreaplus.io/antreaplus",
		"org.opencontainers.image.created":  created,
	}
}

// checkIndex checks that the layout names an OCI index of an image per
// platform, and returns it.
func checkIndex(t *testing.T, out, name string) index {
	t.Helper()
	idx := inspectIndex(t, out, name)
	if idx.MediaType != "application/vnd.oci.image.index.v1+json" {
		t.Errorf("media type %q, want an OCI image index", idx.MediaType)
	}
	got := digests(idx)
	if len(got) != len(platforms) || len(idx.Manifests) != len(platforms) {
		t.Errorf("the index lists %v, want one image per platform of %v", got, platforms)
	}
	for _, p := range platforms {
		if got[p] == "" {
			t.Errorf("the index has no image for %s", p)
		}
	}
	for _, d := range idx.Manifests {
		if d.MediaType != "application/vnd.oci.image.manifest.v1+json" {
			t.Errorf("image %s: media type %q, want an OCI manifest", d.Digest, d.MediaType)
		}
	}
	if !reflect.DeepEqual(idx.Annotations, labels(name)) {
		t.Errorf("index annotations %v, want %v", idx.Annotations, labels(name))
	}
	return idx
}

// checkPush pushes the layout's index with every platform's image to a
// registry (host: an in-process one, plain HTTP) with skopeo, as docs/install.md
// says to, and checks that the registry serves the same index, byte for byte.
func checkPush(t *testing.T, out, name, host string) {
	t.Helper()
	dest := "docker://" + host + "/antreaplus/" + name + ":" + version
	run(t, out, "skopeo", "--insecure-policy", "copy", "--quiet", "--all", "--preserve-digests", "--dest-tls-verify=false", layoutRef(out, name), dest)
	local := run(t, out, "skopeo", "inspect", "--raw", layoutRef(out, name))
	pushed := run(t, out, "skopeo", "inspect", "--raw", "--tls-verify=false", dest)
	if !bytes.Equal(local, pushed) {
		t.Errorf("the registry serves the index\n%s\nthe layout holds\n%s", pushed, local)
	}
	var idx index
	decode(t, pushed, &idx)
	for p, d := range digests(idx) {
		os, arch, _ := strings.Cut(p, "/")
		ref := "docker://" + host + "/antreaplus/" + name + "@" + d
		var c config
		decode(t, run(t, out, "skopeo", "inspect", "--config", "--tls-verify=false", "--override-os", os, "--override-arch", arch, ref), &c)
		if c.Architecture != arch {
			t.Errorf("the registry's image %s of %s is for %s", d, p, c.Architecture)
		}
	}
}

// config is what the test reads of an image configuration.
type config struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Created      string `json:"created"`
	Config       struct {
		User       string            `json:"User"`
		Entrypoint []string          `json:"Entrypoint"`
		WorkingDir string            `json:"WorkingDir"`
		Labels     map[string]string `json:"Labels"`
	} `json:"config"`
	RootFS struct {
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
}

// checkConfig checks, with skopeo choosing the platform's image from the
// index, that the image runs the program as nonroot, with the labels.
func checkConfig(t *testing.T, out, name, platform string) {
	t.Helper()
	os, arch, _ := strings.Cut(platform, "/")
	var c config
	decode(t, run(t, out, "skopeo", "inspect", "--config", "--override-os", os, "--override-arch", arch, layoutRef(out, name)), &c)
	if c.OS != os || c.Architecture != arch {
		t.Errorf("%s: skopeo chose the image of %s/%s", platform, c.OS, c.Architecture)
	}
	want := []string{"/usr/local/bin/" + name}
	if c.Config.User != "65532:65532" || !reflect.DeepEqual(c.Config.Entrypoint, want) || c.Config.WorkingDir != "/" {
		t.Errorf("%s: user %q entrypoint %q workdir %q, want 65532:65532 %q /", platform, c.Config.User, c.Config.Entrypoint, c.Config.WorkingDir, want)
	}
	if !reflect.DeepEqual(c.Config.Labels, labels(name)) || c.Created != created {
		t.Errorf("%s: labels %v created %s, want %v %s", platform, c.Config.Labels, c.Created, labels(name), created)
	}
	if len(c.RootFS.DiffIDs) != 2 {
		t.Errorf("%s: %d layers, want 2 (the base root filesystem and the program)", platform, len(c.RootFS.DiffIDs))
	}
}

// spec is what the test reads of the runtime spec umoci writes.
type spec struct {
	Process struct {
		User struct {
			UID int `json:"uid"`
			GID int `json:"gid"`
		} `json:"user"`
		Args []string `json:"args"`
		Cwd  string   `json:"cwd"`
	} `json:"process"`
}

// checkEntrypointRuns copies this machine's platform's image out of the
// tarball with skopeo, unpacks it with umoci and runs the entrypoint of the
// runtime spec umoci wrote with --version.
func checkEntrypointRuns(t *testing.T, out, name string) {
	t.Helper()
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Fatalf("the images are built for amd64 and arm64; this machine is %s", runtime.GOARCH)
	}
	work := t.TempDir()
	run(t, work, "skopeo", "--insecure-policy", "copy", "--quiet", "--override-os", "linux", "--override-arch", runtime.GOARCH,
		"oci-archive:"+filepath.Join(out, name+".tar")+":"+version, "oci:single:"+version)
	run(t, work, "umoci", "unpack", "--rootless", "--image", "single:"+version, "bundle")
	var s spec
	b, err := os.ReadFile(filepath.Join(work, "bundle", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	decode(t, b, &s)
	entrypoint := "/usr/local/bin/" + name
	if s.Process.User.UID != 65532 || s.Process.User.GID != 65532 || !reflect.DeepEqual(s.Process.Args, []string{entrypoint}) || s.Process.Cwd != "/" {
		t.Errorf("umoci's runtime spec runs %q as %d:%d in %q, want %s as 65532:65532 in /", s.Process.Args, s.Process.User.UID, s.Process.User.GID, s.Process.Cwd, entrypoint)
	}
	rootfs := filepath.Join(work, "bundle", "rootfs")
	checkRootFS(t, rootfs)
	printed := string(run(t, work, filepath.Join(rootfs, entrypoint), "--version"))
	t.Logf("%s --version (unpacked by umoci, %s): %q", entrypoint, runtime.GOARCH, printed)
	if !strings.Contains(printed, version) {
		t.Errorf("%s --version printed %q, want the images' version %s", entrypoint, printed, version)
	}
}

// checkRootFS checks the base root filesystem as umoci unpacked it.
func checkRootFS(t *testing.T, rootfs string) {
	t.Helper()
	for file, want := range map[string]string{
		"etc/passwd":                        "nonroot:x:65532:65532:",
		"etc/group":                         "nonroot:x:65532:",
		"etc/nsswitch.conf":                 "hosts: files dns",
		"etc/ssl/certs/ca-certificates.crt": "-----BEGIN CERTIFICATE-----",
	} {
		b, err := os.ReadFile(filepath.Join(rootfs, file))
		switch {
		case isMissing(err):
			t.Errorf("the image has no /%s", file)
		case err != nil:
			t.Error(err)
		case !strings.Contains(string(b), want):
			t.Errorf("/%s does not contain %q", file, want)
		}
	}
	fi, err := os.Stat(filepath.Join(rootfs, "tmp"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Errorf("/tmp has mode %s, want drwxrwxrwt", fi.Mode())
	}
}
