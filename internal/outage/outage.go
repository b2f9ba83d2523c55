package outage

import "time"

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
