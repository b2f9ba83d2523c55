package importcache

import (
	"fmt"
	"net/netip"
	"runtime"
	"testing"
)

func imp(ns, name string, headless bool, ips ...string) *Import {
	i := &Import{Namespace: ns, Name: name, Headless: headless, Ports: []Port{{Name: "http", Protocol: "TCP", Port: 80}}}
	for _, a := range ips {
		i.IPs = append(i.IPs, netip.MustParseAddr(a))
	}
	return i
}

func slice(ns, name, svc, cluster string, ips ...string) *Slice {
	s := &Slice{Namespace: ns, Name: name, Service: svc, Cluster: cluster, Ports: []Port{{Name: "http", Protocol: "TCP", Port: 8080}}}
	for _, a := range ips {
		s.Endpoints = append(s.Endpoints, Endpoint{Addrs: []netip.Addr{netip.MustParseAddr(a)}})
	}
	return s
}

func TestIndex(t *testing.T) {
	type step func(x *Index)
	tests := []struct {
		name     string
		steps    []step
		svc      Key
		want     bool     // the Service exists
		clusters []string // its source clusters
		ready    bool
		ns       bool // HasNamespace(svc.Namespace)
	}{
		{name: "import alone", steps: []step{func(x *Index) { x.SetImport(imp("a", "web", false, "10.0.0.1")) }},
			svc: Key{"a", "web"}, want: true, ns: true},
		{name: "slice without import is not served", steps: []step{func(x *Index) { x.SetSlice(nil, slice("a", "s1", "web", "c1", "1.1.1.1")) }},
			svc: Key{"a", "web"}},
		{name: "slice then import", steps: []step{
			func(x *Index) { x.SetSlice(nil, slice("a", "s1", "web", "c2", "1.1.1.1")) },
			func(x *Index) { x.SetSlice(nil, slice("a", "s2", "web", "c1", "2.2.2.2")) },
			func(x *Index) { x.SetImport(imp("a", "web", true)) },
		}, svc: Key{"a", "web"}, want: true, clusters: []string{"c1", "c2"}, ready: true, ns: true},
		{name: "slice deleted", steps: []step{
			func(x *Index) { x.SetImport(imp("a", "web", true)) },
			func(x *Index) { x.SetSlice(nil, slice("a", "s1", "web", "c1", "1.1.1.1")) },
			func(x *Index) { x.DeleteSlice(slice("a", "s1", "web", "c1")) },
		}, svc: Key{"a", "web"}, want: true, ns: true},
		{name: "slice without ready endpoints", steps: []step{
			func(x *Index) { x.SetImport(imp("a", "web", true)) },
			func(x *Index) { x.SetSlice(nil, slice("a", "s1", "web", "c1")) },
		}, svc: Key{"a", "web"}, want: true, clusters: []string{"c1"}, ns: true},
		{name: "slice moves to another service", steps: []step{
			func(x *Index) { x.SetImport(imp("a", "web", true)) },
			func(x *Index) { x.SetSlice(nil, slice("a", "s1", "web", "c1", "1.1.1.1")) },
			func(x *Index) { x.SetSlice(slice("a", "s1", "web", "c1"), slice("a", "s1", "db", "c1", "1.1.1.1")) },
		}, svc: Key{"a", "web"}, want: true, ns: true},
		{name: "import deleted", steps: []step{
			func(x *Index) { x.SetImport(imp("a", "web", false, "10.0.0.1")) },
			func(x *Index) { x.DeleteImport("a", "web") },
		}, svc: Key{"a", "web"}},
		{name: "import deleted twice keeps namespace count", steps: []step{
			func(x *Index) { x.SetImport(imp("a", "web", false)) },
			func(x *Index) { x.SetImport(imp("a", "db", false)) },
			func(x *Index) { x.DeleteImport("a", "web") },
			func(x *Index) { x.DeleteImport("a", "web") },
		}, svc: Key{"a", "db"}, want: true, ns: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := NewIndex()
			for _, s := range tt.steps {
				s(x)
			}
			s := x.Service(tt.svc.Namespace, tt.svc.Name)
			if (s != nil) != tt.want {
				t.Fatalf("Service() = %v, want exists=%v", s, tt.want)
			}
			if got := x.HasNamespace(tt.svc.Namespace); got != tt.ns {
				t.Errorf("HasNamespace() = %v, want %v", got, tt.ns)
			}
			if s == nil {
				return
			}
			var ids []string
			for _, c := range s.Clusters {
				ids = append(ids, c.ID)
			}
			if len(ids) != len(tt.clusters) {
				t.Fatalf("clusters %v, want %v", ids, tt.clusters)
			}
			for i := range ids {
				if ids[i] != tt.clusters[i] {
					t.Fatalf("clusters %v, want %v", ids, tt.clusters)
				}
			}
			if s.Ready() != tt.ready {
				t.Errorf("Ready() = %v, want %v", s.Ready(), tt.ready)
			}
		})
	}
}

