package outage

import (
	"errors"
	"io"
	"net"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// RefreshAfter is the shortest outage after which informers are replaced:
// shorter ones are within the reflectors' first back-offs.
const RefreshAfter = 3 * time.Second

// Tracker follows probe results of one server; it is pure but for its state.
type Tracker struct {
	since time.Time // first failed probe of the current outage; zero when none
	last  time.Duration
}

// Observe records a probe at t that failed with err (nil: it answered) and
// tells whether an outage of at least min just ended.
func (o *Tracker) Observe(t time.Time, err error, min time.Duration) bool {
	if err != nil {
		if o.since.IsZero() {
			o.since = t
		}
		return false
	}
	if o.since.IsZero() {
		return false
	}
	o.last = t.Sub(o.since)
	o.since = time.Time{}
	return o.last >= min
}

// Last is the length of the last outage that ended.
func (o *Tracker) Last() time.Duration { return o.last }

// Unreachable tells whether a request's error says that the server could
// not be reached at all: the connection was refused, reset or lost, the
// stream ended early, or no connection could be dialled. Informers then
// back off (a reflector retries a refused watch by itself, with growing
// waits and no error reported), so fresh ones are worth starting once the
// server answers. A request that reached the server and timed out, or was
// refused by it, is not: the server is slow or says no, and informers
// whose watches held are fine.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var op *net.OpError
	return utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err) ||
		utilnet.IsProbableEOF(err) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		(errors.As(err, &op) && op.Op == "dial")
}
