package accountprovider

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/azure"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// New builds the provider a Config describes: the one explicit place where
// a provider name becomes a provider.
func New(cfg Config) (provider.Provider, error) {
	switch cfg.Provider {
	case cloudv1alpha1.ProviderAWS:
		o := cfg.AWS
		o.HTTPClient = &http.Client{Transport: aws.BufferRequestBodies(withUserAgent(transport(cfg), cfg.userAgent))}
		return aws.New(o)
	case cloudv1alpha1.ProviderAzure:
		o := cfg.Azure
		o.Transport = &http.Client{Transport: withUserAgent(transport(cfg), cfg.userAgent)}
		return azure.New(o)
	}
	return nil, fmt.Errorf("unknown cloud provider %q", cfg.Provider)
}

// withUserAgent appends ua to the User-Agent of every request through rt
// (SigV4 does not sign the header).
func withUserAgent(rt http.RoundTripper, ua string) http.RoundTripper {
	if ua == "" {
		return rt
	}
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		if have := r.Header.Get("User-Agent"); have != "" {
			r.Header.Set("User-Agent", have+" "+ua)
		} else {
			r.Header.Set("User-Agent", ua)
		}
		return rt.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// transport is the HTTP transport of one provider, trusting cfg's roots.
func transport(cfg Config) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 16
	t.ResponseHeaderTimeout = 60 * time.Second
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	if cfg.roots != nil {
		t.TLSClientConfig = &tls.Config{RootCAs: cfg.roots, MinVersion: tls.VersionTLS12}
	}
	return t
}

// Entry is the live provider of an account.
type Entry struct {
	Provider provider.Provider
	// Generation changes every time the account's provider is rebuilt.
	Generation  int64
	fingerprint string
}

// Set holds the live provider of every account; safe for concurrent use.
type Set struct {
	mu      sync.Mutex
	entries map[types.NamespacedName]Entry
	gen     int64
	events  chan event.GenericEvent
}

// NewSet returns an empty set.
func NewSet() *Set {
	return &Set{entries: map[types.NamespacedName]Entry{}, events: make(chan event.GenericEvent, 1024)}
}

// Events carries a CloudProviderAccount (name and namespace only) whenever
// its provider was built, rebuilt or removed.
func (s *Set) Events() <-chan event.GenericEvent { return s.events }

// Get returns the provider of an account.
func (s *Set) Get(k types.NamespacedName) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[k]
	return e, ok
}

// Ensure makes cfg the account's provider, building it only when the
// fingerprint changed, and reports whether it did.
func (s *Set) Ensure(k types.NamespacedName, cfg Config) (Entry, bool, error) {
	s.mu.Lock()
	if e, ok := s.entries[k]; ok && e.fingerprint == cfg.Fingerprint {
		s.mu.Unlock()
		return e, false, nil
	}
	s.mu.Unlock()
	p, err := New(cfg)
	if err != nil {
		return Entry{}, false, err
	}
	s.mu.Lock()
	s.gen++
	e := Entry{Provider: p, Generation: s.gen, fingerprint: cfg.Fingerprint}
	s.entries[k] = e
	s.mu.Unlock()
	s.notify(k)
	return e, true, nil
}

// Put makes p the account's provider, whatever it was built from: for
// tests and for providers built elsewhere.
func (s *Set) Put(k types.NamespacedName, p provider.Provider) Entry {
	s.mu.Lock()
	s.gen++
	e := Entry{Provider: p, Generation: s.gen, fingerprint: fmt.Sprintf("put-%d", s.gen)}
	s.entries[k] = e
	s.mu.Unlock()
	s.notify(k)
	return e
}

// Remove drops an account's provider and reports whether it had one.
func (s *Set) Remove(k types.NamespacedName) bool {
	s.mu.Lock()
	_, ok := s.entries[k]
	delete(s.entries, k)
	s.mu.Unlock()
	if ok {
		s.notify(k)
	}
	return ok
}

func (s *Set) notify(k types.NamespacedName) {
	a := &cloudv1alpha1.CloudProviderAccount{}
	a.Name, a.Namespace = k.Name, k.Namespace
	ev := event.GenericEvent{Object: a}
	select {
	case s.events <- ev:
	default:
		go func() { s.events <- ev }()
	}
}
