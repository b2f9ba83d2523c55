//go:build tools

// Package tools pins ExternalDNS (sigs.k8s.io/external-dns), which the
// external-dns e2e test and the sandbox run with its coredns provider.
package tools

import _ "sigs.k8s.io/external-dns"
