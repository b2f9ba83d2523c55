package azureemu

import (
	"fmt"
	"net/http"

	"antreaplus.io/antreaplus/test/infrastructure/pollstats"
)

// This file counts the calls of each account per replica of the cloud
// controller, to prove that no two replicas poll one account at once; see
// package pollstats for windows and overlaps.
//
// The account of an ARM call is the client id (service principal) its
// bearer token was issued to, or StaticTokenAccount for a static token;
// that of a token request is the client id it names, once its secret is
// checked. The caller is the replica its User-Agent names
// (pollstats.ReplicaOf). ARM lists whole subscriptions, so windows are
// kept per subscription (the Region of pollstats), not per location; the
// inventory calls, which form windows, are the GETs of the lists
// (VirtualMachines.ListAll, ...). Calls refused for their token are not
// counted; throttled ones are.

// StaticTokenAccount is the account PollStats names the calls made with
// Options.StaticTokens[i].
func StaticTokenAccount(i int) string {
	return fmt.Sprintf("static-token-%d", i)
}

// countPoll records an authenticated call in the poll stats and returns
// the function that records its end.
func (s *Server) countPoll(r *http.Request, account, subscription, op string, inventory bool) func() {
	return s.polls.Begin(pollstats.Call{
		Account:   account,
		Region:    subscription,
		Caller:    pollstats.ReplicaOf(r.Header.Get("User-Agent")),
		Op:        op,
		Inventory: inventory,
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
