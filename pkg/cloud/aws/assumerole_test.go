package aws_test

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

const (
	roleARN    = "arn:aws:iam::123456789012:role/antreaplus-reader"
	externalID = "tenant-a-7f3c"
)

// roleFixture is an emulator whose role trusts the fixture's key with an
// external id, and whose temporary credentials live lifetime.
func roleFixture(t *testing.T, lifetime time.Duration) *fixture {
	t.Helper()
	emu := awsemu.New(awsemu.Options{
		Credentials:     []awsemu.Credential{{AccessKeyID: keyID, SecretAccessKey: secret}},
		Roles:           []awsemu.Role{{ARN: roleARN, ExternalID: externalID, Trusted: []string{keyID}}},
		SessionLifetime: lifetime,
	})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	vpc, err := emu.AddVPC(awsemu.VPCSpec{Region: region, Name: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{emu: emu, url: srv.URL, vpcs: []string{vpc}}
	f.addVMs(t, 2, awsemu.InstanceSpec{})
	return f
}

func withRole(externalID string) func(*aws.Options) {
	return func(o *aws.Options) {
		o.AssumeRole = &aws.AssumeRole{RoleARN: roleARN, ExternalID: externalID, RefreshWindow: 500 * time.Millisecond}
	}
}

func TestAssumeRole(t *testing.T) {
	f := roleFixture(t, 0)
	p := f.provider(t, withRole(externalID))
	for range 3 {
		snap, err := p.Inventory(t.Context(), region)
		if err != nil || len(snap.VMs) != 2 {
			t.Fatalf("with the role: %v (%d VMs)", err, len(snap.VMs))
		}
	}
	// One AssumeRole serves every call of every poll while it is valid.
	if got := f.emu.Calls("AssumeRole"); got != 1 {
		t.Errorf("AssumeRole calls = %d; want 1", got)
	}
	if f.emu.Sessions(roleARN) != 1 {
		t.Errorf("sessions of the role = %d; want 1", f.emu.Sessions(roleARN))
	}
	if s := (aws.Options{AccessKeyID: keyID, SecretAccessKey: secret, AssumeRole: &aws.AssumeRole{RoleARN: roleARN, ExternalID: externalID}}).String(); strings.Contains(s, externalID) || strings.Contains(s, secret) {
		t.Errorf("options print secrets: %s", s)
	}
}

func TestAssumeRoleRefused(t *testing.T) {
	f := roleFixture(t, 0)
	for _, tc := range []struct {
		name   string
		change func(*aws.Options)
	}{
		{"wrong external id", withRole("tenant-b-0000")},
		{"no external id", withRole("")},
		{"unknown role", func(o *aws.Options) {
			o.AssumeRole = &aws.AssumeRole{RoleARN: "arn:aws:iam::123456789012:role/other", ExternalID: externalID}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.emu.ResetCalls()
			_, err := f.provider(t, tc.change).Inventory(t.Context(), region)
			var roleErr *aws.AssumeRoleError
			if !errors.Is(err, provider.ErrAuthentication) || !errors.As(err, &roleErr) {
				t.Fatalf("error %v; want ErrAuthentication from an AssumeRoleError", err)
			}
			for _, want := range []string{"cannot assume role", "AccessDenied", "external id"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if strings.Contains(err.Error(), externalID) || strings.Contains(err.Error(), secret) {
				t.Errorf("error %q shows a secret", err)
			}
			if n := f.emu.Calls("DescribeInstances"); n != 0 {
				t.Errorf("%d DescribeInstances reached the cloud without credentials", n)
			}
		})
	}
}

func TestAssumedRoleCredentialsRefreshed(t *testing.T) {
	const lifetime = 2 * time.Second
	f := roleFixture(t, lifetime)
	p := f.provider(t, withRole(externalID))
	poll := func() error {
		_, err := p.Inventory(t.Context(), region)
		return err
	}
	if err := poll(); err != nil {
		t.Fatal(err)
	}
	// Past the refresh window (lifetime - 500ms) the next poll assumes
	// the role again before the credentials expire.
	time.Sleep(lifetime - 400*time.Millisecond)
	if err := poll(); err != nil {
		t.Fatalf("poll near expiry: %v", err)
	}
	if got := f.emu.Calls("AssumeRole"); got != 2 {
		t.Errorf("AssumeRole calls = %d; want 2 (renewed before expiry)", got)
	}

	// Credentials the cloud says expired while the client thinks them
	// valid (clocks apart) fail one poll with ErrAuthentication and are
	// renewed for the next.
	f.emu.ExpireSessions()
	err := poll()
	if !errors.Is(err, provider.ErrAuthentication) || !strings.Contains(err.Error(), "Expired") {
		t.Fatalf("poll with expired credentials: %v; want ErrAuthentication with the cloud's expiry code", err)
	}
	if err := poll(); err != nil {
		t.Fatalf("poll after expiry: %v", err)
	}
	// Each read refused invalidates the cache; one that started later may
	// already have renewed them once.
	if got := f.emu.Calls("AssumeRole"); got < 3 || got > 4 {
		t.Errorf("AssumeRole calls = %d; want 3 or 4", got)
	}
}
