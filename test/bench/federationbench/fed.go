package main

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/sandbox"
)

// fed is a running benchmark federation.
type fed struct {
	sb          *sandbox.Sandbox
	members     []string
	supervisors []string
	clients     map[string]kubernetes.Interface
	bin         string
}

func newFed(sb *sandbox.Sandbox, n, k int, bin string) (*fed, error) {
	f := &fed{sb: sb, clients: map[string]kubernetes.Interface{}, bin: bin}
	for i := 1; i <= n; i++ {
		name := sandbox.ClusterName(i)
		cfg, err := sb.RESTConfig(name)
		if err != nil {
			return nil, err
		}
		cfg.Timeout = time.Second
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		f.members = append(f.members, name)
		f.clients[name] = cs
		if i <= k {
			f.supervisors = append(f.supervisors, name)
		}
	}
	return f, nil
}

func (f *fed) down() {
	fmt.Fprintf(os.Stderr, "manager logs were in %s\n", logPath(f.sb))
	_ = f.sb.Down(context.Background())
}

// lease returns a member's Lease holder and transitions.
func (f *fed) lease(member string) (string, int32) {
	l, err := f.clients[member].CoordinationV1().Leases(federationv1alpha1.SystemNamespace).Get(context.Background(), federationv1alpha1.LeaderLease, metav1.GetOptions{})
	if err != nil {
		return "", 0
	}
	return ptr.Deref(l.Spec.HolderIdentity, ""), ptr.Deref(l.Spec.LeaseTransitions, 0)
}

func (f *fed) leaders() map[string]string {
	out := map[string]string{}
	for _, m := range f.members {
		out[m], _ = f.lease(m)
	}
	return out
}

func (f *fed) transitions() int32 {
	var sum int32
	for _, m := range f.members {
		_, t := f.lease(m)
		sum += t
	}
	return sum
}

func (f *fed) maxLoad(leaders map[string]string) int {
	load := map[string]int{}
	best := 0
	for _, l := range leaders {
		load[l]++
		best = max(best, load[l])
	}
	return best
}

// waitBalanced waits until every member is led and nobody leads more than capacity.
func (f *fed) waitBalanced(capacity int, timeout time.Duration) (time.Duration, error) {
	start := time.Now()
	for time.Since(start) < timeout {
		leaders := f.leaders()
		ok := true
		for _, l := range leaders {
			ok = ok && l != ""
		}
		if ok && f.maxLoad(leaders) <= capacity {
			return time.Since(start), nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0, fmt.Errorf("not balanced within %s: %v", timeout, f.leaders())
}

// failoverOnce stops the busiest supervisor's manager with sig, times the
// take-over of its members, restarts it and waits for balance. It returns
// the take-over time, the number of orphans, the time to balance after the
// return, and {max load after return, hand-overs during the return}.
func (f *fed) failoverOnce(sig syscall.Signal, capacity int) (time.Duration, int, time.Duration, [2]float64, error) {
	leaders := f.leaders()
	victim, most := "", -1
	load := map[string]int{}
	for _, l := range leaders {
		load[l]++
	}
	for _, s := range f.supervisors {
		if load[s] > most {
			victim, most = s, load[s]
		}
	}
	var orphans []string
	for m, l := range leaders {
		if l == victim {
			orphans = append(orphans, m)
		}
	}
	pid := f.sb.ManagerPid(victim)
	if pid == 0 {
		return 0, 0, 0, [2]float64{}, fmt.Errorf("no manager in %s", victim)
	}
	start := time.Now()
	if err := syscall.Kill(pid, sig); err != nil {
		return 0, 0, 0, [2]float64{}, err
	}
	for _, m := range orphans {
		for {
			if h, _ := f.lease(m); h != "" && h != victim {
				break
			}
			if time.Since(start) > time.Minute {
				return 0, 0, 0, [2]float64{}, fmt.Errorf("%s not led again within a minute", m)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	took := time.Since(start)
	for sandbox.Alive(pid) {
		time.Sleep(50 * time.Millisecond)
	}
	before := f.transitions()
	returned := time.Now()
	if _, err := f.sb.StartManager(victim, f.bin); err != nil {
		return 0, 0, 0, [2]float64{}, err
	}
	// Balance is back when the returning supervisor leads its share again.
	for {
		leaders := f.leaders()
		n := 0
		for _, l := range leaders {
			if l == victim {
				n++
			}
		}
		if n > 0 && f.maxLoad(leaders) <= capacity {
			break
		}
		if time.Since(returned) > 2*time.Minute {
			return 0, 0, 0, [2]float64{}, fmt.Errorf("no balance within 2 minutes of %s returning: %v", victim, leaders)
		}
		time.Sleep(100 * time.Millisecond)
	}
	settle := time.Since(returned)
	time.Sleep(3 * time.Second) // let stragglers move, and count them
	return took, len(orphans), settle, [2]float64{float64(f.maxLoad(f.leaders())), float64(f.transitions() - before)}, nil
}
