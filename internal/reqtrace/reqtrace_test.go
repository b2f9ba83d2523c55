package reqtrace_test

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"antreaplus.io/antreaplus/internal/reqtrace"
)

func TestPhases(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, tc := range []struct {
		name string
		t    reqtrace.Timing
		want map[string]time.Duration
	}{{
		name: "every point reported",
		t:    reqtrace.Timing{Start: at(0), GotConn: at(5), Wrote: at(6), FirstByte: at(906), End: at(910)},
		want: map[string]time.Duration{reqtrace.Queued: ms(5), reqtrace.Sending: ms(1), reqtrace.Answer: ms(900), reqtrace.Reading: ms(4), reqtrace.Total: ms(910)},
	}, {
		name: "no connection: only the total",
		t:    reqtrace.Timing{Start: at(0), End: at(2000)},
		want: map[string]time.Duration{reqtrace.Total: ms(2000)},
	}, {
		name: "no answer: queued and sending, then the total",
		t:    reqtrace.Timing{Start: at(0), GotConn: at(1), Wrote: at(2), End: at(1500)},
		want: map[string]time.Duration{reqtrace.Queued: ms(1), reqtrace.Sending: ms(1), reqtrace.Total: ms(1500)},
	}, {
		name: "a retry written after the first answer: no answer phase",
		t:    reqtrace.Timing{Start: at(0), GotConn: at(300), Wrote: at(301), FirstByte: at(200), End: at(400)},
		want: map[string]time.Duration{reqtrace.Queued: ms(300), reqtrace.Sending: ms(1), reqtrace.Reading: ms(200), reqtrace.Total: ms(400)},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.t.Phases()
			if len(got) != len(tc.want) {
				t.Fatalf("phases %v, want %v", got, tc.want)
			}
			for p, d := range tc.want {
				if got[p] != d {
					t.Errorf("%s: %v, want %v (all: %v)", p, got[p], d, got)
				}
			}
		})
	}
}

// TestClientGoOverHTTP2 sends a Lease update through client-go over HTTP/2
// (as the federation manager's elector does) to a server that reads the
// whole request, then waits 200 ms to answer: the wait shows in the answer
// phase, the request is reported written before the server answered, and
// every phase is reported. The check compares points in time, not a
// duration with a bound: a loaded machine may take any time to connect
// (CI once took 239 ms for the TLS handshake), and that is queued time.
func TestClientGoOverHTTP2(t *testing.T) {
	const slow = 200 * time.Millisecond
	proto := make(chan string, 1)
	read := make(chan time.Time, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case proto <- r.Proto:
		default:
		}
		if r.Method != http.MethodPut {
			http.Error(w, "not an update", http.StatusMethodNotAllowed)
			return
		}
		// The body read to its end: the client has sent all of it.
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case read <- time.Now():
		default:
		}
		time.Sleep(slow)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&coordinationv1.Lease{
			TypeMeta:   metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
			ObjectMeta: metav1.ObjectMeta{Name: "leader", Namespace: "ns"}})
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{
		CAData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	ctx, req := reqtrace.Start(t.Context())
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "leader", Namespace: "ns"}}
	if _, err := cs.CoordinationV1().Leases("ns").Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("the update failed: %v", err)
	}
	got := req.Done()
	if p := <-proto; p != "HTTP/2.0" {
		t.Fatalf("the request went over %s, not HTTP/2", p)
	}
	for _, p := range reqtrace.Phases {
		if _, ok := got[p]; !ok {
			t.Errorf("phase %s not reported (phases: %v)", p, got)
		}
	}
	if got[reqtrace.Total] < slow {
		t.Errorf("total %v: want at least the server's %v", got[reqtrace.Total], slow)
	}
	// The server answered no earlier than slow after it had read the
	// request: a request reported written after that counted the server's
	// time as its own, and a first byte reported before it counted the
	// server's time as the client's.
	answered := (<-read).Add(slow)
	wrote := t0.Add(got[reqtrace.Queued] + got[reqtrace.Sending])
	if !wrote.Before(answered) {
		t.Errorf("queued %v and sending %v: the request reported written %v after the server answered", got[reqtrace.Queued], got[reqtrace.Sending], wrote.Sub(answered))
	}
	if first := wrote.Add(got[reqtrace.Answer]); first.Before(answered) {
		t.Errorf("answer %v: the first byte reported %v before the server answered", got[reqtrace.Answer], answered.Sub(first))
	}
}
