// Package dns tests the project's CoreDNS build end to end: the built
// binary, run as a process on its own loopback address, answering real
// queries over UDP and TCP from ServiceImports and EndpointSlices held by a
// real kube-apiserver, created here as the import writer creates them.
package dns

import (
	"testing"

	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

// member is the one cluster the DNS server serves.
const member = "member-1"

func TestMain(m *testing.M) {
	framework.Main(m, 1, &clusters)
}
