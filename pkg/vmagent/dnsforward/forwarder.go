package dnsforward

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/miekg/dns"
)

// DefaultListen is where the forwarder listens on a VM: a loopback address
// that systemd-resolved (127.0.0.53 and 127.0.0.54) and other local
// resolvers leave free, on port 53, the only port resolv.conf can name.
const DefaultListen = "127.0.0.153:53"

// DefaultTimeout bounds one exchange with one server.
const DefaultTimeout = 2 * time.Second

// Options configure a Forwarder.
type Options struct {
	// Listen is the address of the UDP and TCP listeners (default
	// DefaultListen). With port 0 both get the same free port.
	Listen string
	// Zones are sent to the member's DNS server (default DefaultZones).
	Zones []string
	// Timeout bounds one exchange with one server (default
	// DefaultTimeout).
	Timeout time.Duration
	// Metrics default to unregistered ones.
	Metrics *Metrics
	Log     logr.Logger
}

// Routes say where the forwarder sends queries.
type Routes struct {
	// Member is the member's DNS server, host:port, asked over TCP for the
	// names of the zones; empty, those names get SERVFAIL.
	Member string
	// Upstreams are asked in turn, over the client's transport, for every
	// other name, until one answers; none answering, or none given, the
	// query gets SERVFAIL.
	Upstreams []string
}

// Forwarder is a DNS forwarder on UDP and TCP: names of its zones go to
// the member's DNS server, others to the upstreams.
type Forwarder struct {
	opts   Options
	addr   netip.AddrPort
	routes atomic.Pointer[Routes]
	// failing is true, per route, while no server of the route answers:
	// the transitions are logged, not every failed query.
	failing map[string]*atomic.Bool
	servers []*dns.Server
	wg      sync.WaitGroup
}

// Listen binds the forwarder's UDP and TCP sockets and serves until Close.
func Listen(opts Options, routes Routes) (*Forwarder, error) {
	if opts.Listen == "" {
		opts.Listen = DefaultListen
	}
	if opts.Zones == nil {
		opts.Zones = DefaultZones
	}
	zones, err := NormalizeZones(opts.Zones)
	if err != nil {
		return nil, err
	}
	opts.Zones = zones
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Metrics == nil {
		opts.Metrics = NewMetrics()
	}
	pc, l, err := listenBoth(opts.Listen)
	if err != nil {
		return nil, fmt.Errorf("DNS forwarder: %w", err)
	}
	f := &Forwarder{opts: opts, addr: pc.LocalAddr().(*net.UDPAddr).AddrPort(),
		failing: map[string]*atomic.Bool{RouteMember: {}, RouteUpstream: {}}}
	f.SetRoutes(routes)
	// Close may follow at once: it must find the servers started, or
	// miekg/dns refuses to shut them down.
	started := make(chan struct{}, 2)
	notify := func() { started <- struct{}{} }
	f.servers = []*dns.Server{
		{PacketConn: pc, Handler: f, NotifyStartedFunc: notify},
		{Listener: l, Handler: f, NotifyStartedFunc: notify},
	}
	for _, s := range f.servers {
		f.wg.Go(func() { _ = s.ActivateAndServe() })
	}
	<-started
	<-started
	return f, nil
}

// listenBoth binds UDP and TCP on one address; with port 0, on one free
// port.
func listenBoth(addr string) (net.PacketConn, net.Listener, error) {
	for attempt := 0; ; attempt++ {
		pc, err := net.ListenPacket("udp", addr)
		if err != nil {
			return nil, nil, err
		}
		port := pc.LocalAddr().(*net.UDPAddr).Port
		host, _, _ := net.SplitHostPort(addr)
		l, err := net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(port)))
		if err == nil {
			return pc, l, nil
		}
		_ = pc.Close()
		if _, p, _ := net.SplitHostPort(addr); p != "0" || attempt == 10 {
			return nil, nil, err
		}
	}
}

// Addr is where the forwarder listens, UDP and TCP.
func (f *Forwarder) Addr() netip.AddrPort { return f.addr }

// SetRoutes changes where the queries that follow are sent.
func (f *Forwarder) SetRoutes(r Routes) {
	r.Upstreams = slices.Clone(r.Upstreams)
	f.routes.Store(&r)
}

// Routes returns where queries are sent.
func (f *Forwarder) Routes() Routes { return *f.routes.Load() }

// Close stops the listeners and waits for them.
func (f *Forwarder) Close() error {
	var errs []error
	for _, s := range f.servers {
		errs = append(errs, s.Shutdown())
	}
	f.wg.Wait()
	return errors.Join(errs...)
}

// ServeDNS answers one query from the server of its route.
func (f *Forwarder) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	start := time.Now()
	routes := f.routes.Load()
	_, udp := w.RemoteAddr().(*net.UDPAddr)
	route, network, servers := RouteUpstream, "tcp", routes.Upstreams
	if udp {
		network = "udp"
	}
	if len(req.Question) > 0 && InZones(req.Question[0].Name, f.opts.Zones) {
		route, network, servers = RouteMember, "tcp", nil
		if routes.Member != "" {
			servers = []string{routes.Member}
		}
	}
	resp := f.forward(req, route, network, servers)
	// The forwarder recurses for its clients: the member's server answers
	// authoritatively, without RA, which stub resolvers warn about.
	resp.RecursionAvailable = resp.RecursionAvailable || req.RecursionDesired
	if udp {
		resp.Truncate(udpSize(req))
	}
	f.opts.Metrics.Queries.WithLabelValues(route, dns.RcodeToString[resp.Rcode]).Inc()
	f.opts.Metrics.Seconds.WithLabelValues(route).Observe(time.Since(start).Seconds())
	if f.opts.Log.V(4).Enabled() {
		f.opts.Log.V(4).Info("Answered", "question", req.Question, "route", route, "rcode", dns.RcodeToString[resp.Rcode],
			"answers", len(resp.Answer), "took", time.Since(start))
	}
	_ = w.WriteMsg(resp)
}

// forward asks each server in turn until one answers; none answering, it
// returns SERVFAIL.
func (f *Forwarder) forward(req *dns.Msg, route, network string, servers []string) *dns.Msg {
	err := errors.New("no server is known")
	for _, s := range servers {
		var resp *dns.Msg
		resp, _, err = (&dns.Client{Net: network, Timeout: f.opts.Timeout}).Exchange(req, s)
		if err == nil {
			if f.failing[route].Swap(false) {
				f.opts.Log.Info("A DNS server answers again", "route", route, "server", s)
			}
			return resp
		}
		f.opts.Metrics.ExchangeErrors.WithLabelValues(route).Inc()
	}
	if !f.failing[route].Swap(true) {
		f.opts.Log.Info("No DNS server of the route answers; answering SERVFAIL until one does", "route", route,
			"servers", servers, "zones", f.opts.Zones, "error", err)
	}
	out := new(dns.Msg)
	out.SetRcode(req, dns.RcodeServerFailure)
	out.RecursionAvailable = true
	return out
}

// udpSize is the largest UDP answer the client of req takes.
func udpSize(req *dns.Msg) int {
	if opt := req.IsEdns0(); opt != nil {
		return max(int(opt.UDPSize()), dns.MinMsgSize)
	}
	return dns.MinMsgSize
}
