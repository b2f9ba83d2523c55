package install

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime/debug"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/deploy/charts"
)

// ReleaseName is the name of the release `antreaplus install` makes (the
// chart's app.kubernetes.io/instance label).
const ReleaseName = "antreaplus"

// ManagedBy is the app.kubernetes.io/managed-by label of what `antreaplus
// install` applies, and its server-side apply field manager.
const ManagedBy = "antreaplus"

// Labels that mark the objects of the release.
const (
	InstanceLabel  = "app.kubernetes.io/instance"
	ManagedByLabel = "app.kubernetes.io/managed-by"
	PartOfLabel    = "app.kubernetes.io/part-of"
)

// RenderOptions say what to render.
type RenderOptions struct {
	// Values are the values to render with, over the chart's values.yaml
	// (Values builds them from roles and values files).
	Values map[string]any
	// Upgrade renders for an upgrade of an existing release.
	Upgrade bool
	// KubeVersion is the cluster's version (e.g. "v1.34.4"); empty: Helm's
	// default.
	KubeVersion string
	// Chart is the chart's directory; nil: the embedded chart.
	Chart fs.FS
}

// Rendering is a rendered release: its CRDs and its other objects, each in
// the order they are applied (Helm's install order), and the chart's notes.
type Rendering struct {
	ChartVersion string
	AppVersion   string
	CRDs         []*unstructured.Unstructured
	Objects      []*unstructured.Unstructured
	Notes        string
}

// All is the CRDs then the objects.
func (r *Rendering) All() []*unstructured.Unstructured {
	return append(slices.Clone(r.CRDs), r.Objects...)
}

// Render renders the chart as Helm would for a release named ReleaseName in
// the namespace antreaplus-system, with managed-by "antreaplus". The
// chart's own checks (a bad value, a missing Secret name) fail it with the
// chart's message.
func Render(opts RenderOptions) (*Rendering, error) {
	dir := opts.Chart
	if dir == nil {
		dir = charts.Antreaplus()
	}
	chrt, err := loadChart(dir)
	if err != nil {
		return nil, fmt.Errorf("loading the chart: %w", err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	kubeVersion := opts.KubeVersion
	if kubeVersion == "" {
		kubeVersion = libraryKubeVersion()
	}
	v, err := chartutil.ParseKubeVersion(kubeVersion)
	if err != nil {
		return nil, fmt.Errorf("the cluster's version %q: %w", kubeVersion, err)
	}
	caps.KubeVersion = *v
	if chrt.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(chrt.Metadata.KubeVersion, caps.KubeVersion.String()) {
		return nil, fmt.Errorf("the chart needs Kubernetes %s; the cluster runs %s", chrt.Metadata.KubeVersion, caps.KubeVersion.String())
	}
	top, err := chartutil.ToRenderValues(chrt, opts.Values, chartutil.ReleaseOptions{
		Name: ReleaseName, Namespace: federationv1alpha1.SystemNamespace, Revision: 1, IsInstall: !opts.Upgrade, IsUpgrade: opts.Upgrade,
	}, caps)
	if err != nil {
		return nil, fmt.Errorf("the values: %w", err)
	}
	release, _ := top["Release"].(map[string]any)
	release["Service"] = ManagedBy
	files, err := engine.Render(chrt, top)
	if err != nil {
		return nil, fmt.Errorf("rendering the chart: %w", chartError(err))
	}
	r := &Rendering{ChartVersion: chrt.Metadata.Version, AppVersion: chrt.Metadata.AppVersion}
	manifests := map[string]string{}
	for name, body := range files {
		switch {
		case strings.HasSuffix(name, "NOTES.txt"):
			r.Notes = strings.TrimSpace(body)
		case path.Ext(name) == ".yaml" || path.Ext(name) == ".yml":
			manifests[name] = body
		}
	}
	_, sorted, err := releaseutil.SortManifests(manifests, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, fmt.Errorf("reading the rendered manifests: %w", err)
	}
	for _, m := range sorted {
		o, err := decode(m.Name, []byte(m.Content))
		if err != nil {
			return nil, err
		}
		if o.GetNamespace() == "" && namespaced(o.GetKind()) {
			o.SetNamespace(federationv1alpha1.SystemNamespace)
		}
		r.Objects = append(r.Objects, o)
	}
	for _, crd := range chrt.CRDObjects() {
		for _, doc := range releaseutil.SplitManifests(string(crd.File.Data)) {
			o, err := decode(crd.Filename, []byte(doc))
			if err != nil {
				return nil, err
			}
			if o != nil {
				r.CRDs = append(r.CRDs, o)
			}
		}
	}
	r.Objects = slices.DeleteFunc(r.Objects, func(o *unstructured.Unstructured) bool { return o == nil })
	slices.SortStableFunc(r.CRDs, func(a, b *unstructured.Unstructured) int { return strings.Compare(a.GetName(), b.GetName()) })
	return r, nil
}

// loadChart reads every file of the chart directory.
func loadChart(dir fs.FS) (*chart.Chart, error) {
	var files []*loader.BufferedFile
	err := fs.WalkDir(dir, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(dir, p)
		if err != nil {
			return err
		}
		files = append(files, &loader.BufferedFile{Name: p, Data: data})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return loader.LoadFiles(files)
}

// decode reads one manifest; an empty document is nil.
func decode(source string, doc []byte) (*unstructured.Unstructured, error) {
	var m map[string]any
	if err := yaml.Unmarshal(doc, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if len(m) == 0 {
		return nil, nil
	}
	o := &unstructured.Unstructured{Object: m}
	if o.GetKind() == "" || o.GetAPIVersion() == "" || o.GetName() == "" {
		return nil, fmt.Errorf("%s: an object without apiVersion, kind or name", source)
	}
	return o, nil
}

// clusterScoped are the kinds the chart renders without a namespace.
var clusterScoped = map[string]bool{
	"ClusterRole": true, "ClusterRoleBinding": true, "CustomResourceDefinition": true, "Namespace": true, "FlowSchema": true,
}

func namespaced(kind string) bool { return !clusterScoped[kind] }

// chartError shortens Helm's message of a fail in the chart ("execution
// error at (antreaplus/templates/validate.yaml:2:4): <message>") to the
// chart's message, which says what to change.
func chartError(err error) error {
	msg := err.Error()
	if i := strings.LastIndex(msg, "): "); i >= 0 && strings.Contains(msg, "execution error at (") {
		return errors.New(msg[i+3:])
	}
	return err
}

// libraryKubeVersion is the Kubernetes version of the client libraries this
// program is built with (client-go v0.34.4: v1.34.4), what a render for no
// cluster in particular assumes.
func libraryKubeVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "k8s.io/client-go" && strings.HasPrefix(d.Version, "v0.") {
				return "v1." + strings.TrimPrefix(d.Version, "v0.")
			}
		}
	}
	return "v1.34.0"
}
