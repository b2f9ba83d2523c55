package services

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/test/framework"
)

// burstSize is 1000 unless ANTREAPLUS_BURST overrides it.
func burstSize() int {
	if n, err := strconv.Atoi(os.Getenv("ANTREAPLUS_BURST")); err == nil && n > 0 {
		return n
	}
	return 1000
}

// parallel runs f(i) for i in [0, n) on 16 goroutines and returns the first error.
func parallel(n int, f func(i int) error) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	return <-errs
}

func TestBurstOfExportsCreatedAndDeleted(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	n := burstSize()
	const exporter = "member-2"
	c := cl(t, exporter)
	name := func(i int) string { return fmt.Sprintf("burst-%04d", i) }
	start := time.Now()
	err := parallel(n, func(i int) error {
		// Without a selector: the burst exercises the exports, not the
		// controller manager's own EndpointSlices of member-2.
		s := newService(ns, name(i), nodePort(), withoutSelector())
		if err := c.Create(bg, s); err != nil {
			return err
		}
		return c.Create(bg, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name(i)}})
	})
	if err != nil {
		t.Fatalf("creating the burst: %v", err)
	}
	t.Logf("%d Services and exports created in %s", n, time.Since(start).Round(100*time.Millisecond))

	// Nothing missing: every member imports every name, with member-2's endpoints.
	framework.EventuallyEvery(t, 5*time.Minute, time.Second, func() error {
		for _, m := range clusters.Names {
			imports, slices, services := managedIn(t, m, ns)
			if imports != n || slices != n || services != n {
				return fmt.Errorf("%s: %d imports, %d slices, %d derived Services of %d", m, imports, slices, services, n)
			}
		}
		return nil
	})
	t.Logf("all %d imported into %d members %s after the first create", n, len(clusters.Names), time.Since(start).Round(100*time.Millisecond))
	checkBurstExports(t, ns, exporter, n)

	start = time.Now()
	err = parallel(n, func(i int) error {
		if err := c.Delete(bg, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name(i)}}); err != nil {
			return err
		}
		return c.Delete(bg, newService(ns, name(i)))
	})
	if err != nil {
		t.Fatalf("deleting the burst: %v", err)
	}
	// Nothing left behind.
	framework.EventuallyEvery(t, 5*time.Minute, time.Second, func() error {
		for _, m := range clusters.Names {
			if imports, slices, services := managedIn(t, m, ns); imports+slices+services > 0 {
				return fmt.Errorf("%s: %d imports, %d slices, %d derived Services left", m, imports, slices, services)
			}
		}
		return nil
	})
	t.Logf("all %d withdrawn from %d members %s after the first delete", n, len(clusters.Names), time.Since(start).Round(100*time.Millisecond))
}

// checkBurstExports checks every export's conditions and every member's endpoints.
func checkBurstExports(t *testing.T, ns, exporter string, n int) {
	t.Helper()
	framework.EventuallyEvery(t, 2*time.Minute, time.Second, func() error {
		list := &mcsv1beta1.ServiceExportList{}
		if err := cl(t, exporter).List(bg, list, client.InNamespace(ns)); err != nil {
			return err
		}
		good := 0
		for _, e := range list.Items {
			if meta.IsStatusConditionTrue(e.Status.Conditions, string(valid)) && meta.IsStatusConditionTrue(e.Status.Conditions, string(ready)) &&
				meta.IsStatusConditionFalse(e.Status.Conditions, string(conflict)) {
				good++
			}
		}
		if good != n {
			return fmt.Errorf("%d of %d exports are Valid, Ready and without conflict", good, n)
		}
		return nil
	})
	for _, m := range clusters.Names {
		if missing := namesWithoutEndpoints(t, m, ns, exporter); len(missing) > 0 {
			t.Errorf("%s: %d imports have no endpoint from %s, e.g. %v", m, len(missing), exporter, missing[:min(5, len(missing))])
		}
	}
}
