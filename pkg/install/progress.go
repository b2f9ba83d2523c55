package install

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// progress prints a line per object changed or looked at, and counts them.
type progress struct {
	w                                               io.Writer
	created, configured, unchanged, pruned, deleted int
}

func newProgress(w io.Writer) *progress {
	if w == nil {
		w = io.Discard
	}
	return &progress{w: w}
}

// applied counts and prints what applying o did.
func (p *progress) applied(out outcome, o *unstructured.Unstructured) {
	switch out {
	case created:
		p.created++
	case configured:
		p.configured++
	case unchanged:
		p.unchanged++
	}
	p.note(string(out), o)
}

// note prints "  <what> Kind namespace/name".
func (p *progress) note(what string, o *unstructured.Unstructured) {
	fmt.Fprintf(p.w, "  %s %s\n", what, ref(o))
}
