package apiwrites

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// countingClient counts the writes of the client it embeds.
type countingClient struct {
	client.Client
	counter *Counter
}

func (c *countingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.counter.add("create", c.Scheme(), obj)
	return c.Client.Create(ctx, obj, opts...)
}

func (c *countingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.counter.add("update", c.Scheme(), obj)
	return c.Client.Update(ctx, obj, opts...)
}

func (c *countingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.counter.add("patch", c.Scheme(), obj)
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func (c *countingClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	c.counter.add("apply", c.Scheme(), nil)
	return c.Client.Apply(ctx, obj, opts...)
}

func (c *countingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.counter.add("delete", c.Scheme(), obj)
	return c.Client.Delete(ctx, obj, opts...)
}

func (c *countingClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	c.counter.add("deletecollection", c.Scheme(), obj)
	return c.Client.DeleteAllOf(ctx, obj, opts...)
}

func (c *countingClient) Status() client.SubResourceWriter { return c.SubResource("status") }

func (c *countingClient) SubResource(name string) client.SubResourceClient {
	return &countingSubResource{SubResourceClient: c.Client.SubResource(name), name: name, parent: c}
}

// countingSubResource counts the writes to a subresource.
type countingSubResource struct {
	client.SubResourceClient
	name   string
	parent *countingClient
}

func (s *countingSubResource) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	s.parent.counter.add("create/"+s.name, s.parent.Scheme(), obj)
	return s.SubResourceClient.Create(ctx, obj, sub, opts...)
}

func (s *countingSubResource) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.parent.counter.add("update/"+s.name, s.parent.Scheme(), obj)
	return s.SubResourceClient.Update(ctx, obj, opts...)
}

func (s *countingSubResource) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.parent.counter.add("patch/"+s.name, s.parent.Scheme(), obj)
	return s.SubResourceClient.Patch(ctx, obj, patch, opts...)
}
