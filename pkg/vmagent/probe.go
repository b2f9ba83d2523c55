package vmagent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
	"time"

	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Tracer is a Firewall that can follow packets through its rules (live
// trace); NFTables is one.
type Tracer interface {
	Trace(ctx context.Context, m TraceMatch, during func(context.Context) error) (wire.Observation, error)
}

// maxProbeSeconds bounds what a probe may ask of an agent.
const maxProbeSeconds = 30

// probeLoop takes the live probes the server asks of this agent and
// answers each. A server that does not offer probes (an older one) is
// asked again every ten retry intervals.
func (a *Agent) probeLoop(ctx context.Context) {
	for ctx.Err() == nil {
		reqs, err := a.opts.Client.Probes(ctx)
		if err != nil {
			wait := a.opts.RetryInterval
			var se *consumer.StatusError
			if errors.As(err, &se) && se.Code == 404 {
				wait *= 10
			}
			a.opts.Log.V(1).Info("Taking probes failed; retrying", "error", err, "in", wait)
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
			continue
		}
		for _, req := range reqs {
			go func() {
				res := a.Probe(ctx, req)
				if err := a.opts.Client.ProbeResult(ctx, res); err != nil {
					a.opts.Log.Error(err, "Answering a probe", "probe", req.ID)
				}
			}()
		}
	}
}

// Probe takes part in a live trace: Send sends the flow and traces it
// through the egress rules; Watch traces the flow arriving through the
// ingress rules for req.Seconds, or until one packet is decided.
func (a *Agent) Probe(ctx context.Context, req wire.ProbeRequest) wire.ProbeResult {
	res := wire.ProbeResult{ID: req.ID}
	tracer, ok := a.opts.Firewall.(Tracer)
	if !ok {
		res.Error = "this agent's firewall cannot trace packets"
		return res
	}
	if err := validProbe(req); err != nil {
		res.Error = err.Error()
		return res
	}
	window := time.Duration(req.Seconds) * time.Second
	m := TraceMatch{Protocol: req.Protocol, Port: req.Port, Peer: req.Peer}
	var during func(context.Context) error
	switch req.Role {
	case wire.ProbeSend:
		m.Direction = policyrules.DirectionEgress
		decided := make(chan struct{})
		m.OnDecided = func() { close(decided) }
		during = func(ctx context.Context) error {
			res.Connected, res.Refused = a.send(ctx, req, window, decided)
			return nil
		}
	case wire.ProbeWatch:
		m.Direction, m.UntilDecided = policyrules.DirectionIngress, true
		during = func(ctx context.Context) error {
			select {
			case <-ctx.Done():
			case <-time.After(window):
			}
			return nil
		}
	}
	obs, err := tracer.Trace(ctx, m, during)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Observation = obs
	a.opts.Log.Info("Traced a probe", "probe", req.ID, "role", req.Role, "verdict", obs.Verdict, "rule", obs.Rule, "note", obs.Note)
	return res
}

func validProbe(req wire.ProbeRequest) error {
	switch {
	case req.Role != wire.ProbeSend && req.Role != wire.ProbeWatch:
		return fmt.Errorf("unknown probe role %q (want %s or %s)", req.Role, wire.ProbeSend, wire.ProbeWatch)
	case req.Port < 1 || req.Port > 65535:
		return fmt.Errorf("probe port %d is not a port", req.Port)
	case req.Seconds < 1 || req.Seconds > maxProbeSeconds:
		return fmt.Errorf("probe window %d s is not within 1..%d", req.Seconds, maxProbeSeconds)
	case req.Role == wire.ProbeSend && !req.Peer.IsValid():
		return errors.New("a Send probe needs the peer's address")
	}
	if _, ok := ipProtocol(req.Protocol); !ok {
		return fmt.Errorf("a probe is TCP, UDP or SCTP, not %q", req.Protocol)
	}
	return nil
}

// answerGrace is how long a probe's TCP connection waits for its answer
// once its first packet passed the agent's egress rules: two SYNs (the
// kernel resends the first after 1 s) on any real path. A flow dropped
// further on, at the destination's ingress, is then known in seconds, not
// at the end of the window.
const answerGrace = 3 * time.Second

// send sends the probe's flow: a TCP connection (closed once answered), or
// one UDP datagram. connected: the peer answered (within the window, and
// within answerGrace of decided: the first packet decided by the egress
// rules); refused: it (or a Reject on the way) refused.
func (a *Agent) send(ctx context.Context, req wire.ProbeRequest, window time.Duration, decided <-chan struct{}) (connected, refused bool) {
	network := "tcp"
	switch req.Protocol {
	case policyrules.ProtocolUDP:
		network = "udp"
	case policyrules.ProtocolSCTP:
		// The standard library has no SCTP: a trace of the egress rules
		// needs a packet, and a raw socket is not worth it here.
		return false, false
	}
	ctx, cancel := context.WithTimeout(ctx, window)
	defer cancel()
	go func() {
		select {
		case <-decided:
		case <-ctx.Done():
			return
		}
		select {
		case <-time.After(answerGrace):
			cancel()
		case <-ctx.Done():
		}
	}()
	addr := net.JoinHostPort(req.Peer.Unmap().String(), strconv.Itoa(int(req.Port)))
	conn, err := a.opts.Dial(ctx, network, addr)
	if err != nil {
		return false, errors.Is(err, syscall.ECONNREFUSED)
	}
	defer func() { _ = conn.Close() }()
	if network == "udp" {
		_, _ = conn.Write([]byte("antreaplus live trace probe"))
		return false, false
	}
	return true, false
}
