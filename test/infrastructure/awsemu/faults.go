package awsemu

import "net/http"

// Fault makes the emulator fail calls with an EC2 error.
type Fault struct {
	// Action the fault applies to; empty applies to every action.
	Action string
	// Times is how many calls fail; a negative value fails every call until
	// ClearFaults.
	Times int
	// Code, Message and Status of the error response.
	Code    string
	Message string
	Status  int
	// Body, if set, is sent as is (text/html) with Status instead of the
	// service's error document: what a proxy or a third-party endpoint
	// may answer, whose error code the SDK cannot read.
	Body string
	// kind marks throttling and auth faults, which each service answers
	// with its own code.
	kind faultKind
}

type faultKind int

const (
	faultPlain faultKind = iota
	faultThrottle
	faultAuth
)

func (f *Fault) apiError() *apiError {
	return &apiError{status: f.Status, code: f.Code, message: f.Message}
}

// InjectFault adds f; faults are tried in the order they were added, after
// authentication, so a throttled call is still a well-signed call.
func (s *Server) InjectFault(f Fault) {
	if f.Times == 0 {
		return
	}
	if f.Status == 0 {
		f.Status = http.StatusBadRequest
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// Throttle fails the next times calls of action (every action if empty)
// with RequestLimitExceeded and HTTP 503, as EC2 throttles; ELBv2, RDS and
// STS calls get Throttling (HTTP 400), as those services throttle.
func (s *Server) Throttle(action string, times int) {
	s.InjectFault(Fault{
		kind:    faultThrottle,
		Action:  action,
		Times:   times,
		Code:    "RequestLimitExceeded",
		Message: "Request limit exceeded.",
		Status:  http.StatusServiceUnavailable,
	})
}

// FailAuth fails the next times calls with AuthFailure, as EC2 does when
// credentials are revoked (InvalidClientTokenId for ELBv2, RDS and STS).
func (s *Server) FailAuth(times int) {
	e := errAuthFailure()
	s.InjectFault(Fault{Times: times, Code: e.code, Message: e.message, Status: e.status, kind: faultAuth})
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// HideNewInstances makes every instance added from now on invisible to the
// next k DescribeInstances calls of its region, as EC2's eventual
// consistency does; 0 turns this off.
func (s *Server) HideNewInstances(k int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hideNewFor = k
}

// takeFault returns the first fault that applies to action and uses one of
// its times. s.mu must be held.
func (s *Server) takeFault(action string) *Fault {
	for i, f := range s.faults {
		if f.Action != "" && f.Action != action {
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
