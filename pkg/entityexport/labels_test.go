package entityexport

import (
	"maps"
	"testing"
)

func TestMemberLabels(t *testing.T) {
	tests := []struct {
		name     string
		registry map[string]string
		want     map[string]string
	}{
		{name: "none", want: map[string]string{}},
		{name: "plain keys", registry: map[string]string{"region": "eu", "env": "prod"},
			want: map[string]string{"member.federation.antreaplus.io/region": "eu", "member.federation.antreaplus.io/env": "prod"}},
		{name: "a prefixed key keeps the part after its slash", registry: map[string]string{"topology.kubernetes.io/region": "eu"},
			want: map[string]string{"member.federation.antreaplus.io/region": "eu"}},
		{name: "the managed-by label is left out", registry: map[string]string{"app.kubernetes.io/managed-by": "antreaplus-federation", "env": "test"},
			want: map[string]string{"member.federation.antreaplus.io/env": "test"}},
		{name: "collision: the unprefixed key wins", registry: map[string]string{"topology.kubernetes.io/region": "us", "region": "eu"},
			want: map[string]string{"member.federation.antreaplus.io/region": "eu"}},
		{name: "collision of prefixed keys: the first in lexical order wins", registry: map[string]string{"b.example/zone": "b", "a.example/zone": "a"},
			want: map[string]string{"member.federation.antreaplus.io/zone": "a"}},
		{name: "a member label already under the member prefix", registry: map[string]string{"member.federation.antreaplus.io/tier": "gold"},
			want: map[string]string{"member.federation.antreaplus.io/tier": "gold"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 5 { // map order must not matter
				if got := MemberLabels(tt.registry); !maps.Equal(got, tt.want) {
					t.Fatalf("MemberLabels = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestRemoteLabels(t *testing.T) {
	src := Source{ClusterID: "member-1", Labels: map[string]string{"region": "eu", "app.kubernetes.io/managed-by": "antreaplus-federation"}}
	tests := []struct {
		name   string
		entity map[string]string
		want   map[string]string
	}{
		{name: "the entity's labels and the leader's",
			entity: map[string]string{"tag.cloud.antreaplus.io/role": "web", "cloud.antreaplus.io/kind": "VirtualMachine"},
			want: map[string]string{"tag.cloud.antreaplus.io/role": "web", "cloud.antreaplus.io/kind": "VirtualMachine",
				"federation.antreaplus.io/source-cluster": "member-1", "member.federation.antreaplus.io/region": "eu",
				"app.kubernetes.io/managed-by": "antreaplus-federation"}},
		{name: "spoofed source cluster and member labels are dropped",
			entity: map[string]string{"federation.antreaplus.io/source-cluster": "member-9", "member.federation.antreaplus.io/region": "us",
				"member.federation.antreaplus.io/trusted": "yes", "federation.antreaplus.io/anything": "x", "tier": "web"},
			want: map[string]string{"tier": "web", "federation.antreaplus.io/source-cluster": "member-1",
				"member.federation.antreaplus.io/region": "eu", "app.kubernetes.io/managed-by": "antreaplus-federation"}},
		{name: "the entity's managed-by label is replaced",
			entity: map[string]string{"app.kubernetes.io/managed-by": "someone"},
			want: map[string]string{"federation.antreaplus.io/source-cluster": "member-1",
				"member.federation.antreaplus.io/region": "eu", "app.kubernetes.io/managed-by": "antreaplus-federation"}},
		{name: "look-alike prefixes are kept",
			entity: map[string]string{"x.federation.antreaplus.io/a": "1", "federation.antreaplus.io.example/b": "2"},
			want: map[string]string{"x.federation.antreaplus.io/a": "1", "federation.antreaplus.io.example/b": "2",
				"federation.antreaplus.io/source-cluster": "member-1", "member.federation.antreaplus.io/region": "eu",
				"app.kubernetes.io/managed-by": "antreaplus-federation"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RemoteLabels(src, tt.entity); !maps.Equal(got, tt.want) {
				t.Errorf("RemoteLabels =\n %v\nwant\n %v", got, tt.want)
			}
		})
	}
}

func TestSourceLabels(t *testing.T) {
	got := SourceLabels(Source{ClusterID: "member-2", Labels: map[string]string{"topology.kubernetes.io/region": "eu", "app.kubernetes.io/managed-by": "antreaplus-federation"}})
	want := map[string]string{"federation.antreaplus.io/source-cluster": "member-2", "member.federation.antreaplus.io/region": "eu"}
	if !maps.Equal(got, want) {
		t.Errorf("SourceLabels = %v, want %v", got, want)
	}
}
