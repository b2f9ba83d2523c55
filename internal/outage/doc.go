// Package outage replaces a component's informers when its API server
// answers again after an outage.
//
// client-go's reflectors retry a lost watch with a growing back-off (up to
// 30 s, doubled by jitter), so after an outage of more than a few seconds
// a component's informers may stay blind to changes for up to a minute
// after the server is back. A component that starts fresh informers as soon
// as the server answers lists at once instead.
//
// Rules:
//   - An outage is measured from the first failed probe to the first one
//     that succeeds again (Tracker, pure).
//   - Outages shorter than Min (RefreshAfter by default) are left to the
//     reflectors: their first back-offs are that short.
//   - A Renewer runs one generation of the component at a time: it stops
//     the current one and waits for it to return before it starts the next,
//     so two generations never run together. What must keep answering
//     meanwhile (an index filled by the informers) lives outside the
//     generations.
//   - A generation that ends on its own, with an error or without, ends
//     the Renewer: the component cannot work without it.
//   - Each renewal is logged with the outage's length and counted in
//     antreaplus_outage_renewals_total{component}, which the program
//     registers on the registry it serves with RegisterMetrics.
//
// # Usage
//
// See ExampleRenewer.
package outage
