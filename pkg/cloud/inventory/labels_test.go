package inventory

import (
	"maps"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestTagLabels(t *testing.T) {
	long := strings.Repeat("x", 70)
	for _, tc := range []struct {
		name        string
		tags        map[string]string
		want        map[string]string
		wantDropped []string
	}{
		{
			name: "valid tags kept",
			tags: map[string]string{"env": "prod", "Name": "web-1", "team.owner": "a_b", "empty": ""},
			want: map[string]string{"env": "prod", "Name": "web-1", "team.owner": "a_b", "empty": ""},
		},
		{
			name: "invalid key and value normalised with a hash",
			tags: map[string]string{"aws:cloudformation:stack-name": "My Stack"},
			want: map[string]string{"aws_cloudformation_stack-name-" + shortHash("aws:cloudformation:stack-name"): "My_Stack-" + shortHash("My Stack")},
		},
		{
			name: "keys that normalise alike stay apart",
			tags: map[string]string{"a b": "1", "a:b": "2", "a_b": "3"},
			want: map[string]string{"a_b": "3", "a_b-" + shortHash("a b"): "1", "a_b-" + shortHash("a:b"): "2"},
		},
		{
			name: "long key and value cut",
			tags: map[string]string{long: long},
			want: map[string]string{strings.Repeat("x", 54) + "-" + shortHash(long): strings.Repeat("x", 54) + "-" + shortHash(long)},
		},
		{
			name: "nothing valid left",
			tags: map[string]string{"::": "--"},
			want: map[string]string{"h" + shortHash("::"): "h" + shortHash("--")},
		},
		{
			name: "slash in a key",
			tags: map[string]string{"kubernetes.io/cluster/prod": "owned"},
			want: map[string]string{"kubernetes.io_cluster_prod-" + shortHash("kubernetes.io/cluster/prod"): "owned"},
		},
		{
			name:        "a normalised key that hits a kept one is dropped",
			tags:        map[string]string{"a b": "1", "a_b-" + shortHash("a b"): "kept"},
			want:        map[string]string{"a_b-" + shortHash("a b"): "kept"},
			wantDropped: []string{"a b"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, dropped := TagLabels(tc.tags)
			want := map[string]string{}
			for k, v := range tc.want {
				want[TagLabelPrefix+k] = v
			}
			if !maps.Equal(got, want) {
				t.Errorf("labels = %v\nwant %v", got, want)
			}
			if strings.Join(dropped, ",") != strings.Join(tc.wantDropped, ",") {
				t.Errorf("dropped = %v; want %v", dropped, tc.wantDropped)
			}
			for k, v := range got {
				if errs := validation.IsQualifiedName(k); len(errs) > 0 {
					t.Errorf("label key %q invalid: %v", k, errs)
				}
				if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
					t.Errorf("label value %q invalid: %v", v, errs)
				}
			}
			again, _ := TagLabels(tc.tags)
			if !maps.Equal(got, again) {
				t.Error("not deterministic")
			}
		})
	}
}

func TestObjectName(t *testing.T) {
	azureID := "/subscriptions/0000/resourceGroups/RG-1/providers/Microsoft.Compute/virtualMachines/Web_Server.01"
	for _, tc := range []struct{ id, name, want string }{
		{"i-0123456789abcdef0", "web", "i-0123456789abcdef0"},
		{"eni-0abc", "", "eni-0abc"},
		{azureID, "Web_Server.01", "web-server-01-" + shortHash(strings.ToLower(azureID))},
		{strings.ToUpper(azureID), "Web_Server.01", "web-server-01-" + shortHash(strings.ToLower(azureID))},
		{azureID, "", "web-server-01-" + shortHash(strings.ToLower(azureID))},
		{"arn:aws:rds:us-east-1:123456789012:db:orders", "", "orders-" + shortHash("arn:aws:rds:us-east-1:123456789012:db:orders")},
		{"/x/" + strings.Repeat("N", 80), "", strings.Repeat("n", 40) + "-" + shortHash("/x/"+strings.Repeat("n", 80))},
		{"/x/___", "", "r-" + shortHash("/x/___")},
	} {
		got := ObjectName(tc.id, tc.name)
		if got != tc.want {
			t.Errorf("ObjectName(%q, %q) = %q; want %q", tc.id, tc.name, got, tc.want)
		}
		if errs := validation.IsDNS1123Label(got); len(errs) > 0 {
			t.Errorf("ObjectName(%q) = %q is not a DNS-1123 label: %v", tc.id, got, errs)
		}
	}
}
