//go:build tools

// Package tools pins controller-gen, which generates deepcopy code and CRDs.
package tools

import _ "sigs.k8s.io/controller-tools/cmd/controller-gen"
