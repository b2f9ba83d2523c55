package vmagent

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"antreaplus.io/antreaplus/pkg/vmagent/dnsforward"
)

// DNSOptions configure the agent's DNS forwarder.
type DNSOptions struct {
	// Listen is the forwarder's address (default dnsforward.DefaultListen,
	// 127.0.0.153:53).
	Listen string
	// Zones go to the member's DNS server (default
	// dnsforward.DefaultZones).
	Zones []string
	// ResolvConf is the resolver file the agent points at its forwarder,
	// rewritten in place and kept so while the member offers a DNS server;
	// its original is in the state file. Empty leaves the VM's resolver
	// alone (a systemd-resolved drop-in routes the zones instead: see the
	// package documentation).
	ResolvConf string
	// Timeout bounds one exchange with one server (default
	// dnsforward.DefaultTimeout).
	Timeout time.Duration
	// Interval is how often the agent checks the resolver file (a DHCP
	// client may rewrite it) and retries what failed (default 10 s).
	Interval time.Duration
	Metrics  *dnsforward.Metrics
}

// dnsManager runs the forwarder while the member offers a DNS server, and
// keeps the resolver file pointed at it; when the member offers none, or
// DNS is off (opts nil), it puts the file back as it was.
type dnsManager struct {
	opts    *DNSOptions
	zones   []string
	log     logr.Logger
	persist func() error
	wake    chan struct{}

	mu sync.Mutex
	// st is what the state file keeps; saved what it was last written.
	st, saved DNSState
	fwd       *dnsforward.Forwarder
	err       error
	// seen is an unmanaged resolver file last read, until it reads the same twice.
	seen []byte
}

func newDNSManager(opts *DNSOptions, persist func() error, log logr.Logger) (*dnsManager, error) {
	d := &dnsManager{opts: opts, log: log, persist: persist, wake: make(chan struct{}, 1)}
	if opts == nil {
		return d, nil
	}
	o := *opts
	if o.Interval <= 0 {
		o.Interval = 10 * time.Second
	}
	zones := o.Zones
	if zones == nil {
		zones = dnsforward.DefaultZones
	}
	var err error
	if d.zones, err = dnsforward.NormalizeZones(zones); err != nil {
		return nil, fmt.Errorf("the DNS zones: %w", err)
	}
	d.opts = &o
	return d, nil
}

// load takes the DNS state of the state file, at start.
func (d *dnsManager) load(saved *DNSState) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if saved != nil {
		d.st, d.saved = *saved, *saved
	}
	if d.opts == nil {
		d.st.Member = ""
	}
}

// setMember takes the member's DNS server from a report's response.
func (d *dnsManager) setMember(member string) {
	if d.opts == nil {
		return
	}
	d.mu.Lock()
	changed := d.st.Member != member
	d.st.Member = member
	d.mu.Unlock()
	if changed {
		if member == "" {
			d.log.Info("The policy controller offers no DNS server: the VM's resolver goes back as it was")
		} else {
			d.log.Info("The policy controller offers the member's DNS server", "dnsServer", member)
		}
		select {
		case d.wake <- struct{}{}:
		default:
		}
	}
}

// state is what the state file keeps of DNS; nil when nothing.
func (d *dnsManager) state() *DNSState {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.st == (DNSState{}) {
		return nil
	}
	st := d.st
	return &st
}

// status is the member's DNS server, the forwarder's address (zero when it
// does not run) and the last error.
func (d *dnsManager) status() (string, netip.AddrPort, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var addr netip.AddrPort
	if d.fwd != nil {
		addr = d.fwd.Addr()
	}
	return d.st.Member, addr, d.err
}

// run reconciles until ctx ends, then stops the forwarder; the resolver
// file stays pointed at it, with the original nameservers after it, which
// the resolver asks while the forwarder does not answer.
func (d *dnsManager) run(ctx context.Context) {
	interval := 10 * time.Second
	if d.opts != nil {
		interval = d.opts.Interval
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		d.setErr(d.reconcile())
		select {
		case <-ctx.Done():
			d.stopForwarder()
			return
		case <-d.wake:
		case <-ticker.C:
		}
	}
}

func (d *dnsManager) setErr(err error) {
	d.mu.Lock()
	was := d.err
	d.err = err
	d.mu.Unlock()
	switch {
	case err != nil && (was == nil || was.Error() != err.Error()):
		d.log.Error(err, "Configuring the VM's DNS failed; retrying")
	case err == nil && was != nil:
		d.log.Info("The VM's DNS is configured again")
	}
}

func (d *dnsManager) stopForwarder() {
	d.mu.Lock()
	fwd := d.fwd
	d.fwd = nil
	d.mu.Unlock()
	if fwd != nil {
		_ = fwd.Close()
		d.log.Info("Stopped the DNS forwarder", "address", fwd.Addr())
	}
}
