// Package distributiontest runs a policy distribution server in a test
// process, on a local TLS port, with tokens minted on demand: for tests of
// consumers (the VM agent, the agentless consumer) that need a real server
// but no API server.
//
// # Usage
//
//	s := distributiontest.New(t)
//	token := s.AgentToken("ns", "vm-a")
//	s.Publish(distributiontest.DropPorts("ns/nic-a", "vm-a", "10.0.0.1", 80))
//	c, _ := consumer.New(s.ClientOptions(token))
//	s.Down() // the server is unreachable ...
//	s.Up()   // ... and back, as a new instance (a new epoch)
package distributiontest
