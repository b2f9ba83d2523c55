package dnsendpoints

import (
	"testing"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"antreaplus.io/antreaplus/test/framework"
)

// The controller runs in-process as the elected leader of member-1 (package
// leadertest), reading member-1 and member-2 through caches of real API
// servers, with ExternalDNS's own DNSEndpoint CRD installed in member-1.
// test/e2e/externaldns runs it with the real ExternalDNS and a DNS server.

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	log.SetLogger(klog.Background())
	framework.Main(m, 2, &clusters)
}