func TestIndexByAddr(t *testing.T) {
	x := NewIndex()
	x.SetImport(imp("a", "web", false, "10.0.0.1"))
	x.SetImport(imp("a", "db", true))
	x.SetSlice(nil, slice("a", "s1", "db", "c1", "1.1.1.1", "1.1.1.2"))
	x.SetSlice(nil, slice("a", "s2", "web", "c1", "2.2.2.2"))

	for addr, want := range map[string]string{"10.0.0.1": "web", "1.1.1.2": "db", "2.2.2.2": "", "10.0.0.2": ""} {
		got := x.ByAddr(netip.MustParseAddr(addr))
		if want == "" {
			if len(got) != 0 {
				t.Errorf("ByAddr(%s) = %v, want none", addr, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Name != want {
			t.Errorf("ByAddr(%s) = %v, want %s", addr, got, want)
		}
	}
	x.DeleteSlice(slice("a", "s1", "db", "c1"))
	if got := x.ByAddr(netip.MustParseAddr("1.1.1.1")); len(got) != 0 {
		t.Errorf("after the slice went, ByAddr(1.1.1.1) = %v", got)
	}
	x.DeleteImport("a", "web")
	if got := x.ByAddr(netip.MustParseAddr("10.0.0.1")); len(got) != 0 {
		t.Errorf("after the import went, ByAddr(10.0.0.1) = %v", got)
	}
	if x.Len() != 1 {
		t.Errorf("Len() = %d, want 1", x.Len())
	}
}

// BenchmarkIndexMemory reports the heap one imported Service takes in the
// Index: a cluster-set IP, one port, and two source clusters with two ready
// endpoints each (the informers' slim copies are these same objects).
func BenchmarkIndexMemory(b *testing.B) {
	const n = 10000
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		x := NewIndex()
		for i := range n {
			ns, name := fmt.Sprintf("ns-%d", i%100), fmt.Sprintf("svc-%d", i)
			x.SetImport(imp(ns, name, false, netip.AddrFrom4([4]byte{10, 100, byte(i >> 8), byte(i)}).String()))
			for c, id := range []string{"c1", "c2"} {
				x.SetSlice(nil, slice(ns, name+"-"+id, name, id,
					netip.AddrFrom4([4]byte{byte(172 + c), 16, byte(i >> 8), byte(i)}).String(),
					netip.AddrFrom4([4]byte{byte(172 + c), 17, byte(i >> 8), byte(i)}).String()))
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/service")
		runtime.KeepAlive(x)
	}
}

func TestRetain(t *testing.T) {
	fill := func() *Index {
		x := NewIndex()
		x.SetImport(imp("a", "web", false, "10.0.0.1"))
		x.SetImport(imp("a", "db", true))
		x.SetImport(imp("b", "web", false, "10.0.0.2"))
		x.SetSlice(nil, slice("a", "db-c1", "db", "c1", "1.1.1.1"))
		x.SetSlice(nil, slice("a", "db-c2", "db", "c2", "2.2.2.2"))
		return x
	}
	all := map[Key]bool{{"a", "web"}: true, {"a", "db"}: true, {"b", "web"}: true}
	allSlices := map[Key]bool{{"a", "db-c1"}: true, {"a", "db-c2"}: true}
	tests := []struct {
		name               string
		imports, sliceKeys map[Key]bool
		services           []Key    // the Services left
		dbClusters         []string // a/db's source clusters, when left
		nsB                bool     // HasNamespace("b")
		addr               string   // an address ByAddr must still (or no longer) find
		addrFound          bool
	}{
		{name: "everything listed again", imports: all, sliceKeys: allSlices,
			services: []Key{{"a", "db"}, {"a", "web"}, {"b", "web"}}, dbClusters: []string{"c1", "c2"}, nsB: true, addr: "10.0.0.2", addrFound: true},
		{name: "an import deleted during the outage", imports: map[Key]bool{{"a", "web"}: true, {"a", "db"}: true}, sliceKeys: allSlices,
			services: []Key{{"a", "db"}, {"a", "web"}}, dbClusters: []string{"c1", "c2"}, addr: "10.0.0.2"},
		{name: "a slice deleted during the outage", imports: all, sliceKeys: map[Key]bool{{"a", "db-c2"}: true},
			services: []Key{{"a", "db"}, {"a", "web"}, {"b", "web"}}, dbClusters: []string{"c2"}, nsB: true, addr: "1.1.1.1"},
		{name: "nothing listed", imports: map[Key]bool{}, sliceKeys: map[Key]bool{}, addr: "10.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := fill()
			x.Retain(tt.imports, tt.sliceKeys)
			var got []Key
			for _, k := range []Key{{"a", "db"}, {"a", "web"}, {"b", "web"}} {
				if x.Service(k.Namespace, k.Name) != nil {
					got = append(got, k)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.services) || x.Len() != len(tt.services) {
				t.Errorf("services %v (Len %d), want %v", got, x.Len(), tt.services)
			}
			if db := x.Service("a", "db"); db != nil {
				var ids []string
				for _, c := range db.Clusters {
					ids = append(ids, c.ID)
				}
				if fmt.Sprint(ids) != fmt.Sprint(tt.dbClusters) {
					t.Errorf("a/db clusters %v, want %v", ids, tt.dbClusters)
				}
			}
			if x.HasNamespace("b") != tt.nsB {
				t.Errorf("HasNamespace(b) = %v, want %v", x.HasNamespace("b"), tt.nsB)
			}
			if found := len(x.ByAddr(netip.MustParseAddr(tt.addr))) > 0; found != tt.addrFound {
				t.Errorf("ByAddr(%s) found = %v, want %v", tt.addr, found, tt.addrFound)
			}
		})
	}
}

// TestServiceCarriesPreferClose: the import's traffic distribution reaches
// its Service, and the slices keep their region and endpoint zones.
func TestServiceCarriesPreferClose(t *testing.T) {
	x := NewIndex()
	i := imp("a", "db", true)
	i.PreferClose = true
	x.SetImport(i)
	s := slice("a", "db-c1", "db", "c1", "1.1.1.1")
	s.Region, s.Endpoints[0].Zone = "eu", "eu-1a"
	x.SetSlice(nil, s)
	svc := x.Service("a", "db")
	if !svc.PreferClose {
		t.Error("the Service lost PreferClose")
	}
	if sl := svc.Clusters[0].Slices[0]; sl.Region != "eu" || sl.Endpoints[0].Zone != "eu-1a" {
		t.Errorf("region %q, zone %q; want eu, eu-1a", sl.Region, sl.Endpoints[0].Zone)
	}
}
