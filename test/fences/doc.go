// Package fences checks, by test, the boundaries of the tree that an import
// linter cannot see: what each program links in the end.
//
// The rules (docs/development.md, "Layout and fences"):
//
//   - api/ imports nothing of the project but api/ (so that the types can be
//     vendored by anyone);
//   - the product's programs (cmd/*) link no test infrastructure (test/...:
//     emulators, fakes, frameworks) and no testing package; only the CLI
//     links the local sandbox and the development toolchain;
//   - the VM agent links neither the policy compiler nor the Kubernetes API
//     types it never uses (what it receives is the wire format).
//
// depguard (.golangci.yml) checks each file's direct imports against the same
// rules; these tests check the transitive closure with `go list -deps`.
package fences
