package services

import (
	"fmt"
	"testing"
	"time"

	"antreaplus.io/antreaplus/test/framework"
)

// probeImported exports a valid Service named probe from member-1 after
// the exports under test, and waits until every member imported it: the
// leaders have then looked at what was exported before.
func probeImported(t *testing.T, ns string) {
	t.Helper()
	s := createService(t, "member-1", ns, "probe", loadBalancer())
	setIngress(t, "member-1", s, "203.0.113.99")
	exportService(t, "member-1", ns, "probe", false)
	waitImported(t, importLimit, ns, "probe", clusters.Names, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 80/TCP", "member-1")
	})
}

func TestExternalNameExportIsInvalid(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	createService(t, "member-2", ns, "ext", externalName())
	exportService(t, "member-2", ns, "ext", false)
	msg := waitCondition(t, "member-2", ns, "ext", valid, "False/InvalidServiceType")
	t.Logf("Valid: %s", msg)
	waitCondition(t, "member-2", ns, "ext", ready, "False/Failed")
	probeImported(t, ns)
	for _, c := range clusters.Names {
		if err := gone(c, readImport(t, c, ns, "ext")); err != nil {
			t.Errorf("%s imported the ExternalName export: %v", c, err)
		}
	}
}

func TestExportWithoutService(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	exportService(t, "member-3", ns, "later", false)
	waitCondition(t, "member-3", ns, "later", valid, "False/NoService")
	probeImported(t, ns)
	for _, c := range clusters.Names {
		if err := gone(c, readImport(t, c, ns, "later")); err != nil {
			t.Errorf("%s imported an export without Service: %v", c, err)
		}
	}
	// The Service arrives: the export becomes valid and is imported.
	s := createService(t, "member-3", ns, "later", loadBalancer())
	setIngress(t, "member-3", s, "203.0.113.30")
	waitCondition(t, "member-3", ns, "later", valid, "True/Valid")
	waitImported(t, importLimit, ns, "later", clusters.Names, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 80/TCP", "member-3")
	})
}

func TestClusterIPWithoutFlatNetworkOffersNothing(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	createService(t, "member-2", ns, "internal")
	createPod(t, "member-2", ns, "internal")
	exportService(t, "member-2", ns, "internal", false)
	msg := waitCondition(t, "member-2", ns, "internal", ready, "False/Failed")
	t.Logf("Ready: %s", msg)
	// It is a valid export: imported, with no endpoint (its Pods are not reachable).
	waitImported(t, importLimit, ns, "internal", clusters.Names, func(_ string, i imported) error {
		if err := checkClusterSetImport(i, "http 80/TCP", "member-2"); err != nil {
			return err
		}
		if eps := i.endpoints("member-2"); len(eps) != 0 {
			return fmt.Errorf("endpoints %v imported from a ClusterIP Service without a flat network", eps)
		}
		return nil
	})
}

func TestConflictingPorts(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	old := createService(t, "member-1", ns, "api", loadBalancer())
	setIngress(t, "member-1", old, "203.0.113.40")
	exportService(t, "member-1", ns, "api", false)
	time.Sleep(1100 * time.Millisecond) // creation timestamps have a one-second resolution
	young := createService(t, "member-2", ns, "api", loadBalancer(), servicePort("http", 8080))
	setIngress(t, "member-2", young, "203.0.113.41")
	exportService(t, "member-2", ns, "api", false)

	msg1 := waitCondition(t, "member-1", ns, "api", conflict, "True/PortConflict")
	msg2 := waitCondition(t, "member-2", ns, "api", conflict, "True/PortConflict")
	want := `port "http" is 8080/TCP in member-2 but 80/TCP in member-1 (oldest export), which is used`
	if msg1 != want || msg2 != want {
		t.Errorf("Conflict messages:\n member-1: %s\n member-2: %s\nwant both: %s", msg1, msg2, want)
	}
	// The oldest export's port is the import's; member-2's endpoints still
	// serve it, on member-2's own port.
	waitImported(t, importLimit, ns, "api", clusters.Names, func(_ string, i imported) error {
		if err := checkClusterSetImport(i, "http 80/TCP", "member-1", "member-2"); err != nil {
			return err
		}
		if got := fmt.Sprint(i.endpoints("member-1"), i.endpoints("member-2")); got != "[203.0.113.40:80] [203.0.113.41:8080]" {
			return fmt.Errorf("endpoints %s", got)
		}
		return nil
	})
	// The oldest export goes: no conflict left, the import takes member-2's port.
	unexport(t, "member-1", ns, "api")
	waitCondition(t, "member-2", ns, "api", conflict, "False/NoConflicts")
	waitImported(t, importLimit, ns, "api", clusters.Names, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 8080/TCP", "member-2")
	})
}

func TestNamespaceMissingInOneMember(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t, "member-1", "member-2")
	s := createService(t, "member-1", ns, "db", loadBalancer())
	setIngress(t, "member-1", s, "203.0.113.50")
	exportService(t, "member-1", ns, "db", false)
	waitImported(t, importLimit, ns, "db", []string{"member-1", "member-2"}, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 80/TCP", "member-1")
	})
	// Nothing in member-3: not even the namespace was made there.
	framework.Eventually(t, 5*time.Second, func() error {
		if err := gone("member-3", readImport(t, "member-3", ns, "db")); err != nil {
			return err
		}
		if imports, slices, services := managedIn(t, "member-3", ns); imports+slices+services > 0 {
			return fmt.Errorf("member-3 has %d imports, %d slices, %d Services in %s", imports, slices, services, ns)
		}
		return nil
	})
	// member-3's admin creates the namespace: the import follows.
	createNamespace(t, "member-3", ns)
	waitImported(t, importLimit, ns, "db", []string{"member-3"}, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 80/TCP", "member-1")
	})
}
