// Command consolebench measures the web console (docs/console.md) in a
// real headless Chromium against real federations of light members (API
// servers only) with 1,000 federated Services:
//
//   - time to the first full render of the services view (every Service,
//     with its exporters and importers), navigation to rendered, as the
//     page measures it and as the driver waits for it; and of the
//     federation view;
//
//   - a live update: a Service exported while the page is open, from the
//     export's create to its row in the page;
//
//   - the baseline, in the same run: `antreaplus service list` of the same
//     data, process start to exit;
//
//   - the console's memory and CPU at idle with every member watched
//     (no page open, and one page following the services view).
//
//     go run ./test/bench/consolebench -members 3,10 -services 1000 -json _output/bench/console.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"antreaplus.io/antreaplus/test/bench/benchtable"
)

func main() {
	membersFlag := flag.String("members", "3,10", "federation sizes to measure, comma-separated")
	services := flag.Int("services", 1000, "federated Services, spread over the members")
	runs := flag.Int("runs", 5, "first renders measured per view and size")
	updates := flag.Int("updates", 10, "live updates measured per size")
	idle := flag.Duration("idle", 0, "how long the console's cost at idle is sampled (default 30s)")
	jsonPath := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	var sizes []int
	for _, s := range strings.Split(*membersFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 2 {
			fail(fmt.Errorf("-members %q: want sizes of 2 or more", *membersFlag))
		}
		sizes = append(sizes, n)
	}
	if *services < 1 || *runs < 1 || *updates < 1 {
		fail(fmt.Errorf("want -services, -runs and -updates of 1 or more"))
	}
	if *idle == 0 {
		*idle = defaultIdle
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var figures []benchtable.Figure
	for _, n := range sizes {
		f, err := measure(ctx, settings{members: n, services: *services, runs: *runs, updates: *updates, idle: *idle})
		if err != nil {
			fail(fmt.Errorf("%d members: %w", n, err))
		}
		figures = append(figures, f...)
	}
	benchtable.Print(os.Stdout, "antreaplus console", figures)
	if err := benchtable.WriteJSON(*jsonPath, "console", map[string]any{"members": sizes, "services": *services, "runs": *runs,
		"updates": *updates, "idle": idle.String()}, figures); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "consolebench:", err)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[consolebench] "+format+"\n", args...)
}
