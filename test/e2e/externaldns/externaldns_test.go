package externaldns

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestPublishesThroughCoreDNS runs the whole chain: DNSEndpoints in the
// API server, ExternalDNS's coredns provider and TXT registry writing
// SkyDNS entries into etcd, our CoreDNS answering them. Records appear,
// change and go with their DNSEndpoint; an entry someone else put into the
// same etcd (no TXT ownership record) is left alone.
func TestPublishesThroughCoreDNS(t *testing.T) {
	s := startStack(t, clusters.Namespace(t, member))
	ctx := t.Context()
	www, www6, alias := "www."+zone, "www6."+zone, "alias."+zone

	// Someone else's entry, in the zone ExternalDNS manages, before it syncs.
	foreignKey, foreign := "/skydns/test/antreaplus/ext/foreign/x1", "foreign."+zone
	if _, err := s.etcd.Put(ctx, foreignKey, `{"host":"192.0.2.99","ttl":30}`); err != nil {
		t.Fatal(err)
	}
	s.expect(t, foreign, dns.TypeA, dns.RcodeSuccess, "192.0.2.99")

	t.Run("create", func(t *testing.T) {
		s.create(t, "web",
			record(www, "A", "192.0.2.1", "192.0.2.2"),
			record(www6, "AAAA", "2001:db8::1"),
			record(alias, "CNAME", www))
		s.expect(t, www, dns.TypeA, dns.RcodeSuccess, "192.0.2.1", "192.0.2.2")
		s.expect(t, www6, dns.TypeAAAA, dns.RcodeSuccess, "2001:db8::1")
		// The CNAME is answered to an A query, chased in the zone. (Known
		// gap: a CNAME query is NXDOMAIN, as the etcd plugin looks CNAMEs up
		// at the exact key while ExternalDNS writes every target under a
		// random-prefix key below the name.)
		s.expect(t, alias, dns.TypeA, dns.RcodeSuccess, www+".", "192.0.2.1", "192.0.2.2")
		s.expect(t, alias, dns.TypeCNAME, dns.RcodeNameError)
		// The TXT registry's ownership records (new format: <type>-<name>).
		for _, txt := range []string{"a-" + www, "aaaa-" + www6, "cname-" + alias} {
			_, data, err := s.query(txt, dns.TypeTXT)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) != 1 || !strings.Contains(data[0], "external-dns/owner="+owner) {
				t.Errorf("TXT %s: got %q, want one ownership record of owner %s", txt, data, owner)
			}
		}
	})

	t.Run("update", func(t *testing.T) {
		s.update(t, "web",
			record(www, "A", "192.0.2.3"),
			record(www6, "AAAA", "2001:db8::1"),
			record(alias, "CNAME", www))
		s.expect(t, www, dns.TypeA, dns.RcodeSuccess, "192.0.2.3")
		s.expect(t, www6, dns.TypeAAAA, dns.RcodeSuccess, "2001:db8::1")
	})

	t.Run("delete", func(t *testing.T) {
		s.remove(t, "web")
		for _, name := range []string{www, www6, alias} {
			s.expect(t, name, dns.TypeA, dns.RcodeNameError)
		}
	})

	t.Run("dual-stack names rewritten on every sync", func(t *testing.T) {
		// Known gap of ExternalDNS v0.22.0 and v0.23.0's coredns provider:
		// Records() reads the etcd entries of one name back as one
		// endpoint (findEp matches the name alone), so a name with A and
		// AAAA records comes back as one endpoint of the first entry's
		// type holding both families' addresses. It never equals the two
		// endpoints wanted, so every sync deletes entries and writes them
		// again under new random prefixes: a query in between gets part of
		// the answer. A name of one family is left alone.
		both, one := "both."+zone, "one."+zone
		s.create(t, "dual",
			record(both, "A", "192.0.2.10"),
			record(both, "AAAA", "2001:db8::10"),
			record(one, "A", "192.0.2.11"))
		s.expect(t, both, dns.TypeA, dns.RcodeSuccess, "192.0.2.10")
		s.expect(t, both, dns.TypeAAAA, dns.RcodeSuccess, "2001:db8::10")
		s.expect(t, one, dns.TypeA, dns.RcodeSuccess, "192.0.2.11")
		keys := func(name string) []string {
			t.Helper()
			got, err := s.etcd.Get(ctx, "/skydns/test/antreaplus/ext/"+name+"/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
			if err != nil {
				t.Fatal(err)
			}
			var ks []string
			for _, kv := range got.Kvs {
				ks = append(ks, string(kv.Key))
			}
			return ks
		}
		// Let the first syncs settle, then watch four intervals with no change.
		time.Sleep(2 * interval)
		before1, before2 := keys("one"), keys("both")
		time.Sleep(4 * interval)
		if after := keys("one"); !slices.Equal(before1, after) {
			t.Errorf("the entries of a single-family name changed with nothing changed: %q then %q", before1, after)
		}
		if after := keys("both"); slices.Equal(before2, after) {
			t.Errorf("the entries of a dual-stack name stayed the same over four syncs: the gap of docs/external-dns.md is fixed, update it (and watch web's global name again in TestFederationPublished)")
		} else {
			t.Logf("dual-stack name's entries rewritten with nothing changed (known gap): %q then %q", before2, after)
		}
		s.remove(t, "dual")
		s.expect(t, both, dns.TypeA, dns.RcodeNameError)
		s.expect(t, one, dns.TypeA, dns.RcodeNameError)
	})

	t.Run("foreign entry left alone", func(t *testing.T) {
		// Several syncs ran since it was written (every change above took one).
		s.expect(t, foreign, dns.TypeA, dns.RcodeSuccess, "192.0.2.99")
		got, err := s.etcd.Get(ctx, foreignKey)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Kvs) != 1 || string(got.Kvs[0].Value) != `{"host":"192.0.2.99","ttl":30}` {
			t.Errorf("someone else's etcd entry %s changed: %v", foreignKey, got.Kvs)
		}
		// Known gap of ExternalDNS v0.22.0's coredns provider: the TXT
		// registry's ownership records are written under a random-prefix
		// key (<name>/<prefix>) but deleted at the exact key <name>
		// (deleteEndpoints: exact for TXT, and the registry's TXT endpoints
		// carry no prefix label), so they stay behind, one more per update
		// of the record. The records themselves all went.
		var keys, leaked []string
		all, err := s.etcd.Get(ctx, "/skydns/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range all.Kvs {
			k := strings.TrimPrefix(string(kv.Key), "/skydns/test/antreaplus/ext/")
			if strings.HasPrefix(k, "a-") || strings.HasPrefix(k, "aaaa-") || strings.HasPrefix(k, "cname-") {
				leaked = append(leaked, k)
				continue
			}
			keys = append(keys, string(kv.Key))
		}
		if !slices.Equal(keys, []string{foreignKey}) {
			t.Errorf("etcd holds records %q after every DNSEndpoint went; want only %s", keys, foreignKey)
		}
		if len(leaked) == 0 {
			t.Errorf("ExternalDNS deleted its TXT ownership records: the gap of docs/external-dns.md is fixed, update it")
		}
		t.Logf("TXT ownership entries left in etcd after the DNSEndpoint went (known gap): %q", leaked)
	})

	t.Run("latency", func(t *testing.T) {
		// From a DNSEndpoint's creation to CoreDNS's answer, one at a time.
		const n = 10
		var took []time.Duration
		for i := range n {
			name, ip := fmt.Sprintf("lat-%d.%s", i, zone), fmt.Sprintf("192.0.2.%d", 10+i)
			start := time.Now()
			s.create(t, fmt.Sprintf("lat-%d", i), record(name, "A", ip))
			deadline := start.Add(15 * time.Second)
			for {
				err := s.check(name, dns.TypeA, dns.RcodeSuccess, ip)
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal(err)
				}
				time.Sleep(10 * time.Millisecond)
			}
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		t.Logf("DNSEndpoint write to CoreDNS answer over %d records: p50 %s, max %s (ExternalDNS --interval=%s, --events, --min-event-sync-interval=%s)",
			n, took[n/2].Round(time.Millisecond), took[n-1].Round(time.Millisecond), interval, interval)
	})
}
