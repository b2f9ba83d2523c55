// Package metricstest tells which metrics a program registers, so that a
// test of the program's registerMetrics can compare them, names, help texts
// and labels, with what operators' dashboards expect (docs/development.md,
// "Metrics").
//
// # Usage
//
// See ExampleRegistered: the descriptors of a program's metrics, one line
// each (name, help, labels).
package metricstest
