// Package reqtrace times the phases of one HTTP request (net/http/httptrace),
// so that a slow request says where its time went: in this process before
// it was sent (a client's rate limit, a connection or HTTP/2 stream), at
// the server, or in reading the answer. The federation manager times its
// Lease writes with it (antreaplus_federation_lease_write_seconds).
package reqtrace

import (
	"context"
	"net/http/httptrace"
	"sync"
	"time"
)

// Phases of a request.
const (
	// Queued runs from the call to a connection to send on: a client's
	// rate limit, encoding, and a connection (dialled, or an HTTP/2
	// stream slot).
	Queued = "queued"
	// Sending runs from the connection to the request written.
	Sending = "sending"
	// Answer runs from the request written to the first byte of the
	// answer: the server, and this process reading its connection.
	Answer = "answer"
	// Reading runs from the first byte to the end of the call (the body
	// read and decoded).
	Reading = "reading"
	// Total is the whole call.
	Total = "total"
)

// Phases are every phase, in order.
var Phases = []string{Queued, Sending, Answer, Reading, Total}

// Timing is when a request reached each point of its way; a zero time is a
// point the transport did not report (a request that failed before it).
type Timing struct {
	Start, GotConn, Wrote, FirstByte, End time.Time
}

// Phases splits a request's time by phase. A phase is left out when one of
// its ends is unknown or comes before the other (a retry written after a
// first answer); Total always counts.
func (t Timing) Phases() map[string]time.Duration {
	out := map[string]time.Duration{Total: t.End.Sub(t.Start)}
	span := func(phase string, from, to time.Time) {
		if !from.IsZero() && !to.IsZero() && !to.Before(from) {
			out[phase] = to.Sub(from)
		}
	}
	span(Queued, t.Start, t.GotConn)
	span(Sending, t.GotConn, t.Wrote)
	span(Answer, t.Wrote, t.FirstByte)
	span(Reading, t.FirstByte, t.End)
	return out
}

// Request times one request. The transport calls its hooks from its own
// goroutines: the times are kept under a lock.
type Request struct {
	mu sync.Mutex
	t  Timing
}

// Start starts timing a request: send it with the context returned, then
// call Done.
func Start(ctx context.Context) (context.Context, *Request) {
	r := &Request{t: Timing{Start: time.Now()}}
	// A retried request reports its points again: the last connection
	// and request written count, and the first answer.
	mark := func(at *time.Time, again bool) {
		r.mu.Lock()
		if again || at.IsZero() {
			*at = time.Now()
		}
		r.mu.Unlock()
	}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:              func(httptrace.GotConnInfo) { mark(&r.t.GotConn, true) },
		WroteRequest:         func(httptrace.WroteRequestInfo) { mark(&r.t.Wrote, true) },
		GotFirstResponseByte: func() { mark(&r.t.FirstByte, false) },
	}), r
}

// Done ends the request and returns its phases.
func (r *Request) Done() map[string]time.Duration {
	r.mu.Lock()
	r.t.End = time.Now()
	t := r.t
	r.mu.Unlock()
	return t.Phases()
}
