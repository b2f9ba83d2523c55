// Package distributiontest runs a policy distribution server in a test
// process, on a local TLS port, with tokens minted on demand: for tests of
// consumers (the VM agent, the agentless consumer) that need a real server
// but no API server.
//
// # Usage
//
// See Example: a consumer's test against the server.
package distributiontest
