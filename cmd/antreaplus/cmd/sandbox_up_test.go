package cmd

import (
	"strings"
	"testing"
)

func TestUpOptionsValidate(t *testing.T) {
	ok := func(o upOptions) upOptions {
		if o.clusters == 0 {
			o.clusters = 3
		}
		o.sandboxFlags = &sandboxFlags{nodes: 3}
		return o
	}
	for _, tt := range []struct {
		name    string
		o       upOptions
		wantErr string
	}{
		{name: "defaults", o: ok(upOptions{})},
		{name: "federation and cloud", o: ok(upOptions{supervisors: 2, cloud: true, tenancy: true, externalDNS: true})},
		{name: "no cluster", o: ok(upOptions{clusters: -1}), wantErr: "at least one cluster"},
		{name: "more supervisors than clusters", o: ok(upOptions{supervisors: 4}), wantErr: "between 0 (no federation) and --clusters (3)"},
		{name: "tenancy without cloud", o: ok(upOptions{tenancy: true}), wantErr: "--tenancy needs --cloud"},
		{name: "external DNS without federation", o: ok(upOptions{externalDNS: true}), wantErr: "it needs --supervisors"},
	} {
		err := tt.o.Validate()
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
	}
	o := ok(upOptions{})
	o.nodes = 0
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "at least one node") {
		t.Errorf("no node: error %v", err)
	}
}
