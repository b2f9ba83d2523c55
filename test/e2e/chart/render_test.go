package chart

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// rendering is the chart rendered with one case's values.
type rendering struct {
	crds, objects []*unstructured.Unstructured
}

// byKind returns the rendered objects of a kind.
func (r *rendering) byKind(kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range r.objects {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// find returns the rendered object of a kind and name, or nil.
func (r *rendering) find(kind, name string) *unstructured.Unstructured {
	for _, o := range r.byKind(kind) {
		if o.GetName() == name {
			return o
		}
	}
	return nil
}

var renderings sync.Map // case name -> *renderOnce

type renderOnce struct {
	sync.Once
	r   *rendering
	err string
}

// render renders the chart with c's values once per package run.
func render(t *testing.T, c chartCase) *rendering {
	t.Helper()
	v, _ := renderings.LoadOrStore(c.name, &renderOnce{})
	ro := v.(*renderOnce) //nolint:forcetypeassert // only renderOnce is stored
	ro.Do(func() {
		out, err := runHelm(t, "template", releaseNamespace, c.values, "--include-crds")
		if err != nil {
			ro.err = err.Error()
			return
		}
		ro.r, err = parse(out)
		if err != nil {
			ro.err = err.Error()
		}
	})
	if ro.err != "" {
		t.Fatalf("helm template (%s): %s", c.name, ro.err)
	}
	return ro.r
}

// runHelm runs `helm <command> antreaplus <chart>` (template, lint, install)
// in namespace with values, and returns its standard output.
func runHelm(t *testing.T, command, namespace string, values map[string]any, extra ...string) ([]byte, error) {
	t.Helper()
	raw, err := yaml.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{command}
	if command != "lint" {
		args = append(args, "antreaplus")
	}
	args = append(args, chartDir(), "--namespace", namespace, "--values", "-") // the values on stdin
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), helm(t), append(args, extra...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(raw), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), &helmError{err: err, output: stdout.String() + stderr.String()}
	}
	return stdout.Bytes(), nil
}

type helmError struct {
	err    error
	output string
}

func (e *helmError) Error() string { return e.err.Error() + ":\n" + e.output }

// parse splits helm's output into CRDs and the other objects.
func parse(out []byte) (*rendering, error) {
	r := &rendering{}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return r, nil
			}
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		o := &unstructured.Unstructured{Object: m}
		if o.GetKind() == "CustomResourceDefinition" {
			r.crds = append(r.crds, o)
		} else {
			r.objects = append(r.objects, o)
		}
	}
}

// into converts a rendered object to its typed form.
func into(t *testing.T, o *unstructured.Unstructured, typed any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, typed); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
}

// rbacFiles reads the chart's files/rbac/*.yaml: the roles by "Kind/name".
func rbacFiles(t *testing.T) map[string]*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(chartDir(), "files", "rbac", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files/rbac/*.yaml in the chart: %v", err)
	}
	out := map[string]*unstructured.Unstructured{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, o := range r.objects {
			key := o.GetKind() + "/" + o.GetName()
			if _, dup := out[key]; dup {
				t.Fatalf("%s is in two files of files/rbac", key)
			}
			out[key] = o
		}
	}
	return out
}

// flagName is the name of a command-line argument such as --v=2 or -conf=x.
func flagName(arg string) (string, bool) {
	if !strings.HasPrefix(arg, "-") {
		return "", false
	}
	name := strings.TrimLeft(arg, "-")
	name, _, _ = strings.Cut(name, "=")
	return name, name != ""
}
