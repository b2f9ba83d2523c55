// Package oci assembles the product's container images without a container
// runtime: deterministic tar layers, the base root filesystem every image
// starts from, the image configuration, the per-platform images and their
// index, and the OCI image layout written as a directory and as a tarball.
//
// Everything here is reproducible: the same inputs (binaries, CA bundle,
// metadata) give the same bytes, so the same commit gives the same digests.
// Tar entries are sorted by path, every timestamp is Metadata.Created (the
// commit's time, SOURCE_DATE_EPOCH), owners are root unless an entry says
// otherwise (the nonroot home directory), modes are fixed, and layers are
// gzip-compressed by Go's compress/gzip with an empty header.
//
// The program that builds the binaries and calls this package is
// hack/images (`make images`); docs/install.md describes the images.
package oci
