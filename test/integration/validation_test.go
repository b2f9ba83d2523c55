package integration

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// sample is one YAML file of testdata/<group>/: valid-* must be accepted,
// invalid-* refused with the text of its "# expect:" line.
type sample struct {
	path   string
	valid  bool
	expect string
	obj    *unstructured.Unstructured
}

func loadSamples(t *testing.T, group string) []sample {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", group, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples in testdata/%s: %v", group, err)
	}
	var out []sample
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := sample{path: f, valid: strings.HasPrefix(filepath.Base(f), "valid-")}
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "# expect:"); ok {
				s.expect = strings.TrimSpace(rest)
			}
		}
		if !s.valid && s.expect == "" {
			t.Fatalf("%s has no '# expect:' line", f)
		}
		s.obj = &unstructured.Unstructured{}
		if err := yaml.Unmarshal(raw, &s.obj.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, s)
	}
	return out
}

// create puts the sample into the test namespace (when the kind is
// namespaced) and deletes it again at the end of the test.
func create(t *testing.T, cl client.Client, ns string, obj *unstructured.Unstructured) error {
	t.Helper()
	namespaced, err := cl.IsObjectNamespaced(obj)
	if err != nil {
		t.Fatalf("%s: is the CRD installed? %v", obj.GetKind(), err)
	}
	if namespaced {
		obj.SetNamespace(ns)
	}
	if err := cl.Create(t.Context(), obj); err != nil {
		return err
	}
	t.Cleanup(func() { _ = cl.Delete(context.WithoutCancel(t.Context()), obj) })
	return nil
}

func TestSamplesAgainstAPIServer(t *testing.T) {
	for _, group := range []string{"federation", "antrea", "cloud", "policy"} {
		t.Run(group, func(t *testing.T) {
			cl := clusters.Client(t, "member-1")
			for _, s := range loadSamples(t, group) {
				t.Run(filepath.Base(s.path), func(t *testing.T) {
					ns := clusters.Namespace(t, "member-1")
					err := create(t, cl, ns, s.obj.DeepCopy())
					switch {
					case s.valid && err != nil:
						t.Fatalf("valid sample refused: %v", err)
					case !s.valid && err == nil:
						t.Fatalf("invalid sample accepted; want an error containing %q", s.expect)
					case !s.valid && !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err):
						t.Fatalf("want an Invalid error, got %v", err)
					case !s.valid && !strings.Contains(err.Error(), s.expect):
						t.Fatalf("error does not say what is wrong:\n got: %v\nwant: ...%s...", err, s.expect)
					}
				})
			}
		})
	}
}
