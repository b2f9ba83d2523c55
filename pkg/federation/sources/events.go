package sources

import (
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// EventType is the kind of an informer event.
type EventType int

// The kinds of informer events.
const (
	Added EventType = iota
	Updated
	Deleted
)

// Handler turns every informer event into a call of f with its type, the
// object (unwrapped from a tombstone) and, for an update, the old object.
func Handler(f func(ev EventType, obj, old client.Object)) toolscache.ResourceEventHandlerFuncs {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { call(f, Added, o, nil) },
		UpdateFunc: func(old, o any) { call(f, Updated, o, old) },
		DeleteFunc: func(o any) { call(f, Deleted, o, nil) },
	}
}

func call(f func(EventType, client.Object, client.Object), ev EventType, o, old any) {
	if t, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o = t.Obj
	}
	obj, ok := o.(client.Object)
	if !ok {
		return
	}
	oldObj, _ := old.(client.Object)
	f(ev, obj, oldObj)
}
