package policycompiler

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func formatPrefixes(ps []netip.Prefix) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, " ")
}

func TestIPBlockPrefixes(t *testing.T) {
	tests := []struct {
		name    string
		cidr    string
		except  []string
		want    string
		wantErr string
	}{
		{name: "no except", cidr: "10.0.0.0/16", want: "10.0.0.0/16"},
		{name: "cidr is masked", cidr: "10.0.3.7/16", want: "10.0.0.0/16"},
		{name: "except one half", cidr: "10.0.0.0/24", except: []string{"10.0.0.128/25"}, want: "10.0.0.0/25"},
		{
			name: "except a /26 in a /24", cidr: "10.0.0.0/24", except: []string{"10.0.0.64/26"},
			want: "10.0.0.0/26 10.0.0.128/25",
		},
		{
			name: "except two blocks", cidr: "192.168.0.0/16", except: []string{"192.168.1.0/24", "192.168.255.0/24"},
			want: "192.168.0.0/24 192.168.2.0/23 192.168.4.0/22 192.168.8.0/21 192.168.16.0/20 192.168.32.0/19 " +
				"192.168.64.0/18 192.168.128.0/18 192.168.192.0/19 192.168.224.0/20 192.168.240.0/21 192.168.248.0/22 " +
				"192.168.252.0/23 192.168.254.0/24",
		},
		{name: "except a single address", cidr: "10.0.0.0/30", except: []string{"10.0.0.2/32"}, want: "10.0.0.0/31 10.0.0.3/32"},
		{name: "except everything", cidr: "10.0.0.0/24", except: []string{"10.0.0.0/24"}, want: ""},
		{name: "overlapping excepts", cidr: "10.0.0.0/24", except: []string{"10.0.0.0/25", "10.0.0.0/26"}, want: "10.0.0.128/25"},
		{name: "ipv6", cidr: "fd00::/64", except: []string{"fd00::/65"}, want: "fd00::8000:0:0:0/65"},
		{name: "except outside cidr", cidr: "10.0.0.0/24", except: []string{"10.0.1.0/25"}, wantErr: "ipBlock except 10.0.1.0/25 is not inside cidr 10.0.0.0/24"},
		{name: "except wider than cidr", cidr: "10.0.0.0/24", except: []string{"10.0.0.0/16"}, wantErr: "is not inside cidr"},
		{name: "except of another family", cidr: "10.0.0.0/8", except: []string{"::/128"}, wantErr: "is not inside cidr"},
		{name: "bad cidr", cidr: "10.0.0.0", wantErr: `ipBlock cidr "10.0.0.0" is not a CIDR`},
		{name: "bad except", cidr: "10.0.0.0/8", except: []string{"x"}, wantErr: `ipBlock except "x" is not a CIDR`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ipBlockPrefixes(tt.cidr, tt.except)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := formatPrefixes(got); s != tt.want {
				t.Errorf("got %q, want %q", s, tt.want)
			}
		})
	}
}

func TestNormalizePrefixes(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{in: "", want: ""},
		{in: "10.0.0.2/32 10.0.0.1/32 10.0.0.2/32", want: "10.0.0.1/32 10.0.0.2/32"},
		{in: "10.0.0.0/32 10.0.0.1/32", want: "10.0.0.0/31"},
		{in: "10.0.0.1/32 10.0.0.2/32", want: "10.0.0.1/32 10.0.0.2/32"},
		{in: "10.0.0.0/32 10.0.0.1/32 10.0.0.2/32 10.0.0.3/32", want: "10.0.0.0/30"},
		{in: "10.0.0.0/24 10.0.0.128/25 10.0.1.0/24", want: "10.0.0.0/23"},
		{in: "10.0.0.7/24 10.0.0.9/32", want: "10.0.0.0/24"},
		{in: "0.0.0.0/1 128.0.0.0/1", want: "0.0.0.0/0"},
		{in: "::/1 8000::/1 0.0.0.0/0", want: "0.0.0.0/0 ::/0"},
		{in: "fd00::1/128 10.0.0.1/32", want: "10.0.0.1/32 fd00::1/128"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var in []netip.Prefix
			for _, f := range strings.Fields(tt.in) {
				in = append(in, netip.MustParsePrefix(f))
			}
			if got := formatPrefixes(normalizePrefixes(in)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSubtractPrefixesCoversExactly checks, address by address, that the
// difference holds every address of the block outside the holes and no
// other.
func TestSubtractPrefixesCoversExactly(t *testing.T) {
	block := netip.MustParsePrefix("10.1.0.0/24")
	holes := []netip.Prefix{netip.MustParsePrefix("10.1.0.16/28"), netip.MustParsePrefix("10.1.0.200/29"), netip.MustParsePrefix("10.1.0.3/32")}
	got := subtractPrefixes(block, holes)
	for i := range 256 {
		addr := netip.MustParseAddr(fmt.Sprintf("10.1.0.%d", i))
		inHole := false
		for _, h := range holes {
			inHole = inHole || h.Contains(addr)
		}
		inDifference := slices.ContainsFunc(got, func(p netip.Prefix) bool { return p.Contains(addr) })
		if inDifference == inHole {
			t.Errorf("%s: in difference = %v, in a hole = %v", addr, inDifference, inHole)
		}
	}
}
