package membership

import (
	"slices"
	"testing"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestPlanRegistrySync(t *testing.T) {
	e := func(id, server string) federationv1alpha1.MemberCluster { return entry(id, server) }
	tests := []struct {
		name       string
		registries []namedRegistry
		want       []registryCopy
		wantErr    string
	}{
		{name: "all equal: nothing to copy", registries: []namedRegistry{
			{"s1", []federationv1alpha1.MemberCluster{e("a", s1URL), e("b", s2URL)}},
			{"s2", []federationv1alpha1.MemberCluster{e("b", s2URL), e("a", s1URL)}},
		}},
		{name: "a new supervisor gets every member", registries: []namedRegistry{
			{"s1", []federationv1alpha1.MemberCluster{e("s1", s1URL), e("m3", m3URL)}},
			{"s2", []federationv1alpha1.MemberCluster{e("s1", s1URL), e("s2", s2URL)}},
		}, want: []registryCopy{{from: "s2", to: "s1", clusterID: "s2"}, {from: "s1", to: "s2", clusterID: "m3"}}},
		{name: "empty registry", registries: []namedRegistry{
			{"s1", []federationv1alpha1.MemberCluster{e("m3", m3URL)}},
			{"s2", nil},
		}, want: []registryCopy{{from: "s1", to: "s2", clusterID: "m3"}}},
		{name: "conflicting entries are refused", registries: []namedRegistry{
			{"s1", []federationv1alpha1.MemberCluster{e("m3", m3URL)}},
			{"s2", []federationv1alpha1.MemberCluster{e("m3", s2URL)}},
		}, wantErr: "the registries disagree on member m3: s1 has " + m3URL + ", s2 has " + s2URL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := planRegistrySync(tt.registries)
			errMatches(t, err, tt.wantErr)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("copies = %+v, want %+v", got, tt.want)
			}
		})
	}
}
