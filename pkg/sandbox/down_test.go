package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDeadComponents: `up` restarts a cluster one of whose components has
// exited (a controller manager that lost its Lease), and only then.
func TestDeadComponents(t *testing.T) {
	s := New(Options{Dir: t.TempDir()})
	pids := filepath.Join(s.ClusterDir("member-1"), "pids")
	if err := os.MkdirAll(pids, 0o755); err != nil {
		t.Fatal(err)
	}
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	write := func(component string, pid int) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(pids, component+".pid"), []byte(strconv.Itoa(pid)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("kube-apiserver", os.Getpid())
	write("etcd", os.Getpid())
	if dead := s.deadComponents("member-1"); len(dead) != 0 {
		t.Fatalf("every component runs, yet dead = %v", dead)
	}
	write("kube-scheduler", exited.Process.Pid)
	write("kube-controller-manager", exited.Process.Pid)
	if dead, want := s.deadComponents("member-1"), []string{"kube-controller-manager", "kube-scheduler"}; !slices.Equal(dead, want) {
		t.Fatalf("dead = %v, want %v", dead, want)
	}
	if got := s.pids("member-1"); len(got) != 4 {
		t.Fatalf("pids = %v, want the 4 recorded", got)
	}
	if dead := s.deadComponents("member-2"); len(dead) != 0 {
		t.Fatalf("a cluster with no pid files has dead components %v", strings.Join(dead, ","))
	}
}
