package membercontroller

import (
	"context"
	"errors"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// current reads through the cache of the manager that runs now: the
// controllers' metrics collectors, registered once per process, read it.
var current currentReader

// currentReader reads through the current manager's cache.
type currentReader struct {
	mu sync.Mutex
	r  client.Reader
}

func (c *currentReader) set(r client.Reader) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.r = r
}

func (c *currentReader) get() (client.Reader, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.r == nil {
		return nil, errors.New("the member controller has not started its cache yet")
	}
	return c.r, nil
}

func (c *currentReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r, err := c.get()
	if err != nil {
		return err
	}
	return r.Get(ctx, key, obj, opts...)
}

func (c *currentReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	r, err := c.get()
	if err != nil {
		return err
	}
	return r.List(ctx, list, opts...)
}
