package consumer

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// Options configure a Client.
type Options struct {
	// Server is the distribution server's base URL, https://host:port.
	Server string
	// TokenFile holds the bearer token; it is read again before every
	// request, so that a rotated token is picked up. Token, when set, is
	// used instead.
	TokenFile string
	Token     string
	// CAFile holds the CA certificates that sign the server's certificate
	// (default: the system's). TLS, when set, is used instead.
	CAFile string
	TLS    *tls.Config
	// HeartbeatTimeout is how long a watch stream may stay silent before
	// the client gives it up and reconnects (default 30 s, three server
	// heartbeats).
	HeartbeatTimeout time.Duration
	// MinBackoff and MaxBackoff bound the wait between reconnections
	// (default 500 ms and 30 s).
	MinBackoff, MaxBackoff time.Duration
	Log                    logr.Logger
}

// Client talks to the policy distribution server as one consumer: a VM
// agent, or the agentless consumer.
type Client struct {
	opts Options
	http *http.Client
	base *url.URL
}

// New returns a Client.
func New(opts Options) (*Client, error) {
	base, err := url.Parse(opts.Server)
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, fmt.Errorf("server %q is not a URL such as https://host:port", opts.Server)
	}
	if opts.Token == "" && opts.TokenFile == "" {
		return nil, errors.New("a token or a token file is required")
	}
	if opts.HeartbeatTimeout <= 0 {
		opts.HeartbeatTimeout = 30 * time.Second
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(30*time.Second, opts.MinBackoff)
	}
	// The transport changes its TLS config: it must not share the caller's.
	tlsConfig := opts.TLS.Clone()
	if tlsConfig == nil {
		if tlsConfig, err = loadTLS(opts.CAFile); err != nil {
			return nil, err
		}
	}
	transport := &http.Transport{
		TLSClientConfig:       tlsConfig,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 15 * time.Second,
		IdleConnTimeout:       90 * time.Second,
	}
	return &Client{opts: opts, http: &http.Client{Transport: transport}, base: base}, nil
}

func loadTLS(caFile string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("reading the CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("no certificate in the CA file %s", caFile)
	}
	cfg.RootCAs = pool
	return cfg, nil
}

// StatusError is a request the server refused.
type StatusError struct {
	Code    int
	Message string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("server answered %d %s: %s", e.Code, http.StatusText(e.Code), e.Message)
}

// IsUnauthorized reports whether err is the server refusing the token.
func IsUnauthorized(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && (se.Code == http.StatusUnauthorized || se.Code == http.StatusForbidden)
}

// Report sends an agent's report.
func (c *Client) Report(ctx context.Context, rep wire.Report) (wire.ReportResponse, error) {
	body, err := json.Marshal(rep)
	if err != nil {
		return wire.ReportResponse{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	resp, err := c.do(ctx, http.MethodPost, wire.PathReport, nil, bytes.NewReader(body))
	if err != nil {
		return wire.ReportResponse{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	var out wire.ReportResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return wire.ReportResponse{}, fmt.Errorf("decoding the report response: %w", err)
	}
	return out, nil
}

// ReportAgentless sends the agentless consumer's report.
func (c *Client) ReportAgentless(ctx context.Context, rep wire.AgentlessReport) error {
	body, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := c.do(ctx, http.MethodPost, wire.PathAgentlessReport, nil, bytes.NewReader(body))
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// do sends an authenticated request and returns the response when its
// status is 200; otherwise a *StatusError.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body io.Reader) (*http.Response, error) {
	token, err := c.token()
	if err != nil {
		return nil, err
	}
	u := c.base.JoinPath(path)
	u.RawQuery = query.Encode()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusOK {
		return resp, nil
	}
	defer func() { _ = resp.Body.Close() }()
	var e wire.Error
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(raw, &e) != nil || e.Message == "" {
		e.Message = strings.TrimSpace(string(raw))
	}
	return nil, &StatusError{Code: resp.StatusCode, Message: e.Message}
}

func (c *Client) token() (string, error) {
	if c.opts.Token != "" {
		return c.opts.Token, nil
	}
	raw, err := os.ReadFile(c.opts.TokenFile)
	if err != nil {
		return "", fmt.Errorf("reading the token file: %w", err)
	}
	token := strings.TrimSpace(string(raw))
	if token == "" {
		return "", fmt.Errorf("the token file %s is empty", c.opts.TokenFile)
	}
	return token, nil
}

func watchQuery(cur cursor) url.Values {
	q := url.Values{}
	if cur.epoch != "" {
		q.Set(wire.ParamScope, cur.scope)
		q.Set(wire.ParamEpoch, cur.epoch)
		q.Set(wire.ParamSince, strconv.FormatUint(cur.generation, 10))
	}
	return q
}

// Probes takes the live probes asked of the agent, waiting up to
// wire.ProbeWait on the server for one; an empty list when none came.
func (c *Client) Probes(ctx context.Context) ([]wire.ProbeRequest, error) {
	ctx, cancel := context.WithTimeout(ctx, wire.ProbeWait+10*time.Second)
	defer cancel()
	resp, err := c.do(ctx, http.MethodGet, wire.PathProbes, nil, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	var out []wire.ProbeRequest
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decoding the probes: %w", err)
	}
	return out, nil
}

// ProbeResult answers a probe.
func (c *Client) ProbeResult(ctx context.Context, res wire.ProbeResult) error {
	body, err := json.Marshal(res)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	resp, err := c.do(ctx, http.MethodPost, wire.PathProbes, nil, bytes.NewReader(body))
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}
