package cloud

import (
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
	"antreaplus.io/antreaplus/pkg/cloudcontroller"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

// pageSize makes the AWS provider read 100 items per page.
func pageSize(o *cloudcontroller.Options) { o.Provider.AWSPageSize = 100 }

func TestThousandsOfVMsAcrossPages(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{})
	cloud.addVMs(t, 1500, "prod", "web", awsemu.InstanceSpec{Tags: map[string]string{"role": "web"}})
	startController(t, controllerOptions{opts: pageSize}, ns)
	create(t, c, secret(ns, "aws-credentials", awsSecretData()), awsAccount(ns, "aws", cloud.url), selectorFor(ns, "aws", "aws"))
	waitImportedWithin(t, bigTimeout, c, ns, 1500, 1500, 1500)
	// 1500 instances at 100 a page: at least 15 calls.
	if n := cloud.emu.Calls("DescribeInstances"); n < 15 {
		t.Errorf("%d DescribeInstances calls; want at least 15 pages", n)
	}
	t.Logf("calls: %v", cloud.emu.CallCounts())
}

// TestThrottlingForSeveralPolls throttles every call of three polls: the
// account says so, the imported objects stay, the polls back off, and it
// all recovers.
func TestThrottlingForSeveralPolls(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{})
	cloud.addVMs(t, 3, "prod", "web", awsemu.InstanceSpec{})
	ctl := startController(t, controllerOptions{}, ns)
	acct, sel := awsAccount(ns, "aws", cloud.url), selectorFor(ns, "aws", "aws")
	create(t, c, secret(ns, "aws-credentials", awsSecretData()), acct, sel)
	waitImported(t, c, ns, 3, 3, 3)
	waitCondition(t, c, acct, cloudv1alpha1.ConditionReady, metav1.ConditionTrue, "Ready")

	var mu sync.Mutex
	var polls []time.Time
	cloud.emu.OnCall(func(action string) {
		if action == "DescribeInstances" {
			mu.Lock()
			polls = append(polls, time.Now())
			mu.Unlock()
		}
	})
	before := ctl.writes.Counts()
	// Two attempts per poll (AWSMaxAttempts): three polls fail.
	cloud.emu.Throttle("DescribeInstances", 6)
	cond := waitCondition(t, c, acct, cloudv1alpha1.AccountConditionInventoryPolled, metav1.ConditionFalse, cloudv1alpha1.AccountReasonThrottled)
	t.Logf("while throttled: %s", cond.Message)
	waitCondition(t, c, sel, cloudv1alpha1.SelectorConditionInventorySynced, metav1.ConditionFalse, cloudv1alpha1.AccountReasonThrottled)
	waitCondition(t, c, acct, cloudv1alpha1.ConditionReady, metav1.ConditionTrue, "Ready")
	waitImported(t, c, ns, 3, 3, 3)
	for k, n := range ctl.writes.Counts() {
		if k.Kind != "CloudProviderAccount" && k.Kind != "CloudEntitySelector" && n != before[k] {
			t.Errorf("throttling made %d %s writes of %s", n-before[k], k.Verb, k.Kind)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(polls) < 7 {
		t.Fatalf("%d DescribeInstances calls; want 3 throttled polls of 2 and a good one", len(polls))
	}
	// Attempts come in pairs; the gaps between polls grow: 2, 4, 8 intervals.
	gap1, gap2, gap3 := polls[2].Sub(polls[1]), polls[4].Sub(polls[3]), polls[6].Sub(polls[5])
	t.Logf("gaps between throttled polls: %s %s %s", gap1, gap2, gap3)
	if gap1 < 2*interval-200*time.Millisecond || gap2 <= gap1 || gap3 <= gap2 {
		t.Errorf("no backoff: gaps %s %s %s", gap1, gap2, gap3)
	}
}

func TestVMTerminatedMidPoll(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{})
	vms := cloud.addVMs(t, 250, "prod", "web", awsemu.InstanceSpec{})
	startController(t, controllerOptions{opts: pageSize}, ns)
	create(t, c, secret(ns, "aws-credentials", awsSecretData()), awsAccount(ns, "aws", cloud.url), selectorFor(ns, "aws", "aws"))
	waitImported(t, c, ns, 250, 250, 250)

	// Between the first and second page of the next poll, terminate a VM
	// of the first page, and one of the last.
	var once sync.Once
	pages := 0
	cloud.emu.OnCall(func(action string) {
		if action != "DescribeInstances" {
			return
		}
		if pages++; pages%3 == 2 {
			once.Do(func() {
				for _, vm := range []awsemu.Instance{vms[0], vms[249]} {
					if err := cloud.emu.Terminate(awsRegion, vm.ID); err != nil {
						t.Error(err)
					}
				}
			})
		}
	})
	waitImported(t, c, ns, 248, 248, 248)
}

// TestRestartMidImport stops the controller in the middle of importing
// 600 VMs, starts another, and checks that the import completes without
// duplicates or orphans.
func TestRestartMidImport(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{})
	cloud.addVMs(t, 600, "prod", "web", awsemu.InstanceSpec{})
	first := startController(t, controllerOptions{workers: 1}, ns)
	create(t, c, secret(ns, "aws-credentials", awsSecretData()), awsAccount(ns, "aws", cloud.url), selectorFor(ns, "aws", "aws"))
	waitAtLeast(t, 100, func() int { return len(imported(t, c, ns).VirtualMachines) })
	first.Stop()
	partial := imported(t, c, ns)
	t.Logf("stopped after %d VMs and %d NICs", len(partial.VirtualMachines), len(partial.NetworkInterfaces))
	if len(partial.VirtualMachines) == 600 && len(partial.NetworkInterfaces) == 600 {
		t.Fatal("the import finished before the restart; the test proves nothing")
	}

	second := startController(t, controllerOptions{}, ns)
	o := waitImportedWithin(t, bigTimeout, c, ns, 600, 600, 600)
	checkOwnership(t, o, entities(t, c, ns))
	before := second.writes.Total()
	waitPolls(t, 2, func() int { return cloud.emu.Calls("DescribeInstances") })
	if n := second.writes.Total() - before; n != 0 {
		t.Errorf("%d writes in polls after the import: %v", n, second.writes.Counts())
	}
}

func waitAtLeast(t *testing.T, n int, count func() int) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for count() < n {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d after %s", n, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkOwnership checks that every interface is owned by a VM that exists,
// by its UID, and every ExternalEntity by an interface that exists.
func checkOwnership(t *testing.T, o inventory.Objects, ees []entity) {
	t.Helper()
	vms := map[string]types.UID{}
	for _, v := range o.VirtualMachines {
		vms[v.Name] = v.UID
	}
	nics := map[string]types.UID{}
	for _, n := range o.NetworkInterfaces {
		nics[n.Name] = n.UID
		owner := metav1.GetControllerOf(&n)
		if owner == nil || owner.Kind != "VirtualMachine" || vms[owner.Name] != owner.UID || owner.Name != n.Spec.VirtualMachine {
			t.Errorf("NetworkInterface %s has owner %v", n.Name, owner)
		}
	}
	for _, e := range ees {
		owner := metav1.GetControllerOf(&e)
		if owner == nil || owner.Kind != "NetworkInterface" || nics[owner.Name] != owner.UID {
			t.Errorf("ExternalEntity %s has owner %v", e.Name, owner)
		}
	}
}
