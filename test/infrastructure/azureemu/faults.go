package azureemu

import (
	"net/http"
	"strconv"
	"time"
)

// Fault makes the emulator fail ARM calls.
type Fault struct {
	// Op the fault applies to (e.g. "VirtualMachines.ListAll"); empty
	// applies to every ARM operation.
	Op string
	// Times is how many calls fail; negative fails every call until
	// ClearFaults.
	Times int
	// Status, Code and Message of the ARM error.
	Status  int
	Code    string
	Message string
	// RetryAfter, if set, is sent as retry-after-ms (under a second) or
	// Retry-After in seconds.
	RetryAfter time.Duration
}

func (f *Fault) write(w http.ResponseWriter) {
	switch {
	case f.RetryAfter <= 0:
	case f.RetryAfter < time.Second:
		w.Header().Set("retry-after-ms", strconv.FormatInt(f.RetryAfter.Milliseconds(), 10))
	default:
		w.Header().Set("Retry-After", strconv.Itoa(int(f.RetryAfter/time.Second)))
	}
	writeARMError(w, f.Status, f.Code, f.Message)
}

// InjectFault adds f; faults are tried in the order they were added, after
// authentication.
func (s *Server) InjectFault(f Fault) {
	if f.Times == 0 {
		return
	}
	if f.Status == 0 {
		f.Status = http.StatusInternalServerError
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// Throttle fails the next times calls of op (every operation if empty)
// with HTTP 429 TooManyRequests and the given Retry-After, as ARM's
// subscription read limit does.
func (s *Server) Throttle(op string, times int, retryAfter time.Duration) {
	s.InjectFault(Fault{
		Op: op, Times: times, Status: http.StatusTooManyRequests, Code: "TooManyRequests", RetryAfter: retryAfter,
		Message: "The request is being throttled as the limit has been reached for operation type - Read_ObservationWindow_00:05:00.",
	})
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// HideNewVMs makes every VM added from now on invisible to the next k
// VirtualMachines.ListAll calls (pages included), as ARM's eventual
// consistency does; 0 turns this off.
func (s *Server) HideNewVMs(k int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hideNewFor = k
}

func (s *Server) takeFault(op string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.Op != "" && f.Op != op {
			continue
		}
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return f
	}
	return nil
}
