//go:build tools

// Package tools pins kwok and kwokctl, which run the sandbox's clusters.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
	_ "sigs.k8s.io/kwok/cmd/kwokctl"
)
