// Package web holds the console's page, script and style, embedded in the
// binary (no CDN, no build step: plain HTML, CSS and one ES module).
package web

import "embed"

// Assets are the files under assets/.
//
//go:embed assets
var Assets embed.FS
