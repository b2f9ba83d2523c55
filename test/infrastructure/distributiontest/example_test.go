package distributiontest_test

import (
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/test/infrastructure/distributiontest"
)

// A consumer's test against a real distribution server: the rules of one
// VM published, the agent's token, the server down and back as a new
// instance (a new epoch, so the consumer must resync).
func Example() {
	testConsumer := func(t *testing.T) { //nolint:thelper // the body of a test function, not a helper
		s := distributiontest.New(t) // stops with the test
		token := s.AgentToken("ns", "vm-a")
		s.Publish(distributiontest.DropPorts("ns/nic-a", "vm-a", "10.0.0.1", 80))
		c, err := consumer.New(s.ClientOptions(token))
		if err != nil {
			t.Fatal(err)
		}
		views := make(chan *wire.View, 16)
		go func() { _ = c.Watch(t.Context(), nil, func(v *wire.View, _ *wire.Event) { views <- v }, nil) }()
		select {
		case v := <-views:
			if v.RuleCount() != 1 {
				t.Errorf("rules: %d, want 1", v.RuleCount())
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no view")
		}
		s.Down() // the server is unreachable ...
		s.Up()   // ... and back, as a new instance (a new epoch)
	}
	_ = testConsumer
}
