package pollstatus_test

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
)

// The poll loop records each poll of a region; the account reconciler
// reads the regions when an event says something changed. A poll that
// ends as the previous one did sends no event.
func ExampleStore() {
	store := pollstatus.New(10 * time.Minute) // heartbeat of lastSuccessfulPollTime
	acct := types.NamespacedName{Namespace: "infra", Name: "aws"}
	key := pollstatus.Key{Account: acct, Region: "us-east-1"}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

	events := func() int {
		n := 0
		for {
			select {
			case <-store.AccountEvents(): // wired with source.Channel into the account reconciler
				n++
			default:
				return n
			}
		}
	}
	polled := pollstatus.Outcome{Reason: cloudv1alpha1.AccountReasonPolled}
	store.Record(key, polled, t0)
	fmt.Println("first success, events:", events())
	store.Record(key, polled, t0.Add(time.Minute))
	fmt.Println("same outcome, events:", events())
	r := store.Record(key, pollstatus.Outcome{Reason: "Throttled", Message: "RequestLimitExceeded"}, t0.Add(2*time.Minute))
	fmt.Println("throttled, events:", events(), "failures:", r.Failures, "last success:", r.LastSuccess.Format(time.TimeOnly))
	store.Record(key, polled, t0.Add(15*time.Minute))
	for region, res := range store.Regions(acct) {
		fmt.Println(region, res.Reason, res.Failures)
	}
	// Output:
	// first success, events: 1
	// same outcome, events: 0
	// throttled, events: 1 failures: 1 last success: 00:01:00
	// us-east-1 Polled 0
}
