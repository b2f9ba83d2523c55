// Package datadriven runs data-driven tests, in the style of etcd-io/raft's
// interaction tests (github.com/cockroachdb/datadriven): a testdata file
// holds cases; a callback of the test turns each case's command and input
// into output lines, which are compared with the case's expected output, or,
// with the -rewrite flag, written back as the new expected output.
//
// A case is a command line, input lines, a "----" line and the expected
// output, up to a blank line:
//
//	# a comment: lines starting with "#" between cases
//	apply
//	kind: ExternalEntity
//	metadata: {namespace: edge, name: gw}
//	----
//	changed: edge/gw
//
// The command line is split on white space into Cmd and CmdArgs. What the
// commands are and mean is the test's: its callback fails the test on a
// command it does not know. Cases run in the order of the file; whatever the
// test keeps between them (a compiler fed case after case) is made anew per
// file, in the callback of Walk.
//
// A rewrite keeps every line of the file but the expected outputs, so that
// a file whose outputs are right is written back byte for byte.
//
// # Usage
//
// See Example: a test of every testdata file, and its callback; and
// pkg/policycompiler/datadriven_test.go, a real one. Expected outputs are
// regenerated with: go test ./pkg/x/ -run TestDataDriven -rewrite
package datadriven
