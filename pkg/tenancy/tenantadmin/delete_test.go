package tenantadmin

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckDelete(t *testing.T) {
	tenant := map[string]string{"tenancy.antreaplus.io/tenant": "true"}
	for _, c := range []struct {
		name     string
		ns       Namespace
		accounts []string
		force    bool
		wantErr  error
		wantText string
	}{
		{name: "an empty tenant", ns: Namespace{Name: "alpha", Labels: tenant}},
		{name: "accounts left", ns: Namespace{Name: "alpha", Labels: tenant}, accounts: []string{"aws", "azure"},
			wantErr: ErrHoldsAccounts, wantText: "aws, azure. Delete them first (kubectl delete cloudprovideraccounts -n alpha --all)"},
		{name: "accounts left, forced", ns: Namespace{Name: "alpha", Labels: tenant}, accounts: []string{"aws"}, force: true},
		{name: "not a tenant", ns: Namespace{Name: "default"}, wantErr: ErrNotTenant, wantText: "no label tenancy.antreaplus.io/tenant=true"},
		{name: "not a tenant, forced", ns: Namespace{Name: "team", Labels: map[string]string{"tenancy.antreaplus.io/tenant": "false"}},
			force: true, wantErr: ErrNotTenant},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckDelete(c.ns, c.accounts, c.force)
			if !errors.Is(err, c.wantErr) || c.wantErr == nil && err != nil || !strings.Contains(errString(err), c.wantText) {
				t.Errorf("CheckDelete = %v, want %v saying %q", err, c.wantErr, c.wantText)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
