package source_test

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/rest"

	"antreaplus.io/antreaplus/pkg/console/source"
)

// A member's live copy: made with what to call on a change, run until the
// console stops, read for the views. Here its API server does not answer
// (nothing listens at the address): the probe says so, and so does the first
// failed list of each kind.
func Example() {
	changed := make(chan string, 64)
	m := source.NewMember("member-1", &rest.Config{Host: "https://127.0.0.1:1", Timeout: time.Second}, source.Kinds(),
		func(kind string) { changed <- kind })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = m.Run(ctx); close(done) }()
	// Wait for both outcomes, in whichever order they come: the health
	// probe ("") and the first failed list of ServiceExports.
	probed, listed := false, false
	for kind := range changed {
		probed = probed || kind == ""
		listed = listed || (kind == source.ServiceExports && m.State(source.ServiceExports).State != source.Waiting)
		if probed && listed {
			break
		}
	}
	h := m.Health()
	fmt.Println(h.Probed, h.Reachable, m.State(source.ServiceExports).State)
	cancel()
	<-done
	// Output: true false Failing
}
