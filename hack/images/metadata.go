package main

import (
	"context"
	"fmt"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"antreaplus.io/antreaplus/hack/images/oci"
	"antreaplus.io/antreaplus/hack/internal/gitmeta"
)

// gitInfo runs git in the current directory.
func gitInfo(args ...string) (string, error) {
	return gitmeta.Git(context.Background(), "", args...)
}

// metadata is what the options say of the images, git filling in what they
// leave out; Name is set per program.
func metadata(o options, git func(args ...string) (string, error)) (oci.Metadata, error) {
	m := oci.Metadata{Version: o.version, Revision: o.revision, Source: o.source, Registry: strings.TrimSuffix(o.registry, "/")}
	var err error
	if m.Version == "" {
		if m.Version, err = git("describe", "--tags", "--always", "--dirty"); err != nil {
			return m, err
		}
	}
	if m.Revision == "" {
		if m.Revision, err = git("rev-parse", "HEAD"); err != nil {
			return m, err
		}
	}
	if m.Created, err = gitmeta.CommitTime(o.epoch, git); err != nil {
		return m, err
	}
	if !validTag(m.Version) {
		return m, fmt.Errorf("version %q is not a valid image tag ([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})", m.Version)
	}
	return m, nil
}

// validTag reports whether s is a tag of the OCI distribution spec.
func validTag(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}

// parsePlatforms reads "os/arch,os/arch"; only linux is built.
func parsePlatforms(s string) ([]v1.Platform, error) {
	var out []v1.Platform
	for _, f := range splitList(s) {
		p, err := v1.ParsePlatform(f)
		if err != nil {
			return nil, fmt.Errorf("platform %q: %w", f, err)
		}
		if p.OS != "linux" || p.Architecture == "" {
			return nil, fmt.Errorf("platform %q: only linux/<arch> images are built", f)
		}
		out = append(out, *p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no platforms given")
	}
	return out, nil
}
