package account

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
	"antreaplus.io/antreaplus/pkg/tenancy"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func acct(regions ...string) *cloudv1alpha1.CloudProviderAccount {
	return &cloudv1alpha1.CloudProviderAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "acct", Namespace: "tenant-a", Generation: 3},
		Spec:       cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS, AWS: &cloudv1alpha1.AWSAccountConfig{Regions: regions}},
	}
}

func ok(at time.Duration) pollstatus.Result {
	return pollstatus.Result{Outcome: pollstatus.Outcome{Reason: cloudv1alpha1.AccountReasonPolled}, At: t0.Add(at), LastSuccess: t0.Add(at)}
}

func failed(reason, msg string) pollstatus.Result {
	return pollstatus.Result{Outcome: pollstatus.Outcome{Reason: reason, Message: msg}, At: t0, LastSuccess: t0.Add(-time.Hour), Failures: 1}
}

func TestComputeStatus(t *testing.T) {
	bound := &types.NamespacedName{Namespace: "tenant-a", Name: "sel"}
	for _, tc := range []struct {
		name                   string
		in                     observed
		creds, polled, isReady string // "Status/Reason"
		message                string // in InventoryPolled or CredentialsValid
	}{
		{"secret missing", observed{configErr: &accountprovider.ConfigError{Reason: "SecretNotFound", Message: "Secret tenant-a/c not found"}},
			"False/SecretNotFound", "False/SecretNotFound", "False/SecretNotFound", "Secret tenant-a/c not found"},
		{"not polled yet", observed{}, "Unknown/Pending", "Unknown/Pending", "Unknown/Pending", "not polled yet: us-east-1, eu-west-1"},
		{"all good", observed{bound: bound, results: map[string]pollstatus.Result{"us-east-1": ok(0), "eu-west-1": ok(time.Second)}},
			"True/Verified", "True/Polled", "True/Ready", "each of the 2 regions"},
		{"refused", observed{results: map[string]pollstatus.Result{"us-east-1": failed("AuthenticationFailed", "AuthFailure: AWS was not able to validate the provided access credentials")}},
			"False/AuthenticationFailed", "False/AuthenticationFailed", "False/AuthenticationFailed", "AuthFailure"},
		{"one region missing", observed{results: map[string]pollstatus.Result{"us-east-1": ok(0), "eu-west-1": failed("RegionUnavailable", "not a valid region")}},
			"True/Verified", "False/RegionUnavailable", "False/RegionUnavailable", "eu-west-1: not a valid region"},
		{"throttled", observed{results: map[string]pollstatus.Result{"us-east-1": failed("Throttled", "RequestLimitExceeded"), "eu-west-1": ok(0)}},
			"True/Verified", "False/Throttled", "False/Throttled", "kept as of the last successful poll"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := acct("us-east-1", "eu-west-1")
			st := computeStatus(a, tc.in, 0)
			got := func(typ string) string {
				c := meta.FindStatusCondition(st.Conditions, typ)
				if c == nil || c.ObservedGeneration != 3 {
					return "missing"
				}
				return string(c.Status) + "/" + c.Reason
			}
			if got("CredentialsValid") != tc.creds || got("InventoryPolled") != tc.polled || got("Ready") != tc.isReady {
				t.Fatalf("conditions %s %s %s; want %s %s %s", got("CredentialsValid"), got("InventoryPolled"), got("Ready"), tc.creds, tc.polled, tc.isReady)
			}
			all := ""
			for _, c := range st.Conditions {
				all += c.Message + "\n"
			}
			if !strings.Contains(all, tc.message) {
				t.Errorf("messages %q lack %q", all, tc.message)
			}
			if (tc.in.bound != nil) != (st.Selector != nil) {
				t.Errorf("selector %v", st.Selector)
			}
			// Computing again from the written status changes nothing.
			a.Status = st
			if again := computeStatus(a, tc.in, 0); !equality.Semantic.DeepEqual(again, st) {
				t.Errorf("not stable:\n%+v\n%+v", again, st)
			}
		})
	}
}

func TestLastSuccessfulPollTimeHeartbeat(t *testing.T) {
	a := acct("us-east-1")
	in := func(at time.Duration) observed {
		return observed{results: map[string]pollstatus.Result{"us-east-1": ok(at)}}
	}
	a.Status = computeStatus(a, in(0), 10*time.Minute)
	if a.Status.LastSuccessfulPollTime == nil || !a.Status.LastSuccessfulPollTime.Equal(&metav1.Time{Time: t0}) {
		t.Fatalf("first success: %v", a.Status.LastSuccessfulPollTime)
	}
	if st := computeStatus(a, in(9*time.Minute), 10*time.Minute); !equality.Semantic.DeepEqual(st, a.Status) {
		t.Fatalf("a success within the heartbeat changed the status: %v", st.LastSuccessfulPollTime)
	}
	if st := computeStatus(a, in(10*time.Minute), 10*time.Minute); !st.LastSuccessfulPollTime.Equal(&metav1.Time{Time: t0.Add(10 * time.Minute)}) {
		t.Fatalf("heartbeat not written: %v", st.LastSuccessfulPollTime)
	}
}

func TestRestartKeepsTheStatus(t *testing.T) {
	a := acct("us-east-1")
	a.Status = computeStatus(a, observed{results: map[string]pollstatus.Result{"us-east-1": ok(0)}}, 0)
	// A new controller has no results yet.
	if st := computeStatus(a, observed{}, 0); !equality.Semantic.DeepEqual(st, a.Status) {
		t.Fatalf("a restart changed the status:\n%+v\n%+v", st, a.Status)
	}
}

func TestExclusive(t *testing.T) {
	tests := []struct {
		name   string
		state  tenancy.State
		status metav1.ConditionStatus
		reason string
		says   []string
	}{
		{"one instance", tenancy.State{Owned: true, Holder: "shared/r1"}, metav1.ConditionTrue, cloudv1alpha1.AccountReasonExclusive,
			[]string{"managed by shared/r1 alone"}},
		{"another instance selects it", tenancy.State{Owned: true, Holder: "shared/r1", Contenders: []string{"tenant-a"}},
			metav1.ConditionFalse, cloudv1alpha1.AccountReasonContended, []string{"tenant-a also select", "--tenant-selector"}},
		{"claimed in another member", tenancy.State{Owned: true, Holder: "shared/r1", Elsewhere: []tenancyv1alpha1.Overlap{{Member: "member-2", Holder: "shared/x"}}},
			metav1.ConditionFalse, cloudv1alpha1.AccountReasonClaimedInOtherMember, []string{"shared/x in member member-2", "disjoint"}},
		{"both", tenancy.State{Owned: true, Holder: "shared/r1", Contenders: []string{"b"}, Elsewhere: []tenancyv1alpha1.Overlap{{Member: "m2", Holder: "x/y"}}},
			metav1.ConditionFalse, cloudv1alpha1.AccountReasonContended, []string{"b also select", "x/y in member m2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := exclusive("team-a", tt.state)
			if c.Type != cloudv1alpha1.AccountConditionTenantExclusive || c.Status != tt.status || c.Reason != tt.reason {
				t.Fatalf("condition %s=%s (%s), want %s (%s)", c.Type, c.Status, c.Reason, tt.status, tt.reason)
			}
			for _, s := range tt.says {
				if !strings.Contains(c.Message, s) {
					t.Errorf("message %q does not say %q", c.Message, s)
				}
			}
		})
	}
}
