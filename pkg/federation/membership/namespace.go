package membership

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// objectRef names one object found in a namespace.
type objectRef struct {
	Resource string // e.g. "configmaps" or "deployments.apps"
	Name     string
	Deleting bool
}

// ignoredRefs are created by Kubernetes in every namespace.
var ignoredRefs = []objectRef{
	{Resource: "configmaps", Name: "kube-root-ca.crt"},
	{Resource: "serviceaccounts", Name: "default"},
}

// leftovers are the objects that keep a namespace from being empty: not
// those Kubernetes puts in every namespace, not events, not those already
// being deleted.
func leftovers(refs []objectRef) []string {
	var out []string
	for _, ref := range refs {
		plain := objectRef{Resource: ref.Resource, Name: ref.Name}
		if ref.Deleting || slices.Contains(ignoredRefs, plain) || isEvents(ref.Resource) {
			continue
		}
		out = append(out, ref.Resource+"/"+ref.Name)
	}
	slices.Sort(out)
	return out
}

func isEvents(resource string) bool {
	return resource == "events" || resource == "events.events.k8s.io"
}

// namespaceContents lists every object of every listable namespaced type
// in the namespace and returns the leftovers.
func namespaceContents(ctx context.Context, cfg *rest.Config, namespace string) ([]string, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{} // listing deprecated types (v1 Endpoints) is expected here
	cfg.QPS, cfg.Burst = 100, 200          // one list per type: dozens of small requests at once
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	lists, err := dc.ServerPreferredNamespacedResources()
	if err != nil && len(lists) == 0 {
		return nil, fmt.Errorf("discovering the namespaced resources: %w", err)
	}
	mc, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	var refs []objectRef
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, res := range list.APIResources {
			if strings.Contains(res.Name, "/") || !slices.Contains(res.Verbs, "list") || isEvents(qualified(gv.Group, res.Name)) {
				continue
			}
			items, err := mc.Resource(gv.WithResource(res.Name)).Namespace(namespace).List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, fmt.Errorf("listing %s in %s: %w", qualified(gv.Group, res.Name), namespace, err)
			}
			for _, it := range items.Items {
				refs = append(refs, objectRef{Resource: qualified(gv.Group, res.Name), Name: it.Name, Deleting: it.DeletionTimestamp != nil})
			}
		}
	}
	return leftovers(refs), nil
}

func qualified(group, resource string) string {
	if group == "" {
		return resource
	}
	return resource + "." + group
}
