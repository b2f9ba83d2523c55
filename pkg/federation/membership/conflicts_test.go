package membership

import (
	"strings"
	"testing"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// errMatches fails t unless err contains want, or is nil when want is empty.
func errMatches(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("error = %v, want one containing %q", err, want)
	}
}

func TestResolveClusterID(t *testing.T) {
	tests := []struct {
		name, context, explicit string
		existing                *federationv1alpha1.ClusterMembership
		want, wantErr           string
	}{
		{name: "explicit wins", context: "member-2", explicit: "eu-1", existing: membership("acme", "old", false), want: "eu-1"},
		{name: "explicit is validated", context: "member-2", explicit: "EU_1", wantErr: "not a DNS subdomain"},
		{name: "re-join keeps the ID", context: "member-2", existing: membership("acme", "eu-1", false), want: "eu-1"},
		{name: "other federation: from the context", context: "Member_2", existing: membership("other", "eu-1", false), want: "member-2"},
		{name: "new member: from the context", context: "kind-prod", want: "kind-prod"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolveClusterID(tt.context, tt.explicit, "acme", tt.existing)
			errMatches(t, err, tt.wantErr)
			if tt.wantErr == "" && got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckMembership(t *testing.T) {
	want := identity{FederationID: "acme", ClusterID: "member-2"}
	tests := []struct {
		name     string
		existing *federationv1alpha1.ClusterMembership
		wantErr  string
	}{
		{name: "not a member yet"},
		{name: "same federation and ID: idempotent", existing: membership("acme", "member-2", false)},
		{name: "same, as supervisor", existing: membership("acme", "member-2", true)},
		{name: "another federation", existing: membership("other", "member-2", false),
			wantErr: "member-2 already belongs to federation other: run 'antreaplus federation leave --context member-2' first"},
		{name: "another ID", existing: membership("acme", "eu-1", false),
			wantErr: "member-2 is already member eu-1 of federation acme and a member's ID cannot change"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errMatches(t, checkMembership("member-2", tt.existing, want), tt.wantErr)
		})
	}
}

func TestCheckSupervisor(t *testing.T) {
	tests := []struct {
		name      string
		existing  *federationv1alpha1.ClusterMembership
		bootstrap bool
		wantErr   string
	}{
		{name: "supervisor of the federation", existing: membership("acme", "s1", true)},
		{name: "no identity", wantErr: "is not a supervisor of any federation: make it one with 'antreaplus federation create --federation-id acme --supervisor s1'"},
		{name: "no identity while creating", bootstrap: true},
		{name: "plain member", existing: membership("acme", "s1", false), wantErr: "is a member of federation acme but not a supervisor"},
		{name: "plain member promoted while creating", existing: membership("acme", "s1", false), bootstrap: true},
		{name: "another federation", existing: membership("other", "s1", true), wantErr: "belongs to federation other, not acme"},
		{name: "another federation while creating", existing: membership("other", "s1", true), bootstrap: true, wantErr: "belongs to federation other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errMatches(t, checkSupervisor("s1", "acme", tt.existing, tt.bootstrap), tt.wantErr)
		})
	}
}

func TestCheckRegistry(t *testing.T) {
	registry := []federationv1alpha1.MemberCluster{
		entry("member-1", "https://127.0.0.1:6443"),
		entry("member-2", "https://127.0.0.1:6444"),
	}
	tests := []struct {
		name, id, server, wantErr string
	}{
		{name: "new ID, new server", id: "member-3", server: "https://127.0.0.1:6445"},
		{name: "re-join: same ID, same server", id: "member-2", server: "https://127.0.0.1:6444/"},
		{name: "same server, other spelling", id: "member-2", server: "HTTPS://127.0.0.1:6444"},
		{name: "duplicate ID", id: "member-2", server: "https://127.0.0.1:6445",
			wantErr: "cluster ID member-2 is already used by the member at https://127.0.0.1:6444: pick another --cluster-id"},
		{name: "server registered under another ID", id: "eu-1", server: "https://127.0.0.1:6444",
			wantErr: "already registered as member member-2 in the registry of s1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errMatches(t, checkRegistry("ctx", "s1", registry, tt.id, tt.server), tt.wantErr)
		})
	}
}

func TestSameServer(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://10.0.0.1:6443", "https://10.0.0.1:6443/", true},
		{"https://API.example.com", "https://api.example.com:443", true},
		{"10.0.0.1:6443", "https://10.0.0.1:6443", true},
		{"https://10.0.0.1:6443", "https://10.0.0.1:6444", false},
		{"https://10.0.0.1:6443", "http://10.0.0.1:6443", false},
		{"https://[::1]:6443", "https://[::1]:6443", true},
	}
	for _, tt := range tests {
		if got := sameServer(tt.a, tt.b); got != tt.want {
			t.Errorf("sameServer(%q, %q) = %t, want %t", tt.a, tt.b, got, tt.want)
		}
	}
}
