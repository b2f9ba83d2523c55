package trace

import (
	"errors"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// LiveTrace is a Trace object to create in one member for a live trace:
// the points of one Namespace there on the flow's way.
type LiveTrace struct {
	Member    string
	Namespace string
	Spec      policyv1alpha1.TraceSpec
}

// PlanLive returns the Trace objects of a live trace (Traces, live).
func PlanLive(res Result, protocol policyrules.Protocol, port int32, timeoutSeconds int32) ([]LiveTrace, error) {
	if port == 0 {
		return nil, errors.New("a live trace sends a real flow: give --port")
	}
	return Traces(res, protocol, port, true, timeoutSeconds)
}
