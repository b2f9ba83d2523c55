package vmagent

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"antreaplus.io/antreaplus/pkg/vmagent/dnsforward"
)

// reconcile makes the forwarder and the resolver file follow the member's
// DNS server: the forwarder first, so that the file never points at
// nothing; the original kept in the state file before the file is
// rewritten, and forgotten only once it is written back.
func (d *dnsManager) reconcile() error {
	d.mu.Lock()
	st := d.st
	d.mu.Unlock()
	member := st.Member
	if member != "" {
		if err := d.startForwarder(member); err != nil {
			return err
		}
	}
	// A file managed under another name (the option changed) goes back.
	if st.ResolvConf != "" && (d.opts == nil || st.ResolvConf != d.opts.ResolvConf) {
		if err := d.restore(st.ResolvConf, st.Original); err != nil {
			return err
		}
		st.ResolvConf, st.Original = "", nil
		if err := d.commit(st); err != nil {
			return err
		}
	}
	upstreams, err := d.reconcileFile(st)
	if err != nil {
		return err
	}
	if member == "" {
		d.stopForwarder()
		return nil
	}
	d.mu.Lock()
	fwd := d.fwd
	d.mu.Unlock()
	if r := fwd.Routes(); r.Member != member || !slices.Equal(r.Upstreams, upstreams) {
		fwd.SetRoutes(dnsforward.Routes{Member: member, Upstreams: upstreams})
		d.log.Info("Forwarding DNS", "address", fwd.Addr(), "zones", d.zones, "to", member, "otherNamesTo", upstreams)
	}
	return nil
}

func (d *dnsManager) startForwarder(member string) error {
	d.mu.Lock()
	running := d.fwd != nil
	d.mu.Unlock()
	if running {
		return nil
	}
	fwd, err := dnsforward.Listen(dnsforward.Options{Listen: d.opts.Listen, Zones: d.zones, Timeout: d.opts.Timeout,
		Metrics: d.opts.Metrics, Log: d.log}, dnsforward.Routes{Member: member})
	if err != nil {
		return fmt.Errorf("%w; the VM's resolver is left as it is", err)
	}
	d.mu.Lock()
	d.fwd = fwd
	d.mu.Unlock()
	return nil
}

// reconcileFile points the resolver file at the forwarder, or puts it
// back, and returns the upstreams its original names.
func (d *dnsManager) reconcileFile(st DNSState) ([]string, error) {
	if d.opts == nil || d.opts.ResolvConf == "" {
		return nil, nil
	}
	path := d.opts.ResolvConf
	current, err := dnsforward.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var fwd netip.Addr
	if _, addr, _ := d.status(); addr.IsValid() {
		fwd = addr.Addr()
	}
	original := st.Original
	if st.ResolvConf != path {
		original = nil
	}
	if original != nil && !dnsforward.Managed(current) && !d.settled(current) {
		// Another program (a DHCP client) is writing the file: take it as
		// the new original once it reads the same twice, never half-written
		// (and never write over it while it is being written).
		return dnsforward.Upstreams([]byte(*original), fwd), nil
	}
	plan := dnsforward.PlanResolvConf(current, original, st.Member != "" && fwd.IsValid(), fwd, d.zones)
	st.ResolvConf, st.Original = path, plan.Original
	if plan.Original == nil {
		st.ResolvConf = ""
	} else if err := d.commit(st); err != nil { // keep the original before writing over it
		return nil, err
	}
	if plan.Write != nil {
		if err := dnsforward.WriteInPlace(path, plan.Write); err != nil {
			return nil, err
		}
		if plan.Original != nil {
			d.log.Info("Pointed the resolver file at the forwarder", "path", path, "forwarder", fwd)
		} else {
			d.log.Info("Restored the resolver file", "path", path)
		}
	}
	if err := d.commit(st); err != nil {
		return nil, err
	}
	if plan.Original == nil {
		return nil, nil
	}
	return dnsforward.Upstreams([]byte(*plan.Original), fwd), nil
}

func (d *dnsManager) restore(path string, original *string) error {
	wrote, err := dnsforward.Restore(path, original)
	if wrote {
		d.log.Info("Restored the resolver file", "path", path)
	}
	return err
}

// commit takes st's file fields (the member is setMember's) and saves the
// state file when they or the member changed since it was last saved.
func (d *dnsManager) commit(st DNSState) error {
	d.mu.Lock()
	d.st.ResolvConf, d.st.Original = st.ResolvConf, st.Original
	now := d.st
	changed := !equalDNSState(now, d.saved)
	d.mu.Unlock()
	if !changed {
		return nil
	}
	if err := d.persist(); err != nil {
		return fmt.Errorf("saving the DNS state: %w", err)
	}
	d.mu.Lock()
	d.saved = now
	d.mu.Unlock()
	return nil
}

func equalDNSState(a, b DNSState) bool {
	if a.Member != b.Member || a.ResolvConf != b.ResolvConf || (a.Original == nil) != (b.Original == nil) {
		return false
	}
	return a.Original == nil || *a.Original == *b.Original
}

// UninstallDNS puts back the resolver files the agent manages: the one the
// state file names, with its original, and resolvConf when it is managed
// (with Unmanage of itself when the state does not keep its original).
func UninstallDNS(statePath, resolvConf string) error {
	st, _ := ReadState(statePath) // a damaged view still gives DNS
	var errs []error
	if st.DNS != nil && st.DNS.ResolvConf != "" {
		_, err := dnsforward.Restore(st.DNS.ResolvConf, st.DNS.Original)
		errs = append(errs, err)
	}
	if resolvConf != "" && (st.DNS == nil || st.DNS.ResolvConf != resolvConf) {
		_, err := dnsforward.Restore(resolvConf, nil)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// settled tells whether an unmanaged resolver file read the same at the
// previous check as now.
func (d *dnsManager) settled(current []byte) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen != nil && bytes.Equal(d.seen, current) {
		d.seen = nil
		return true
	}
	d.seen = bytes.Clone(current)
	return false
}
