// Package e2e drives the antreaplus binary end to end against real clusters
// it starts itself, as an operator would.
package e2e
