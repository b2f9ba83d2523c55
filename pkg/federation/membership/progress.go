package membership

import (
	"fmt"
	"io"
)

// reporter prints one progress line per step, prefixed by the cluster it is about.
type reporter struct{ w io.Writer }

func newReporter(w io.Writer) reporter {
	if w == nil {
		w = io.Discard
	}
	return reporter{w: w}
}

func (r reporter) step(cluster, format string, args ...any) {
	fmt.Fprintf(r.w, "%s: %s\n", cluster, fmt.Sprintf(format, args...))
}
