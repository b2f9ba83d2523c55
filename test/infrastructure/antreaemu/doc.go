// Package antreaemu plays, in a test, the one part of Antrea that
// `antreaplus trace` talks to: the Traceflow API (crd.antrea.io/v1beta1,
// cluster-scoped). Antrea's own Traceflow needs its agents and OVS on real
// Nodes, which cannot run on this machine (no container runtime, no OVS);
// this stand-in serves the CRD from a real API server and answers each
// Traceflow through its status subresource, as Antrea's controller does
// (phase Running, then Succeeded with the Nodes' observations, or Failed),
// with the observations the test says the datapath would make.
//
// It tests AntreaPlus's side of the wire (what a trace creates, how it
// waits, what it reads back and deletes), never Antrea's verdicts: those
// come from the test's answer function.
//
// # Usage
//
// InstallCRD in the member that "runs Antrea", Start with the answer the
// datapath would give, trace, read what was asked with Seen: as
// test/integration/policycli/traceflow_test.go does.
package antreaemu
