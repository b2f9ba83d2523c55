// Package charts embeds the project's Helm chart, deploy/charts/antreaplus,
// so that `antreaplus install` renders exactly the chart of its own version
// (pkg/install) without a Helm binary or a chart repository.
package charts

import (
	"embed"
	"io/fs"
)

//go:embed all:antreaplus
var files embed.FS

// Antreaplus is the chart's directory: Chart.yaml, values.yaml, crds/,
// templates/ and files/ at its root.
func Antreaplus() fs.FS {
	sub, err := fs.Sub(files, "antreaplus")
	if err != nil { // the embed pattern names the directory: it exists
		panic(err)
	}
	return sub
}
