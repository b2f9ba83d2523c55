// Package pollstatus keeps, in memory, what the last poll of each region of
// each CloudProviderAccount came to, and tells the account and selector
// reconcilers when that changed so they can update their status. The
// inventory sync is the only writer; the reconcilers read it. Nothing here
// is persisted: after a restart the first polls fill it again, and the
// objects in the API server stay the record of what was imported.
//
// # Usage
//
// See ExampleStore. The account reconciler is wired to AccountEvents with
// source.Channel.
//
// A poll that ends as the previous one did sends no event, so a poll where
// nothing changed causes no status write; the one exception is the
// heartbeat: a success is reported again once the last reported success is
// older than the heartbeat, so that lastSuccessfulPollTime shows a stalled
// controller.
package pollstatus
