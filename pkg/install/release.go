package install

import (
	"context"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// ReleaseConfigMap is the ConfigMap, in the namespace antreaplus-system,
// that records the release: what Upgrade reuses, and how Install knows
// that the cluster has one.
const ReleaseConfigMap = "antreaplus-release"

// Release is the record of the release installed in a cluster.
type Release struct {
	// Roles are the roles the release runs.
	Roles []Role
	// Values are the values given (files and Options.Values merged),
	// without the roles' switches (<role>.enabled), which Roles holds.
	Values       map[string]any
	ChartVersion string
	AppVersion   string
	// Revision counts the installs and upgrades: 1 after Install.
	Revision int
	// Time is when the revision was applied.
	Time time.Time
}

// The keys of the release ConfigMap's data.
const (
	keyRoles        = "roles"
	keyValues       = "values.yaml"
	keyChartVersion = "chartVersion"
	keyAppVersion   = "appVersion"
	keyRevision     = "revision"
	keyTime         = "time"
)

// releaseLabels are the labels of the namespace and of the release
// ConfigMap: those of the chart's objects, so that one selector finds all
// that the release made.
func releaseLabels() map[string]string {
	return map[string]string{InstanceLabel: ReleaseName, ManagedByLabel: ManagedBy, PartOfLabel: "antreaplus"}
}

// configMap is the release ConfigMap recording r.
func (r *Release) configMap() (*corev1.ConfigMap, error) {
	values, err := yaml.Marshal(r.Values)
	if err != nil {
		return nil, fmt.Errorf("encoding the values of the release: %w", err)
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: ReleaseConfigMap, Namespace: federationv1alpha1.SystemNamespace, Labels: releaseLabels()},
		Data: map[string]string{
			keyRoles:        RoleList(r.Roles),
			keyValues:       string(values),
			keyChartVersion: r.ChartVersion,
			keyAppVersion:   r.AppVersion,
			keyRevision:     strconv.Itoa(r.Revision),
			keyTime:         r.Time.UTC().Format(time.RFC3339),
		},
	}, nil
}

// releaseFrom reads the record of a release ConfigMap.
func releaseFrom(cm *corev1.ConfigMap) (*Release, error) {
	bad := func(what string, err error) error {
		return fmt.Errorf("ConfigMap %s/%s, the record of the release, has a bad %s (%w): delete it and install again with the roles and values you want",
			cm.Namespace, cm.Name, what, err)
	}
	r := &Release{ChartVersion: cm.Data[keyChartVersion], AppVersion: cm.Data[keyAppVersion], Values: map[string]any{}}
	var err error
	if r.Roles, err = ParseRoles([]string{cm.Data[keyRoles]}); err != nil {
		return nil, bad(keyRoles, err)
	}
	if err := yaml.Unmarshal([]byte(cm.Data[keyValues]), &r.Values); err != nil {
		return nil, bad(keyValues, err)
	}
	if r.Values == nil { // "null": no values given
		r.Values = map[string]any{}
	}
	if r.Revision, err = strconv.Atoi(cm.Data[keyRevision]); err != nil {
		return nil, bad(keyRevision, err)
	}
	if r.Time, err = time.Parse(time.RFC3339, cm.Data[keyTime]); err != nil {
		return nil, bad(keyTime, err)
	}
	return r, nil
}

// releaseObject is the release ConfigMap as an object to find or delete.
func releaseObject() *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	o.SetAPIVersion("v1")
	o.SetKind("ConfigMap")
	o.SetNamespace(federationv1alpha1.SystemNamespace)
	o.SetName(ReleaseConfigMap)
	return o
}

// ReadRelease returns the record of the release installed in the cluster;
// nil when it has none.
func ReadRelease(ctx context.Context, cfg *rest.Config) (*Release, error) {
	c, err := connect(cfg)
	if err != nil {
		return nil, err
	}
	return c.release(ctx)
}

// release reads the release ConfigMap; nil when there is none.
func (c *cluster) release(ctx context.Context) (*Release, error) {
	u, err := c.get(ctx, releaseObject())
	if err != nil || u == nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, cm); err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", federationv1alpha1.SystemNamespace, ReleaseConfigMap, err)
	}
	return releaseFrom(cm)
}

// record writes the release ConfigMap.
func (c *cluster) record(ctx context.Context, r *Release) error {
	cm, err := r.configMap()
	if err != nil {
		return err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cm)
	if err != nil {
		return fmt.Errorf("encoding ConfigMap %s/%s: %w", federationv1alpha1.SystemNamespace, ReleaseConfigMap, err)
	}
	if _, err := c.apply(ctx, &unstructured.Unstructured{Object: m}); err != nil {
		return fmt.Errorf("recording the release (revision %d): %w", r.Revision, err)
	}
	return nil
}
