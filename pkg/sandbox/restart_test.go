package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// kwokYAML is the shape of kwokctl's record of a cluster: the
// KwokctlConfiguration's components, then Stage documents.
const kwokYAML = `apiVersion: config.kwok.x-k8s.io/v1alpha1
components:
- args:
  - --kubeconfig=/x/kubeconfig.yaml
  binary: /x/bin/kube-apiserver
  name: kube-apiserver
  workDir: /x
- args:
  - -c
  - echo "started in $(pwd) with $COMPONENT_ENV"; exec sleep 30
  binary: /bin/sh
  envs:
  - name: COMPONENT_ENV
    value: from-kwokctl
  name: kube-controller-manager
  workDir: WORKDIR
kind: KwokctlConfiguration
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-initialize
`

func TestParseRecordedComponent(t *testing.T) {
	c, err := parseRecordedComponent([]byte(kwokYAML), "kube-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	if c.Binary != "/x/bin/kube-apiserver" || !slices.Equal(c.Args, []string{"--kubeconfig=/x/kubeconfig.yaml"}) || c.WorkDir != "/x" {
		t.Fatalf("kube-apiserver read as %+v", c)
	}
	if _, err := parseRecordedComponent([]byte(kwokYAML), "kube-scheduler"); err == nil || !strings.Contains(err.Error(), "no component kube-scheduler") {
		t.Fatalf("a component not recorded: err = %v", err)
	}
	if _, err := parseRecordedComponent([]byte("kind: KwokctlConfiguration\ncomponents: [{name: etcd}]\n"), "etcd"); err == nil || !strings.Contains(err.Error(), "no binary") {
		t.Fatalf("a component without binary: err = %v", err)
	}
	if _, err := parseRecordedComponent([]byte("components: {"), "etcd"); err == nil {
		t.Fatal("a broken file read without error")
	}
}

// TestStartComponent: a component started again runs as kwokctl ran it
// (binary, arguments, directory, environment), appends to its log and is
// recorded in its pid file, where deadComponents finds it alive.
func TestStartComponent(t *testing.T) {
	s := New(Options{Dir: t.TempDir()})
	dir := s.ClusterDir("member-1")
	work := t.TempDir()
	for _, d := range []string{"pids", "logs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "kwok.yaml"), []byte(strings.Replace(kwokYAML, "WORKDIR", work, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(s.LogDir("member-1"), "kube-controller-manager.log")
	if err := os.WriteFile(log, []byte("the first run's lines\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.startComponent("member-1", "kube-controller-manager"); err != nil {
		t.Fatal(err)
	}
	pid := s.componentPids("member-1")["kube-controller-manager"]
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if !Alive(pid) {
		t.Fatalf("pid file names %d, not a live process", pid)
	}
	if dead := s.deadComponents("member-1"); len(dead) != 0 {
		t.Fatalf("dead = %v after the start", dead)
	}
	want := "the first run's lines\nstarted in " + work + " with from-kwokctl\n"
	deadline := time.Now().Add(10 * time.Second)
	for {
		raw, _ := os.ReadFile(log)
		if string(raw) == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("log = %q, want %q", raw, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if sid, err := unix.Getsid(pid); err != nil || sid != pid {
		t.Fatalf("the component's session is %d (%v), want its own (%d)", sid, err, pid)
	}
	if err := s.startComponent("member-1", "kube-scheduler"); err == nil {
		t.Fatal("a component kwokctl did not record was started")
	}
}
