package importcache

import (
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Index holds what the DNS server answers from: the Services of a member's
// imports and, for locality, where the member's Nodes are. Each change of
// an import or slice rebuilds the one Service it belongs to; readers get
// immutable Services.
type Index struct {
	nodes *Nodes

	mu       sync.RWMutex
	imports  map[Key]*Import
	slices   map[Key][]*Slice // by the slice's Service (a few each)
	services map[Key]*Service
	inNS     map[string]int       // imports per namespace
	byAddr   map[netip.Addr][]Key // cluster-set IPs and headless endpoint addresses
	modified atomic.Int64         // unix seconds of the last change
}

// NewIndex returns an empty Index.
func NewIndex() *Index {
	return &Index{
		nodes:    NewNodes(),
		imports:  map[Key]*Import{},
		slices:   map[Key][]*Slice{},
		services: map[Key]*Service{},
		inNS:     map[string]int{},
		byAddr:   map[netip.Addr][]Key{},
	}
}

// SetImport adds or replaces an import.
func (x *Index) SetImport(imp *Import) {
	k := Key{imp.Namespace, imp.Name}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.imports[k]; !ok {
		x.inNS[k.Namespace]++
	}
	x.imports[k] = imp
	x.rebuild(k)
}

// DeleteImport removes an import; its slices stay filed until they go too.
func (x *Index) DeleteImport(namespace, name string) {
	k := Key{namespace, name}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.imports[k]; !ok {
		return
	}
	delete(x.imports, k)
	if x.inNS[namespace]--; x.inNS[namespace] <= 0 {
		delete(x.inNS, namespace)
	}
	x.rebuild(k)
}

// SetSlice adds or replaces an imported EndpointSlice. old is its
// previous state, nil when it is new: a slice whose service-name label
// changed moves from one Service to the other.
func (x *Index) SetSlice(old, s *Slice) {
	k := Key{s.Namespace, s.Service}
	x.mu.Lock()
	defer x.mu.Unlock()
	if old != nil && old.Service != s.Service {
		x.unfile(old)
	}
	l := x.slices[k]
	i := slices.IndexFunc(l, func(o *Slice) bool { return o.Name == s.Name })
	if i < 0 {
		x.slices[k] = append(l, s)
	} else {
		l[i] = s
	}
	x.rebuild(k)
}

// DeleteSlice removes an imported EndpointSlice.
func (x *Index) DeleteSlice(s *Slice) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.unfile(s)
}

func (x *Index) unfile(s *Slice) {
	k := Key{s.Namespace, s.Service}
	l := slices.DeleteFunc(x.slices[k], func(o *Slice) bool { return o.Name == s.Name })
	if len(l) == 0 {
		delete(x.slices, k)
	} else {
		x.slices[k] = l
	}
	x.rebuild(k)
}

// Retain keeps only the imports whose namespace and name are in imports
// and the slices whose namespace and (slice) name are in sliceKeys: informers
// that listed again after an outage never report what was deleted meanwhile.
func (x *Index) Retain(imports, sliceKeys map[Key]bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	touched := map[Key]bool{}
	for k := range x.imports {
		if !imports[k] {
			delete(x.imports, k)
			if x.inNS[k.Namespace]--; x.inNS[k.Namespace] <= 0 {
				delete(x.inNS, k.Namespace)
			}
			touched[k] = true
		}
	}
	for k, l := range x.slices {
		kept := l[:0:0]
		for _, s := range l {
			if sliceKeys[Key{s.Namespace, s.Name}] {
				kept = append(kept, s)
			}
		}
		if len(kept) == len(l) {
			continue
		}
		if len(kept) == 0 {
			delete(x.slices, k)
		} else {
			x.slices[k] = kept
		}
		touched[k] = true
	}
	for k := range touched {
		x.rebuild(k)
	}
}

// Service returns the imported Service, nil when there is no such import.
func (x *Index) Service(namespace, name string) *Service {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.services[Key{namespace, name}]
}

// HasNamespace tells whether any import lives in the namespace.
func (x *Index) HasNamespace(namespace string) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.inNS[namespace] > 0
}

// ByAddr returns the Services whose cluster-set IP or (headless) ready
// endpoint has the address.
func (x *Index) ByAddr(a netip.Addr) []*Service {
	x.mu.RLock()
	defer x.mu.RUnlock()
	keys := x.byAddr[a.Unmap()]
	out := make([]*Service, 0, len(keys))
	for _, k := range keys {
		if s := x.services[k]; s != nil {
			out = append(out, s)
		}
	}
	return out
}

// Nodes are the member's Nodes.
func (x *Index) Nodes() *Nodes { return x.nodes }

// Locate returns the zone and region of a client address (see Nodes.Locate).
func (x *Index) Locate(ip netip.Addr) (zone, region string, found bool) { return x.nodes.Locate(ip) }

// Len is the number of imported Services.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.services)
}

// Serial is the unix time of the last change, for SOA serials.
func (x *Index) Serial() uint32 { return uint32(x.modified.Load()) } // #nosec G115 -- a SOA serial wraps by design

// rebuild makes the Service of k again from its import and slices; x.mu is held.
func (x *Index) rebuild(k Key) {
	x.modified.Store(time.Now().Unix())
	old := x.services[k]
	imp, ok := x.imports[k]
	if !ok {
		delete(x.services, k)
		x.fileAddrs(k, old, nil)
		return
	}
	s := build(imp, x.slices[k])
	x.services[k] = s
	x.fileAddrs(k, old, s)
}

// build assembles a Service: source clusters by ID, each one's slices by name.
func build(imp *Import, filed []*Slice) *Service {
	s := &Service{Key: Key{imp.Namespace, imp.Name}, Headless: imp.Headless, IPs: imp.IPs, Ports: imp.Ports, PreferClose: imp.PreferClose}
	if len(filed) == 0 {
		return s
	}
	sl := slices.Clone(filed)
	slices.SortFunc(sl, func(a, b *Slice) int {
		if c := strings.Compare(a.Cluster, b.Cluster); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	for i := 0; i < len(sl); {
		j := i
		for j < len(sl) && sl[j].Cluster == sl[i].Cluster {
			j++
		}
		s.Clusters = append(s.Clusters, Cluster{ID: sl[i].Cluster, Slices: sl[i:j:j]})
		i = j
	}
	return s
}

// fileAddrs moves k in the address index from old's addresses to cur's.
func (x *Index) fileAddrs(k Key, old, cur *Service) {
	for _, a := range addrs(old) {
		keys := slices.DeleteFunc(x.byAddr[a], func(o Key) bool { return o == k })
		if len(keys) == 0 {
			delete(x.byAddr, a)
		} else {
			x.byAddr[a] = keys
		}
	}
	for _, a := range addrs(cur) {
		if !slices.Contains(x.byAddr[a], k) {
			x.byAddr[a] = append(x.byAddr[a], k)
		}
	}
}

// addrs are the addresses a Service answers reverse lookups for: its
// cluster-set IPs, or its ready endpoints when headless.
func addrs(s *Service) []netip.Addr {
	if s == nil {
		return nil
	}
	if !s.Headless {
		return s.IPs
	}
	var out []netip.Addr
	for _, c := range s.Clusters {
		for _, sl := range c.Slices {
			for _, e := range sl.Endpoints {
				out = append(out, e.Addrs...)
			}
		}
	}
	return out
}
