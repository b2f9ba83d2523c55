// Command externaldnsbench measures how soon a federated Service's name is
// answered by the external DNS server ExternalDNS publishes to, in a
// sandbox federation of real clusters and federation managers, against the
// same-run baseline of ExternalDNS publishing a plain LoadBalancer
// Service's own record (its service source).
//
// The chain measured: a ServiceExport created in member-2 (its
// LoadBalancer Service already has an ingress IP) -> the leader of
// member-1 (a federation manager process) writes the Service's DNSEndpoint
// into member-1 (package dnsendpoints) -> ExternalDNS (the real program,
// CRD and service sources, coredns provider, TXT registry) writes SkyDNS
// entries into an etcd -> our CoreDNS build answers
// <svc>.<ns>.<fed>.svc.<domain> from it. The baseline: a LoadBalancer
// Service of member-1 annotated with external-dns.alpha.kubernetes.io/hostname
// gets its ingress IP -> the same ExternalDNS publishes its name. Both are
// timed from the write that makes them publishable to the first correct
// answer, interleaved (one of each every -interval), so that they share
// ExternalDNS's syncs. Then member-2's API server is killed: once its
// names are withdrawn (the unreachable grace), it is started again and
// the time from its return to every name answered again is taken.
//
// ExternalDNS syncs on every event at most every -min-event-sync, and
// every -sync-interval regardless: both are reported as settings, apart
// from the figures.
//
//	go run ./test/bench/externaldnsbench -services 100 -json _output/bench/externaldns.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"antreaplus.io/antreaplus/test/bench/benchtable"
)

// settings are the bench's flags.
type settings struct {
	services      int
	interval      time.Duration
	syncInterval  time.Duration
	minEventSync  time.Duration
	grace         time.Duration
	base          int
	keepLogs      string
	pollEvery     time.Duration
	answerTimeout time.Duration
}

func main() {
	var s settings
	flag.IntVar(&s.services, "services", 100, "federated Services exported, and plain Services published for the baseline")
	flag.DurationVar(&s.interval, "interval", 200*time.Millisecond, "time between one export (and one baseline Service) and the next")
	flag.DurationVar(&s.syncInterval, "sync-interval", 10*time.Second, "ExternalDNS's --interval (a full sync)")
	flag.DurationVar(&s.minEventSync, "min-event-sync", time.Second, "ExternalDNS's --min-event-sync-interval (syncs on events, at most this often)")
	flag.DurationVar(&s.grace, "unreachable-grace", 10*time.Second, "the federation managers' --unreachable-grace")
	flag.IntVar(&s.base, "api-port-base", 13443, "API server port of member-1")
	flag.StringVar(&s.keepLogs, "logs", "", "copy the programs' logs into this directory")
	flag.DurationVar(&s.pollEvery, "poll", 50*time.Millisecond, "how often each pending name is asked")
	flag.DurationVar(&s.answerTimeout, "timeout", 3*time.Minute, "how long a name may take to be answered")
	out := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	figures, err := run(context.Background(), s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "externaldnsbench:", err)
		os.Exit(1)
	}
	title := fmt.Sprintf("federated names outside the federation: %d Services, ExternalDNS --interval %s, --min-event-sync-interval %s",
		s.services, s.syncInterval, s.minEventSync)
	benchtable.Print(os.Stdout, title, figures)
	if err := benchtable.WriteJSON(*out, "externaldns", map[string]any{
		"services": s.services, "interval": s.interval.String(), "externalDNSInterval": s.syncInterval.String(),
		"externalDNSMinEventSync": s.minEventSync.String(), "unreachableGrace": s.grace.String(),
	}, figures); err != nil {
		fmt.Fprintln(os.Stderr, "externaldnsbench:", err)
		os.Exit(1)
	}
}
