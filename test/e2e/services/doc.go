// Package services tests federated Services end to end: three real
// clusters, two supervisors running real federation-manager processes, and
// a member-controller process in every member (started by the tests).
//
// # Running
//
//	go test ./test/e2e/services/                                   # every test
//	go test ./test/e2e/services/ -run TestBurst -v                 # ANTREAPLUS_BURST=N changes the 1000
//	go test ./test/e2e/services/ -run '^$' -bench Convergence -benchtime 1x
package services
