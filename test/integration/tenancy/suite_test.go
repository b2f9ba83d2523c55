// Package tenancy tests tenancy end to end: the cloud-controller program
// (race-built by `make test`), several of its processes as replicas and
// instances, against one real kube-apiserver, and the EC2 emulator served in
// the test process with one access key per tenant, so that its poll stats
// (package pollstats) count every tenant's account and every replica's
// calls apart.
//
//   - soft tenancy and scale-out: two replicas of one instance share four
//     tenants, each account polled by exactly one of them and never by two
//     at once; a replica killed with SIGKILL loses its tenants to the other
//     within the claims' duration, without a VirtualMachine deleted and
//     without an overlap;
//   - hard tenancy and contention: an instance per tenant beside the shared
//     one, chosen by label selectors over Namespaces; a third instance that
//     selects them all polls nothing and is reported (condition, Event,
//     metric);
//   - a tenant moved between instances by a label keeps its objects, which
//     are not written again.
//
// Each test has an emulator, tenant Namespaces and a tenancy namespace of
// its own, and scopes its instances' selectors to its tenants with a label,
// so that the tests are independent of each other.
package tenancy

import (
	"testing"

	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

func TestMain(m *testing.M) { framework.Main(m, 1, &clusters) }
