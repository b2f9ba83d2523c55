package policyview

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"antreaplus.io/antreaplus/pkg/federation/membership"
)

// TestReadBoundsEachMember reads members that never answer: each is an
// unreadable snapshot within the timeout, read concurrently, in the order given.
func TestReadBoundsEachMember(t *testing.T) {
	silent := listen(t, true)
	closed := listen(t, false)
	clusters := []membership.Cluster{
		{Name: "silent-1", Config: &rest.Config{Host: "https://" + silent}},
		{Name: "closed", Config: &rest.Config{Host: "https://" + closed}},
		{Name: "silent-2", Config: &rest.Config{Host: "https://" + silent}},
		{Name: "unconfigured"},
	}
	timeout := 500 * time.Millisecond
	start := time.Now()
	snaps := Read(t.Context(), clusters, ReadOptions{Timeout: timeout})
	if took := time.Since(start); took > 3*timeout {
		t.Errorf("Read took %s: members are not read concurrently within %s each", took, timeout)
	}
	for i, s := range snaps {
		if s.Context != clusters[i].Name || s.Err == nil || len(s.KindErrors) != 0 {
			t.Errorf("snapshot %d: context %s, error %v, kind errors %v", i, s.Context, s.Err, s.KindErrors)
		}
	}
	if !strings.Contains(snaps[1].Err.Error(), "connection refused") || !strings.Contains(snaps[3].Err.Error(), "no client configuration") {
		t.Errorf("errors: %v; %v", snaps[1].Err, snaps[3].Err)
	}
	l := List(snaps)
	if l.Summary.MembersUnreadable != 4 || l.Summary.MembersRead != 0 {
		t.Errorf("summary %+v", l.Summary)
	}
}

// listen returns the address of a TCP port of this host that accepts
// connections and never answers (silent), or that refuses them.
func listen(t *testing.T, silent bool) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if !silent {
		_ = l.Close()
		return addr
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return addr
}
