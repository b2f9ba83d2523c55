//go:build tools

// Package tools pins Helm, which lints and renders the chart (deploy/charts/antreaplus).
package tools

import _ "helm.sh/helm/v3/cmd/helm"
