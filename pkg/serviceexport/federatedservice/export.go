package federatedservice

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// ExportOptions shape an export.
type ExportOptions struct {
	// FlatNetwork declares the Service's Pods routable from every member:
	// the export then contributes Pod IPs.
	FlatNetwork bool
	// Network names the network the exported addresses are private in
	// (a Network's name, such as aws.vpc-0a1b, for Pods in a VPC): members
	// use them only where that network is flat-connected. Empty: the
	// exporting cluster's own network.
	Network string
	// To limits the members the export reaches to those whose registry
	// labels this selector matches (kubectl syntax: region=eu,tier!=test).
	To string
	// ToClusters limits the members it reaches to these ClusterIDs; with
	// To, a member in either is reached.
	ToClusters []string
	// ToAll removes a scope: every member is reached. With none of To,
	// ToClusters and ToAll, an existing export keeps its scope (a re-export
	// never widens one by omission).
	ToAll bool
}

// scopeSet tells whether opts say anything of the export's scope.
func (opts ExportOptions) scopeSet() bool {
	return opts.To != "" || len(opts.ToClusters) > 0 || opts.ToAll
}

// validateScope checks the scope options before anything is written.
func (opts ExportOptions) validateScope() error {
	if opts.ToAll && (opts.To != "" || len(opts.ToClusters) > 0) {
		return errors.New("--to-all exports to every member: give it without --to and --to-clusters")
	}
	if opts.To != "" {
		if _, err := exportscope.ParseSelector(opts.To); err != nil {
			return fmt.Errorf("--to: %w", err)
		}
	}
	if len(opts.ToClusters) > 0 {
		if _, err := exportscope.ParseClusterIDs(strings.Join(opts.ToClusters, ",")); err != nil {
			return fmt.Errorf("--to-clusters: %w", err)
		}
	}
	return nil
}

// annotations are what opts set on a ServiceExport.
func (opts ExportOptions) annotations() map[string]string {
	out := map[string]string{}
	if opts.FlatNetwork {
		out[federationv1alpha1.AnnotationFlatNetwork] = "true"
	}
	if opts.Network != "" {
		out[federationv1alpha1.AnnotationNetwork] = opts.Network
	}
	if opts.To != "" {
		out[federationv1alpha1.AnnotationExportToSelector] = opts.To
	}
	if len(opts.ToClusters) > 0 {
		ids, _ := exportscope.ParseClusterIDs(strings.Join(opts.ToClusters, ","))
		out[federationv1alpha1.AnnotationExportToClusters] = strings.Join(ids, ",")
	}
	return out
}

// managedAnnotations are the annotations a re-export makes what opts say.
func (opts ExportOptions) managedAnnotations() []string {
	out := []string{federationv1alpha1.AnnotationFlatNetwork, federationv1alpha1.AnnotationNetwork}
	if opts.scopeSet() {
		out = append(out, federationv1alpha1.AnnotationExportToSelector, federationv1alpha1.AnnotationExportToClusters)
	}
	return out
}

func newClient(cfg *rest.Config) (client.Client, error) {
	s, err := scheme.New()
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: s})
}

// Export creates the ServiceExport of ns/name, or updates its flat-network
// annotation when it exists. It returns whether it created the export.
func Export(ctx context.Context, cfg *rest.Config, ns, name string, opts ExportOptions) (bool, error) {
	c, err := newClient(cfg)
	if err != nil {
		return false, err
	}
	if opts.Network != "" && serviceexport.ExportNetwork(map[string]string{federationv1alpha1.AnnotationNetwork: opts.Network}) == "" {
		return false, fmt.Errorf("--network %q is not a network's name: a DNS subdomain of at most 63 characters, such as aws.vpc-0a1b2c3d", opts.Network)
	}
	if err := opts.validateScope(); err != nil {
		return false, err
	}
	want := opts.annotations()
	exp := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: want}}
	err = c.Create(ctx, exp)
	if err == nil {
		return true, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return false, fmt.Errorf("creating ServiceExport %s/%s: %w", ns, name, hint(err, ns))
	}
	have := &mcsv1beta1.ServiceExport{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(exp), have); err != nil {
		return false, fmt.Errorf("reading ServiceExport %s/%s: %w", ns, name, err)
	}
	changed := false
	for _, k := range opts.managedAnnotations() {
		v, ok := want[k]
		switch {
		case ok && have.Annotations[k] != v:
			metav1.SetMetaDataAnnotation(&have.ObjectMeta, k, v)
			changed = true
		case !ok && have.Annotations[k] != "":
			delete(have.Annotations, k)
			changed = true
		}
	}
	if !changed {
		return false, nil
	}
	if err := c.Update(ctx, have); err != nil {
		return false, fmt.Errorf("updating ServiceExport %s/%s: %w", ns, name, err)
	}
	return false, nil
}

// Unexport deletes the ServiceExport of ns/name; it returns false when there was none.
func Unexport(ctx context.Context, cfg *rest.Config, ns, name string) (bool, error) {
	c, err := newClient(cfg)
	if err != nil {
		return false, err
	}
	err = c.Delete(ctx, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("deleting ServiceExport %s/%s: %w", ns, name, err)
	}
	return true, nil
}

// WaitForConditions waits until the member controller has judged the
// export (Valid and Ready set for its current generation) and returns its
// conditions; at the timeout it returns what is there.
func WaitForConditions(ctx context.Context, cfg *rest.Config, ns, name string, timeout time.Duration) ([]metav1.Condition, error) {
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	var judgedAt time.Time
	for {
		exp := &mcsv1beta1.ServiceExport{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, exp); err != nil {
			return nil, fmt.Errorf("reading ServiceExport %s/%s: %w", ns, name, err)
		}
		valid := meta.FindStatusCondition(exp.Status.Conditions, string(mcsv1beta1.ServiceExportConditionValid))
		ready := meta.FindStatusCondition(exp.Status.Conditions, string(mcsv1beta1.ServiceExportConditionReady))
		judged := valid != nil && ready != nil && valid.ObservedGeneration == exp.Generation
		if judged && judgedAt.IsZero() {
			judgedAt = time.Now()
		}
		// Where it went (Exported) is the leader's, written a moment after
		// the member controller's verdict: given a little longer.
		scope, scopeErr := exportscope.FromAnnotations(exp.Annotations)
		c := meta.FindStatusCondition(exp.Status.Conditions, federationv1alpha1.ConditionExported)
		placed := c != nil && exportscope.Describes(*c, scope, scopeErr)
		if judged && (placed || time.Since(judgedAt) > exportedWait) || time.Now().After(deadline) {
			return exp.Status.Conditions, nil
		}
		select {
		case <-ctx.Done():
			return exp.Status.Conditions, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// exportedWait is how long WaitForConditions waits for the leader's
// Exported condition once the member controller has judged the export.
const exportedWait = 5 * time.Second

func hint(err error, ns string) error {
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%w (does namespace %s exist, and does the cluster serve the Multi-Cluster Services CRDs, serviceexports.multicluster.x-k8s.io? the sandbox installs them)", err, ns)
	}
	return err
}
