package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"antreaplus.io/antreaplus/pkg/console/source"
	"antreaplus.io/antreaplus/pkg/console/web"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/pkg/trace/gather"
	"antreaplus.io/antreaplus/pkg/trace/tracing"
)

// Mode is how the console is run.
type Mode string

// Modes.
const (
	// Local: on the user's machine, reading every member through the
	// user's kubeconfig contexts; a session token guards it.
	Local Mode = "local"
	// InCluster: in a member, reading it with its own read-only account;
	// each viewer signs in with a Kubernetes token and sees what they
	// may list.
	InCluster Mode = "in-cluster"
)

// Options configure a console.
type Options struct {
	Mode Mode
	// Listener is where it serves (the command's --address and --port).
	Listener net.Listener
	// Clusters are the members to show (Local), each a kubeconfig context.
	Clusters []membership.Cluster
	// InCluster is the account's configuration (InCluster mode) and Name
	// the member's name in the views.
	InCluster *rest.Config
	Name      string
	// Domain is the members' cluster domain (cluster.local), for DNS names.
	Domain string
	// Token is the session token (Local); made when empty.
	Token string
	// TLS, when set, serves HTTPS (the in-cluster console): the
	// certificate and key files.
	CertFile, KeyFile string
	Registry          prometheus.Registerer
	Gatherer          prometheus.Gatherer
	Log               *slog.Logger
}

// Server is a running console.
type Server struct {
	opts    Options
	hub     *hub
	auth    authenticator
	metrics *metrics
	members []*source.Member
	token   string
	// traces run one at a time: each asks the members for objects.
	traceMu sync.Mutex
}

// New makes a console; Run serves it.
func New(opts Options) (*Server, error) {
	if opts.Listener == nil {
		return nil, errors.New("console: no listener")
	}
	if opts.Domain == "" {
		opts.Domain = "cluster.local"
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{opts: opts, metrics: newMetrics()}
	if opts.Registry != nil {
		if err := s.metrics.register(opts.Registry); err != nil {
			return nil, err
		}
	}
	kinds := source.Kinds()
	switch opts.Mode {
	case Local:
		if len(opts.Clusters) == 0 {
			return nil, errors.New("console: no kubeconfig context to show")
		}
		s.token = opts.Token
		if s.token == "" {
			t, err := newToken()
			if err != nil {
				return nil, err
			}
			s.token = t
		}
		s.auth = localAuth{token: s.token, hosts: localHosts(opts.Listener.Addr())}
		for _, c := range opts.Clusters {
			s.members = append(s.members, source.NewMember(c.Name, c.Config, kinds, func(k string) { s.hub.changed(k) }))
		}
	case InCluster:
		if opts.InCluster == nil {
			return nil, errors.New("console: no in-cluster configuration")
		}
		cs, err := kubernetes.NewForConfig(opts.InCluster)
		if err != nil {
			return nil, fmt.Errorf("console: client of the cluster: %w", err)
		}
		s.auth = newReviewAuth(cs, kinds)
		name := opts.Name
		if name == "" {
			name = "this cluster"
		}
		s.members = append(s.members, source.NewMember(name, opts.InCluster, kinds, func(k string) { s.hub.changed(k) }))
	default:
		return nil, fmt.Errorf("console: mode %q: want %s or %s", opts.Mode, Local, InCluster)
	}
	s.hub = newHub(s.members, opts.Domain, s.metrics)
	return s, nil
}

// URL is the address to open: the local console's carries the token.
func (s *Server) URL() string {
	scheme := "http"
	if s.opts.CertFile != "" {
		scheme = "https"
	}
	u := fmt.Sprintf("%s://%s/", scheme, s.opts.Listener.Addr().String())
	if s.opts.Mode == Local {
		u += "?token=" + s.token
	}
	return u
}

// Run watches the members and serves until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for _, m := range s.members {
		wg.Go(func() {
			if err := m.Run(ctx); err != nil {
				s.opts.Log.Error("member not watched", "context", m.Context, "err", err)
			}
		})
	}
	wg.Go(func() { s.hub.run(ctx) })
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		_ = srv.Shutdown(sctx)
	}()
	var err error
	if s.opts.CertFile != "" {
		err = srv.ServeTLS(s.opts.Listener, s.opts.CertFile, s.opts.KeyFile)
	} else {
		err = srv.Serve(s.opts.Listener)
	}
	cancel()
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Handler serves the console: its page and assets, the views as JSON and
// as server-sent events, the trace form's API, health and metrics.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	mux.HandleFunc("POST /login", s.login)
	assets, _ := fs.Sub(web.Assets, "assets")
	static := http.FileServerFS(assets)
	mux.Handle("GET /", s.guard("page", func(w http.ResponseWriter, r *http.Request, _ Viewer) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		static.ServeHTTP(w, r)
	}))
	mux.Handle("GET /api/info", s.guard("api", s.info))
	mux.Handle("GET /api/views/{view}", s.guard("api", s.viewJSON))
	mux.Handle("GET /api/events/{view}", s.guard("events", s.events))
	mux.Handle("POST /api/trace", s.guard("trace", s.trace))
	if s.opts.Gatherer != nil {
		mux.Handle("GET /metrics", s.guard("metrics", func(w http.ResponseWriter, r *http.Request, _ Viewer) {
			promhttp.HandlerFor(s.opts.Gatherer, promhttp.HandlerOpts{}).ServeHTTP(w, r)
		}))
	}
	return mux
}

