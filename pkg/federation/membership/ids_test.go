package membership

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestSanitizeClusterID(t *testing.T) {
	long := strings.Repeat("a", 70)
	tests := []struct {
		name, in, want, wantErr string
	}{
		{name: "already a label", in: "member-1", want: "member-1"},
		{name: "upper case and underscores", in: "Kind_Cluster_1", want: "kind-cluster-1"},
		{name: "EKS ARN", in: "arn:aws:eks:us-west-2:123:cluster/prod", want: "arn-aws-eks-us-west-2-123-cluster-prod"},
		{name: "runs collapse, ends trimmed", in: "--a..b__c--", want: "a-b-c"},
		{name: "user@cluster", in: "admin@prod.example.com", want: "admin-prod-example-com"},
		{name: "nothing usable", in: "___", wantErr: "give one with --cluster-id"},
		{name: "empty", in: "", wantErr: "give one with --cluster-id"},
		{name: "too long gets a hash", in: long, want: strings.Repeat("a", 54) + "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SanitizeClusterID(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("SanitizeClusterID(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, tt.want) || (len(tt.in) <= 63 && got != tt.want) {
				t.Fatalf("SanitizeClusterID(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if errs := validation.IsDNS1123Label(got); len(errs) > 0 {
				t.Fatalf("SanitizeClusterID(%q) = %q is not a DNS label: %v", tt.in, got, errs)
			}
		})
	}
}

func TestSanitizeClusterIDKeepsLongNamesDistinct(t *testing.T) {
	a, _ := SanitizeClusterID(strings.Repeat("x", 70) + "-east")
	b, _ := SanitizeClusterID(strings.Repeat("x", 70) + "-west")
	if a == b {
		t.Fatalf("two long names both became %q", a)
	}
}

func TestValidateIDs(t *testing.T) {
	tests := []struct {
		id      string
		wantErr string
	}{
		{id: "us-west-1"},
		{id: "prod.eu"},
		{id: "", wantErr: "must not be empty"},
		{id: "US-West", wantErr: "not a DNS subdomain"},
		{id: "-a", wantErr: "not a DNS subdomain"},
		{id: strings.Repeat("a", 129), wantErr: "longer than 128"},
	}
	for _, tt := range tests {
		for name, validate := range map[string]func(string) error{"cluster": ValidateClusterID, "federation": ValidateFederationID} {
			err := validate(tt.id)
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("%s ID %q: error = %v, want %q", name, tt.id, err, tt.wantErr)
			}
		}
	}
}
