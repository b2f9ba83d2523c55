package oci

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// NonRoot is the user (and group) every image runs as: distroless's
// "nonroot", so that Pod security contexts written for those images fit.
const NonRoot = 65532

// DefaultCABundle is where Debian's ca-certificates package keeps the CA
// bundle the base root filesystem copies.
const DefaultCABundle = "/etc/ssl/certs/ca-certificates.crt"

// BinDir is where each image's program lives.
const BinDir = "/usr/local/bin"

const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
		"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group = "root:x:0:\n" +
		"nobody:x:65534:\n" +
		"nonroot:x:65532:\n"
	// nsswitch.conf makes Go's resolver (and any libc) read /etc/hosts
	// before asking DNS.
	nsswitch = "hosts: files dns\n"
)

// BaseFiles is the base root filesystem of every image: the users and
// groups (root, nobody, nonroot 65532), nsswitch.conf, the CA bundle at
// the paths Go's crypto/x509 reads, a world-writable /tmp, and nonroot's
// home.
func BaseFiles(caBundle []byte) []Entry {
	return []Entry{
		File("/etc/passwd", 0o644, []byte(passwd)),
		File("/etc/group", 0o644, []byte(group)),
		File("/etc/nsswitch.conf", 0o644, []byte(nsswitch)),
		File(DefaultCABundle, 0o644, caBundle),
		Dir("/tmp", 0o1777),
		Dir("/root", 0o700),
		{Path: "/home/nonroot", Dir: true, Mode: 0o700, UID: NonRoot, GID: NonRoot},
	}
}

// ProgramFiles is the layer of one program: its binary at
// /usr/local/bin/<name>.
func ProgramFiles(name string, binary []byte) []Entry {
	return []Entry{File(BinDir+"/"+name, 0o755, binary)}
}

// ReadCABundle reads the build machine's CA bundle, saying what to install
// when it is missing.
func ReadCABundle(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the CA bundle for the images' base root filesystem is missing at %s: install Debian's ca-certificates package (apt-get install ca-certificates) or give another bundle (hack/images -ca-bundle): %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the CA bundle for the images' base root filesystem: %w", err)
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("the CA bundle %s is empty", path)
	}
	return b, nil
}
