package trace

import (
	"errors"
	"strings"

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

// PlanLive returns the Trace objects that observe the computed trace's
// enforcement points: one per member and Namespace, the one that watches
// the destination's ingress first (its agent must watch before the
// source's agent sends). It errors when nothing can be observed.
func PlanLive(res Result, protocol policyrules.Protocol, port int32, timeoutSeconds int32) ([]LiveTrace, error) {
	if port == 0 {
		return nil, errors.New("a live trace sends a real flow: give --port")
	}
	if !res.Source.IsValid() || !res.Destination.IsValid() {
		return nil, errors.New("the flow has no addresses to send between (see the packet's step)")
	}
	var out []LiveTrace
	find := func(member, ns string) *LiveTrace {
		for i := range out {
			if out[i].Member == member && out[i].Namespace == ns {
				return &out[i]
			}
		}
		out = append(out, LiveTrace{Member: member, Namespace: ns, Spec: policyv1alpha1.TraceSpec{
			Protocol: string(protocol), Port: port, Live: true, TimeoutSeconds: timeoutSeconds,
			Source:      policyv1alpha1.TraceEnd{Address: res.Source.String()},
			Destination: policyv1alpha1.TraceEnd{Address: res.Destination.String()},
		}})
		return &out[len(out)-1]
	}
	for _, s := range res.Steps {
		if (s.Kind != StepEgress && s.Kind != StepIngress) || s.Point == "" {
			continue
		}
		ns, name, ok := strings.Cut(s.Point, "/")
		if !ok {
			continue
		}
		lt := find(s.Member, ns)
		if s.Kind == StepEgress {
			lt.Spec.Source.ExternalEntity = name
		} else {
			lt.Spec.Destination.ExternalEntity = name
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no enforcement point of this federation is on the way: nothing to observe")
	}
	// Watchers first.
	for i := range out {
		if out[i].Spec.Destination.ExternalEntity != "" && i > 0 {
			out[0], out[i] = out[i], out[0]
			break
		}
	}
	return out, nil
}
