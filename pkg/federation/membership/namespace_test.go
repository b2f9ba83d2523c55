package membership

import (
	"slices"
	"testing"
)

func TestLeftovers(t *testing.T) {
	tests := []struct {
		name string
		refs []objectRef
		want []string
	}{
		{name: "what Kubernetes puts in every namespace", refs: []objectRef{
			{Resource: "configmaps", Name: "kube-root-ca.crt"},
			{Resource: "serviceaccounts", Name: "default"},
			{Resource: "events", Name: "x.123"},
			{Resource: "events.events.k8s.io", Name: "x.123"},
		}},
		{name: "objects being deleted", refs: []objectRef{{Resource: "secrets", Name: "antreaplus-federation-token", Deleting: true}}},
		{name: "a registry and a user's object remain", refs: []objectRef{
			{Resource: "memberclusters.federation.antreaplus.io", Name: "m3"},
			{Resource: "configmaps", Name: "mine"},
			{Resource: "serviceaccounts", Name: "default"},
		}, want: []string{"configmaps/mine", "memberclusters.federation.antreaplus.io/m3"}},
		{name: "a default-named object of another type counts", refs: []objectRef{{Resource: "deployments.apps", Name: "default"}},
			want: []string{"deployments.apps/default"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := leftovers(tt.refs); !slices.Equal(got, tt.want) {
				t.Fatalf("leftovers = %v, want %v", got, tt.want)
			}
		})
	}
}
