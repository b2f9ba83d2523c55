package membershipstatus_test

import (
	"time"

	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/membershipstatus"
)

// The federation manager runs the controller in every member it leads
// (see manager.ExampleManager); it also rewrites the status every 30 s.
func ExampleNew() {
	opts := manager.DefaultOptions()
	opts.LeaderControllers = append(opts.LeaderControllers, membershipstatus.New(30*time.Second))
	_ = opts
}
