package leaderloop

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/test/leadertest"
)

func TestFencedRefusesOnceNotLeading(t *testing.T) {
	m := manager.Member{ClusterID: "member-2", Term: 3, Fence: leadertest.NotLeading("member-2")}
	stamp := &corev1.ConfigMap{}
	called := false
	err := Fenced(m, stamp, func() error { called = true; return nil })
	if !errors.Is(err, ErrFenced) || called {
		t.Fatalf("a manager that no longer leads wrote (called %v, err %v)", called, err)
	}
	if len(stamp.Annotations) != 0 {
		t.Errorf("a refused write stamped the object: %v", stamp.Annotations)
	}
}
