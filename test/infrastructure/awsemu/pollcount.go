package awsemu

import (
	"net/http"
	"strings"

	"antreaplus.io/antreaplus/test/infrastructure/pollstats"
)

// This file counts the calls of each account per replica of the cloud
// controller, to prove that no two replicas poll one account at once; see
// package pollstats for windows and overlaps.
//
// The account of a call is the access key id it is signed with; with
// temporary credentials of an assumed role it is AssumedRoleAccount of the
// long-term key that assumed the role and of the role, so that two
// replicas, each with its own role session, count as one account. The
// caller is the replica its User-Agent names (pollstats.ReplicaOf), the
// region the one it is signed for. The inventory calls, which form
// windows, are the describes of EC2, ELBv2 and RDS. Calls refused for
// their signature are not counted; throttled ones are.

// AssumedRoleAccount is the account PollStats names the calls made with
// the temporary credentials of roleARN, assumed with keyID.
func AssumedRoleAccount(keyID, roleARN string) string {
	return keyID + "/" + roleARN
}

// countPoll records an authenticated call in the poll stats and returns
// the function that records its end.
func (s *Server) countPoll(r *http.Request, c caller, svc *service, action string) func() {
	account := c.accessKeyID
	if c.session != nil {
		account = AssumedRoleAccount(c.session.source, c.session.roleARN)
	}
	return s.polls.Begin(pollstats.Call{
		Account:   account,
		Region:    c.region,
		Caller:    pollstats.ReplicaOf(r.Header.Get("User-Agent")),
		Op:        action,
		Inventory: svc != stsService && strings.HasPrefix(action, "Describe"),
	})
}

// PollStats returns the calls, poll windows and overlaps counted per
// account and replica since New or ResetPollStats. The admin API serves
// the same as JSON: GET /admin/pollstats (pollstats.Fetch reads it).
func (s *Server) PollStats() pollstats.Stats {
	return s.polls.Stats()
}

// ResetPollStats forgets the poll stats, as POST /admin/pollstats/reset
// (pollstats.Reset) does.
func (s *Server) ResetPollStats() {
	s.polls.Reset()
}
