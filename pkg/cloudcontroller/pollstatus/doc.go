// Package pollstatus keeps, in memory, what the last poll of each region of
// each CloudProviderAccount came to, and tells the account and selector
// reconcilers when that changed so they can update their status. The
// inventory sync is the only writer; the reconcilers read it. Nothing here
// is persisted: after a restart the first polls fill it again, and the
// objects in the API server stay the record of what was imported.
//
// # Usage
//
//	store := pollstatus.New(10 * time.Minute) // heartbeat of lastSuccessfulPollTime
//	// inventory sync, after each poll of a region:
//	res := store.Record(pollstatus.Key{Account: acct, Region: "us-east-1"}, pollstatus.Outcome{Reason: v1alpha1.AccountReasonPolled}, time.Now())
//	// account reconciler:
//	regions := store.Regions(acct)
//	// wiring: source.Channel(store.AccountEvents(), &handler.EnqueueRequestForObject{})
//
// A poll that ends as the previous one did sends no event, so a poll where
// nothing changed causes no status write; the one exception is the
// heartbeat: a success is reported again once the last reported success is
// older than the heartbeat, so that lastSuccessfulPollTime shows a stalled
// controller.
package pollstatus
