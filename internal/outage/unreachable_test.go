package outage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestUnreachable(t *testing.T) {
	// A real refused connection: a port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	refused := get(t.Context(), "http://"+addr+"/")
	// A real timeout on a server that accepted the request and is slow.
	slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { time.Sleep(time.Second) }))
	t.Cleanup(slow.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	timedOut := get(ctx, slow.URL)
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"connection refused", refused, true},
		{"stream ended early", fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), true},
		{"connection reset", errors.New("read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer"), true},
		{"a dial that failed", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("i/o timeout")}, true},
		{"a request that timed out at a slow server", timedOut, false},
		{"the context's deadline", context.DeadlineExceeded, false},
		{"a conflict: the server answered", apierrors.NewConflict(schema.GroupResource{Resource: "leases"}, "l", errors.New("changed")), false},
		{"too many requests: the server answered", apierrors.NewTooManyRequests("busy", 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil && tc.name != "nil" {
				t.Fatal("the test could not make its error")
			}
			if got := Unreachable(tc.err); got != tc.want {
				t.Errorf("Unreachable(%v) = %t, want %t", tc.err, got, tc.want)
			}
		})
	}
}

// get is the error of a GET of url (nil when it answered).
func get(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if resp != nil {
		_ = resp.Body.Close()
	}
	return err
}
