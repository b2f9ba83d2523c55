package federation

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"antreaplus.io/antreaplus/cmd/antreaplus/cmd"
	"antreaplus.io/antreaplus/pkg/federation/membership"
)

// antreaplus runs the CLI in-process against the test clusters' kubeconfig.
func antreaplus(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := cmd.NewRoot(&out, &errOut)
	root.SetArgs(append(args, "--kubeconfig", clusters.Sandbox.KubeconfigPath()))
	start := time.Now()
	err = root.ExecuteContext(t.Context())
	t.Logf("antreaplus %s (%s)\n%s%s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), errOut.String(), out.String())
	return out.String(), errOut.String(), err
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, _, err := antreaplus(t, args...)
	if err != nil {
		t.Fatalf("antreaplus %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func TestCLIFormsShowsAndDissolvesAFederation(t *testing.T) {
	reset(t)
	mustRun(t, "federation", "create", "--federation-id", "acme", "--supervisor", "member-1")
	_, progress, err := antreaplus(t, "federation", "join", "--context", "member-2", "--label", "env=dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"federation acme: supervisors member-1", "member-2: creating the federation account", "member-1: registering member member-2"} {
		if !strings.Contains(progress, want) {
			t.Errorf("join progress lacks %q", want)
		}
	}
	mustRun(t, "federation", "join", "--context", "member-3", "--cluster-id", "eu-3")

	var st membership.FederationStatus
	if err := json.Unmarshal([]byte(mustRun(t, "federation", "status", "-o", "json")), &st); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range st.Members {
		ids = append(ids, m.ClusterID)
	}
	if st.FederationID != "acme" || strings.Join(ids, ",") != "eu-3,member-1,member-2" {
		t.Fatalf("status: federation %q, members %v", st.FederationID, ids)
	}
	table := mustRun(t, "federation", "status")
	for _, want := range []string{"CLUSTER ID", "LEASE RENEWED", "eu-3", "SUPERVISOR", "Problems:"} {
		if !strings.Contains(table, want) {
			t.Errorf("status table lacks %q:\n%s", want, table)
		}
	}

	_, _, err = antreaplus(t, "federation", "join", "--context", "member-2", "--cluster-id", "eu-3")
	mustContain(t, err, "member-2 is already member member-2 of federation acme")

	mustRun(t, "federation", "leave", "--context", "member-3")
	if identity(t, "member-3") != nil {
		t.Error("member-3 still has an identity after leave")
	}
	_, _, err = antreaplus(t, "federation", "leave", "--context", "member-1")
	mustContain(t, err, "--force")
	mustRun(t, "federation", "leave", "--context", "member-2")
	mustRun(t, "federation", "leave", "--context", "member-1", "--force")
	_, _, err = antreaplus(t, "federation", "status")
	mustContain(t, err, "no federation supervisor among the 3 contexts")
}
