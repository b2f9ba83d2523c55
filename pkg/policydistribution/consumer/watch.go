package consumer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// Handler is told about every new View, in order, with the event that
// made it. It runs on the watch's goroutine: a slow handler delays reading
// the stream, so hand long work (applying rules) to another goroutine.
type Handler func(view *wire.View, ev *wire.Event)

// ConnectionHandler is told when a watch stream is established (err nil)
// and when one ends or cannot be established.
type ConnectionHandler func(err error)

// Watch follows the client's scope until ctx ends, starting from view
// (nil: from scratch). It reconnects after every failure, with jittered
// exponential backoff, and resumes from the last generation it received;
// when the server cannot resume (another epoch, a gap) it sends a Sync,
// and when an event does not follow the view the client asks for one.
// onConnection may be nil.
func (c *Client) Watch(ctx context.Context, view *wire.View, handle Handler, onConnection ConnectionHandler) error {
	if onConnection == nil {
		onConnection = func(error) {}
	}
	cur := cursorOf(view)
	backoff := c.opts.MinBackoff
	for {
		delivered, err := c.watchOnce(ctx, &view, &cur, handle, onConnection)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, wire.ErrResync) {
			cur = cursor{}
		}
		if delivered {
			backoff = c.opts.MinBackoff
		}
		onConnection(err)
		wait := backoff/2 + rand.N(backoff/2+1)
		c.opts.Log.Info("Watch interrupted; keeping the rules in force", "error", err, "retryIn", wait.Round(time.Millisecond),
			"epoch", cur.epoch, "generation", cur.generation)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		backoff = min(backoff*2, c.opts.MaxBackoff)
	}
}

// cursor is where a watch resumes from.
type cursor struct {
	scope      string
	epoch      string
	generation uint64
}

func cursorOf(v *wire.View) cursor {
	if v == nil {
		return cursor{}
	}
	return cursor{scope: v.Scope, epoch: v.Epoch, generation: v.Generation}
}

// watchOnce runs one watch stream until it fails. delivered is true when
// the stream carried at least one event.
func (c *Client) watchOnce(ctx context.Context, view **wire.View, cur *cursor, handle Handler, onConnection ConnectionHandler) (delivered bool, err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	errSilent := fmt.Errorf("no event for %s: the stream is dead", c.opts.HeartbeatTimeout)
	watchdog := time.AfterFunc(c.opts.HeartbeatTimeout, func() { cancel(errSilent) })
	defer watchdog.Stop()
	resp, err := c.do(ctx, http.MethodGet, wire.PathWatch, watchQuery(*cur), nil)
	if err != nil {
		return false, err
	}
	defer func() { _ = resp.Body.Close() }()
	dec := json.NewDecoder(resp.Body)
	for {
		var ev wire.Event
		if err := dec.Decode(&ev); err != nil {
			if cause := context.Cause(ctx); cause != nil {
				return delivered, cause
			}
			return delivered, fmt.Errorf("reading the watch stream: %w", err)
		}
		watchdog.Reset(c.opts.HeartbeatTimeout)
		if !delivered {
			onConnection(nil)
		}
		delivered = true
		if ev.Type == wire.EventBookmark {
			if ev.Epoch != cur.epoch {
				return delivered, fmt.Errorf("%w: bookmark of epoch %s, resumed from %s", wire.ErrResync, ev.Epoch, cur.epoch)
			}
			cur.generation = max(cur.generation, ev.Generation)
			continue
		}
		next, err := (*view).Apply(&ev)
		if err != nil {
			return delivered, err
		}
		*view = next
		*cur = cursorOf(next)
		handle(next, &ev)
	}
}
