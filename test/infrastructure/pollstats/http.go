package pollstats

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Admin API paths an emulator serves a Tracker on.
const (
	// StatsPath answers GET with the Stats as JSON.
	StatsPath = "/admin/pollstats"
	// ResetPath resets the Tracker on POST and answers 204.
	ResetPath = "/admin/pollstats/reset"
)

// IsAdminPath reports whether an emulator should pass a request for path
// to ServeHTTP rather than serve it as a cloud API call.
func IsAdminPath(path string) bool {
	return path == StatsPath || path == ResetPath
}

// ServeHTTP serves the admin API: GET StatsPath and POST ResetPath.
func (t *Tracker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == StatsPath && r.Method == http.MethodGet:
		body, err := json.Marshal(t.Stats())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	case r.URL.Path == ResetPath && r.Method == http.MethodPost:
		t.Reset()
		w.WriteHeader(http.StatusNoContent)
	case IsAdminPath(r.URL.Path):
		w.Header().Set("Allow", map[bool]string{true: http.MethodGet, false: http.MethodPost}[r.URL.Path == StatsPath])
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	default:
		http.NotFound(w, r)
	}
}

// Fetch reads the Stats of the emulator at baseURL (its AWS endpoint, or
// its Azure endpoint with a client that trusts its CA).
func Fetch(ctx context.Context, client *http.Client, baseURL string) (Stats, error) {
	var s Stats
	body, err := do(ctx, client, http.MethodGet, baseURL, StatsPath, http.StatusOK)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(body, &s); err != nil {
		return s, fmt.Errorf("poll stats of %s: %w", baseURL, err)
	}
	return s, nil
}

// Reset resets the Stats of the emulator at baseURL.
func Reset(ctx context.Context, client *http.Client, baseURL string) error {
	_, err := do(ctx, client, http.MethodPost, baseURL, ResetPath, http.StatusNoContent)
	return err
}

func do(ctx context.Context, client *http.Client, method, baseURL, path string, want int) ([]byte, error) {
	if client == nil {
		client = http.DefaultClient
	}
	u := strings.TrimSuffix(baseURL, "/") + path
	var body io.Reader
	if method == http.MethodPost {
		body = bytes.NewReader(nil)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	defer func() { _ = resp.Body.Close() }()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, bytes.TrimSpace(out))
	}
	return out, nil
}
