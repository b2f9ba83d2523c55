// Package images checks the container images `make images` builds
// (hack/images) with real image tools from Debian, as an operator's
// registry and runtime would read them:
//
//   - reproducible: hack/images runs twice into two directories; every
//     program's image of every platform has the same digest, and the two
//     tarballs are the same bytes;
//   - skopeo inspect: each layout holds an OCI index of linux/amd64 and
//     linux/arm64 images, each configured to run its program as nonroot
//     (65532) with the org.opencontainers.image labels;
//   - skopeo copy of the tarball (oci-archive:) for this machine's
//     architecture, umoci unpack --rootless of that image, and the
//     entrypoint of the runtime spec umoci writes run with --version: it is
//     the program, and it prints the images' version.
//
// The test needs skopeo and umoci (make test installs them with
// hack/ensure-packages.sh); without them it fails with the reason under
// make test (ANTREAPLUS_REQUIRE_CLUSTERS=1) and is skipped elsewhere.
//
//	go test ./test/images -v
package images
