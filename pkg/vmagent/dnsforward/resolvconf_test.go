package dnsforward

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

var (
	fwd   = netip.MustParseAddr("127.0.0.153")
	zones = []string{"clusterset.local.", "cluster.local."}
	// marker is the first line Rewrite writes with fwd and zones.
	marker = Marker + ": it sends clusterset.local. cluster.local. to its member's DNS server, " +
		"other names to the nameservers after its own; 'vm-agent --uninstall' restores the previous file.\n"
)

func TestUpstreams(t *testing.T) {
	for _, tc := range []struct {
		name, conf string
		want       []string
	}{
		{"two", "nameserver 10.0.0.2\nnameserver 10.0.0.3\n", []string{"10.0.0.2:53", "10.0.0.3:53"}},
		{"IPv6 and a comment", "# generated\nnameserver fd00::53\nsearch example.com\n", []string{"[fd00::53]:53"}},
		{"systemd-resolved's stub", "nameserver 127.0.0.53\noptions edns0 trust-ad\n", []string{"127.0.0.53:53"}},
		{"none: the resolver's default", "search example.com\n", []string{"127.0.0.1:53"}},
		{"empty", "", []string{"127.0.0.1:53"}},
		{"the forwarder itself left out", "nameserver 127.0.0.153\nnameserver 10.0.0.2\n", []string{"10.0.0.2:53"}},
		{"unparsable address left out", "nameserver dns.example.com\nnameserver 10.0.0.2\n", []string{"10.0.0.2:53"}},
		{"CRLF", "nameserver 10.0.0.2\r\n", []string{"10.0.0.2:53"}},
	} {
		if got := Upstreams([]byte(tc.conf), fwd); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Upstreams = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRewriteAndUnmanage(t *testing.T) {
	for _, tc := range []struct {
		name, original, want, unmanaged string
	}{
		{
			name:      "search and options kept, two fallbacks",
			original:  "# from DHCP\nnameserver 10.0.0.2\nnameserver 10.0.0.3\nnameserver 10.0.0.4\nsearch corp.example.com\noptions ndots:2 edns0\n",
			want:      marker + "nameserver 127.0.0.153\nnameserver 10.0.0.2\nnameserver 10.0.0.3\n# from DHCP\nsearch corp.example.com\noptions ndots:2 edns0\n",
			unmanaged: "nameserver 10.0.0.2\nnameserver 10.0.0.3\n# from DHCP\nsearch corp.example.com\noptions ndots:2 edns0\n",
		},
		{
			name:      "rotate dropped",
			original:  "nameserver 10.0.0.2\noptions rotate\noptions timeout:1 rotate\n",
			want:      marker + "nameserver 127.0.0.153\nnameserver 10.0.0.2\noptions timeout:1\n",
			unmanaged: "nameserver 10.0.0.2\noptions timeout:1\n",
		},
		{
			name:      "no nameserver",
			original:  "search example.com",
			want:      marker + "nameserver 127.0.0.153\nsearch example.com\n",
			unmanaged: "search example.com\n",
		},
		{
			name:      "the forwarder is no fallback",
			original:  "nameserver 127.0.0.153\nnameserver 10.0.0.2\n",
			want:      marker + "nameserver 127.0.0.153\nnameserver 10.0.0.2\n",
			unmanaged: "nameserver 10.0.0.2\n",
		},
		{
			name:      "empty",
			original:  "",
			want:      marker + "nameserver 127.0.0.153\n",
			unmanaged: "",
		},
	} {
		got := string(Rewrite([]byte(tc.original), fwd, zones))
		if got != tc.want {
			t.Errorf("%s: Rewrite =\n%s\nwant\n%s", tc.name, got, tc.want)
		}
		if !Managed([]byte(got)) {
			t.Errorf("%s: the rewritten file is not Managed", tc.name)
		}
		if un := string(Unmanage([]byte(got))); un != tc.unmanaged {
			t.Errorf("%s: Unmanage =\n%s\nwant\n%s", tc.name, un, tc.unmanaged)
		}
		if Managed([]byte(tc.original)) {
			t.Errorf("%s: the original is Managed", tc.name)
		}
	}
	if !Managed([]byte("\n\n" + marker + "nameserver 127.0.0.153\n")) {
		t.Error("blank lines before the marker hide it")
	}
	if Managed([]byte("nameserver 10.0.0.2\n" + marker)) {
		t.Error("a marker after other lines counts")
	}
}

func TestPlanResolvConf(t *testing.T) {
	original := "nameserver 10.0.0.2\nsearch example.com\n"
	managed := string(Rewrite([]byte(original), fwd, zones))
	other := "nameserver 10.9.9.9\n"
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name    string
		current string
		saved   *string
		manage  bool
		write   *string // nil: no write
		keep    *string // the Original to keep; nil: none
	}{
		{name: "first run: the file is the original", current: original, manage: true, write: &managed, keep: &original},
		{name: "managed and as wanted: nothing to do", current: managed, saved: &original, manage: true, keep: &original},
		{name: "rewritten by a DHCP client: a new original", current: other, saved: &original, manage: true,
			write: str(string(Rewrite([]byte(other), fwd, zones))), keep: &other},
		{name: "managed file damaged: written again", current: managed + "nameserver 10.1.1.1\n", saved: &original, manage: true,
			write: &managed, keep: &original},
		{name: "state lost: the managed file stands for its original", current: managed, manage: true,
			keep: str(string(Unmanage([]byte(managed))))},
		{name: "no member DNS: restored", current: managed, saved: &original, manage: false, write: &original},
		{name: "no member DNS, state lost: unmanaged", current: managed, manage: false,
			write: str(string(Unmanage([]byte(managed))))},
		{name: "no member DNS, never managed: untouched", current: original, saved: &other, manage: false},
	} {
		p := PlanResolvConf([]byte(tc.current), tc.saved, tc.manage, fwd, zones)
		switch {
		case tc.write == nil && p.Write != nil:
			t.Errorf("%s: writes\n%s\nwant no write", tc.name, p.Write)
		case tc.write != nil && string(p.Write) != *tc.write:
			t.Errorf("%s: writes\n%s\nwant\n%s", tc.name, p.Write, *tc.write)
		}
		switch {
		case tc.keep == nil && p.Original != nil:
			t.Errorf("%s: keeps the original %q, want none", tc.name, *p.Original)
		case tc.keep != nil && (p.Original == nil || *p.Original != *tc.keep):
			t.Errorf("%s: keeps the original %v, want %q", tc.name, p.Original, *tc.keep)
		}
	}
}

// Rewrite of any original is Managed, names the forwarder first and at
// most two fallbacks, and Unmanage of it is no longer Managed.
func FuzzRewrite(f *testing.F) {
	f.Add("nameserver 10.0.0.2\nsearch a.example\noptions rotate ndots:3\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, original string) {
		if strings.Contains(original, Marker) {
			t.Skip()
		}
		got := Rewrite([]byte(original), fwd, zones)
		if !Managed(got) {
			t.Fatalf("Rewrite(%q) is not Managed:\n%s", original, got)
		}
		if ns := Nameservers(got); len(ns) == 0 || ns[0] != fwd || len(ns) > 1+fallbacks {
			t.Fatalf("Rewrite(%q) names %v", original, ns)
		}
		if Managed(Unmanage(got)) {
			t.Fatalf("Unmanage of Rewrite(%q) is still Managed", original)
		}
	})
}
