// Package metricsreg registers a package's Prometheus collectors the way
// every RegisterMetrics of the project does (docs/development.md,
// "Metrics"): on the registry the program gives, and again without error.
//
// A package never registers its metrics by itself (at init, lazily, or on a
// registry it picks): the program calls the package's
//
//	func RegisterMetrics(reg prometheus.Registerer, ...) error
//
// on the registry it serves, and that function calls Register.
//
// # Usage
//
// See ExampleRegister: a package's RegisterMetrics, registered twice on a
// program's registry.
package metricsreg