// guard authenticates, then serves; every answer is counted.
func (s *Server) guard(path string, h func(http.ResponseWriter, *http.Request, Viewer)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		defer func() { s.metrics.requests.WithLabelValues(path, strconv.Itoa(rec.code/100)+"xx").Inc() }()
		v, ok := s.auth.authenticate(rec, r)
		if !ok {
			return
		}
		h(rec, r, v)
	})
}

// statusRecorder keeps the status code written (and flushes: events).
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) { r.code = code; r.ResponseWriter.WriteHeader(code) }
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// login takes an in-cluster viewer's token from the sign-in form into an
// HttpOnly cookie, once the API server accepts it.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	ra, ok := s.auth.(*reviewAuth)
	if !ok {
		http.Error(w, "this console signs in through the address its command printed", http.StatusNotFound)
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	if _, why := ra.review(r.Context(), token); token == "" || why != "" {
		if token == "" {
			why = "no token given"
		}
		unauthorized(w, r, why, true)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: token, Path: "/", HttpOnly: true, Secure: s.opts.CertFile != "",
		SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// info is what the page needs to know of the console.
func (s *Server) info(w http.ResponseWriter, _ *http.Request, v Viewer) {
	ctxs := make([]string, 0, len(s.members))
	for _, m := range s.members {
		ctxs = append(ctxs, m.Context)
	}
	writeJSON(w, map[string]any{"mode": s.opts.Mode, "contexts": ctxs, "viewer": v, "trace": s.opts.Mode == Local,
		"views": []string{ViewFederation, ViewServices, ViewPolicies, ViewClouds}})
}

func knownView(name string) bool {
	_, ok := viewKinds[name]
	return ok
}

// viewJSON is a view's latest version.
func (s *Server) viewJSON(w http.ResponseWriter, r *http.Request, v Viewer) {
	name := r.PathValue("view")
	if !knownView(name) {
		http.Error(w, fmt.Sprintf("no view %q (views: federation, services, policies, clouds)", name), http.StatusNotFound)
		return
	}
	raw, version, err := s.current(r.Context(), name, v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Console-Version", strconv.FormatInt(version, 10))
	_, _ = w.Write(raw)
}

// current is a view's latest JSON for v, waiting up to 10 s for its first
// computation.
func (s *Server) current(ctx context.Context, name string, v Viewer) ([]byte, int64, error) {
	b, ok := s.hub.get(name)
	if !ok {
		select {
		case <-s.hub.next(name, 0):
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		case <-time.After(10 * time.Second):
			return nil, 0, errors.New("the view is not computed yet")
		}
		b, _ = s.hub.get(name)
	}
	if len(v.Denied) == 0 {
		return b.json, b.version, nil
	}
	raw, err := json.Marshal(s.hub.compute(name, time.Now(), v.Denied))
	return raw, b.version, err
}

// events follows a view: every new version as a server-sent event, and a
// comment every 15 s to keep the connection open.
func (s *Server) events(w http.ResponseWriter, r *http.Request, v Viewer) {
	name := r.PathValue("view")
	if !knownView(name) {
		http.Error(w, fmt.Sprintf("no view %q", name), http.StatusNotFound)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	s.metrics.followers.WithLabelValues(name).Inc()
	defer s.metrics.followers.WithLabelValues(name).Dec()
	var last int64 = -1
	for {
		raw, version, err := s.current(r.Context(), name, v)
		if err != nil {
			if r.Context().Err() != nil {
				return
			}
			fmt.Fprintf(w, "event: problem\ndata: %s\n\n", strings.ReplaceAll(err.Error(), "\n", " "))
			flusher.Flush()
		} else if version != last {
			fmt.Fprintf(w, "id: %d\nevent: view\ndata: %s\n\n", version, raw)
			flusher.Flush()
			last = version
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.hub.next(name, last):
		case <-time.After(15 * time.Second):
			_, _ = io.WriteString(w, ": still here\n\n")
			flusher.Flush()
		}
	}
}

// traceRequest is the trace form's question.
type traceRequest struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol"`
	Live     bool   `json:"live"`
}

// trace runs the trace form's question, as `antreaplus trace` does, with
// the user's credentials (the local console only).
func (s *Server) trace(w http.ResponseWriter, r *http.Request, _ Viewer) {
	if s.opts.Mode != Local {
		http.Error(w, "the in-cluster console only reads: trace from `antreaplus console` or `antreaplus trace` with your own credentials", http.StatusForbidden)
		return
	}
	var q traceRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&q); err != nil {
		http.Error(w, "not a trace request: "+err.Error(), http.StatusBadRequest)
		return
	}
	req, err := traceRequestOf(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.traceMu.Lock()
	defer s.traceMu.Unlock()
	var progress strings.Builder
	report, err := tracing.Run(r.Context(), s.opts.Clusters, req, &progress)
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	writeJSON(w, map[string]any{"report": report, "notes": strings.Split(strings.TrimSpace(progress.String()), "\n")})
}

// traceRequestOf checks the form's question.
func traceRequestOf(q traceRequest) (tracing.Request, error) {
	src, err := gather.ParseSpec(q.From)
	if err != nil {
		return tracing.Request{}, fmt.Errorf("from: %w", err)
	}
	dst, err := gather.ParseSpec(q.To)
	if err != nil {
		return tracing.Request{}, fmt.Errorf("to: %w", err)
	}
	proto := policyrules.Protocol(strings.ToUpper(q.Protocol))
	if proto == "" {
		proto = policyrules.ProtocolTCP
	}
	req := tracing.Request{From: src, To: dst, Protocol: proto, Port: q.Port, Timeout: 10 * time.Second, Live: q.Live, LiveSeconds: 10}
	return req, req.Validate()
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
