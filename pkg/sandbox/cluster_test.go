package sandbox

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestKwokctlConfig: the configuration kwokctl creates a cluster from is
// documents it reads; a full member's asks its kwok controller for one Pod
// stage at a time, a light member has no kwok controller to ask.
func TestKwokctlConfig(t *testing.T) {
	plans, err := Plan(1, 16443)
	if err != nil {
		t.Fatal(err)
	}
	for _, light := range []bool{false, true} {
		var kinds []string
		parallelism := -1
		for _, doc := range strings.Split(string(kwokctlConfig(plans[0], light)), "\n---\n") {
			var d struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Options    struct {
					PodPlayStageParallelism *int `json:"podPlayStageParallelism"`
				} `json:"options"`
			}
			if err := yaml.Unmarshal([]byte(doc), &d); err != nil {
				t.Fatalf("light=%v: a document does not parse: %v\n%s", light, err, doc)
			}
			if d.APIVersion != "config.kwok.x-k8s.io/v1alpha1" {
				t.Errorf("light=%v: a %s document of apiVersion %q", light, d.Kind, d.APIVersion)
			}
			kinds = append(kinds, d.Kind)
			if d.Kind == "KwokConfiguration" && d.Options.PodPlayStageParallelism != nil {
				parallelism = *d.Options.PodPlayStageParallelism
			}
		}
		want, wantParallelism := "KwokctlConfiguration KwokConfiguration", 1
		if light {
			want, wantParallelism = "KwokctlConfiguration", -1
		}
		if got := strings.Join(kinds, " "); got != want {
			t.Errorf("light=%v: documents %q, want %q", light, got, want)
		}
		if parallelism != wantParallelism {
			t.Errorf("light=%v: podPlayStageParallelism %d, want %d (-1: none)", light, parallelism, wantParallelism)
		}
	}
}
