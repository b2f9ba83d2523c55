// Package apiwrites counts the writes a controller sends to the API server,
// per verb and kind, by wrapping its client. The cloud controller promises
// that a poll where nothing changed in the cloud writes nothing; this is
// how tests, the benchmark and the /metrics endpoint see it.
//
// # Usage
//
// See ExampleCounter.
//
// Every Create, Update, Patch, Apply, Delete and DeleteAllOf is counted,
// and so are writes to subresources (status) as "<verb>/<subresource>",
// whether the API server accepted them or not. Reads are not counted.
package apiwrites
