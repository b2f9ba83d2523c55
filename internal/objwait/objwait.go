// Package objwait follows one object through a watch until a condition
// holds: what a command does after it created an object that a controller
// answers in its status (a Trace, an Antrea Traceflow), without polling.
//
// The watch starts at the object's resourceVersion (the one its create or
// last read returned), so no change after that is missed. A watch that ends
// is taken again after a read; where none can be had (no right to watch),
// the object is read every PollEvery.
//
// # Usage
//
// See ExampleUntil: a command waits for a controller's answer in an
// object's status.
package objwait

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PollEvery is how often Until reads an object it cannot watch.
const PollEvery = 100 * time.Millisecond

// ErrDeleted: the object waited for was deleted.
var ErrDeleted = errors.New("deleted while waited for")

// Until follows obj (updated in place) until done holds, ctx ends (its
// error), or obj is deleted (ErrDeleted). list is an empty list of obj's
// kind, to watch with.
func Until[T client.Object](ctx context.Context, cl client.WithWatch, obj T, list client.ObjectList, done func(T) bool) error {
	for !done(obj) {
		w, err := cl.Watch(ctx, list, client.InNamespace(obj.GetNamespace()),
			&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: obj.GetResourceVersion(),
				FieldSelector: fields.OneTermEqualSelector("metadata.name", obj.GetName()).String()}})
		if err == nil {
			// A server that cannot replay from that version (it was
			// compacted; a fake's watch) would miss a change made before
			// the watch began: one read now that it runs.
			if gerr := cl.Get(ctx, client.ObjectKeyFromObject(obj), obj); gerr == nil && done(obj) {
				w.Stop()
				return nil
			}
			err = follow(ctx, w, obj, done)
			w.Stop()
		}
		switch {
		case err == nil && done(obj):
			return nil
		case errors.Is(err, ErrDeleted):
			return err
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			// No watch, or it failed (its version too old): a pause, then a read.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(PollEvery):
			}
		}
		if err := cl.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case apierrors.IsNotFound(err):
				return ErrDeleted
			}
		}
	}
	return nil
}

// follow copies the watch's versions of the object into obj until done
// holds (nil), the watch ends (nil: the caller reads again), it reports an
// error, or ctx ends.
func follow[T client.Object](ctx context.Context, w watch.Interface, obj T, done func(T) bool) error {
	for {
		var ev watch.Event
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			ev = e
		}
		switch ev.Type {
		case watch.Added, watch.Modified:
			if acc, err := meta.Accessor(ev.Object); err == nil && acc.GetName() != obj.GetName() {
				continue // a server that did not filter by name
			}
			if err := copyInto(ev.Object, obj); err != nil {
				return err
			}
			if done(obj) {
				return nil
			}
		case watch.Deleted:
			if acc, err := meta.Accessor(ev.Object); err == nil && acc.GetName() != obj.GetName() {
				continue
			}
			return ErrDeleted
		case watch.Error:
			return apierrors.FromObject(ev.Object)
		}
	}
}

// copyInto sets obj to the watched object got (of the same kind).
func copyInto[T client.Object](got runtime.Object, obj T) error {
	src, ok := got.(T)
	if !ok {
		acc, err := meta.Accessor(got)
		if err != nil {
			return fmt.Errorf("watch event of %T: %w", got, err)
		}
		return fmt.Errorf("watch event of %T (%s), want %T", got, acc.GetName(), obj)
	}
	// Through the runtime.Object interface: T is a pointer to a generated
	// type, whose DeepCopyInto takes that pointer.
	type deepCopier[P any] interface{ DeepCopyInto(P) }
	if c, ok := any(src).(deepCopier[T]); ok {
		c.DeepCopyInto(obj)
		return nil
	}
	return fmt.Errorf("%T cannot be copied", got)
}
