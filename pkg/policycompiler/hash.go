package policycompiler

import (
	"encoding/binary"
	"math"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

// digest is a 64-bit FNV-1a hash that also takes whole 64-bit words, for
// long peer lists. It does not depend on the process, so hashes stay
// comparable across restarts.
type digest struct{ sum uint64 }

const (
	digestOffset = 14695981039346656037
	digestPrime  = 1099511628211
)

func newDigest() digest { return digest{sum: digestOffset} }

func (d *digest) addString(s string) {
	for i := range len(s) {
		d.sum ^= uint64(s[i])
		d.sum *= digestPrime
	}
	d.addWord(uint64(len(s)))
}

func (d *digest) addWord(v uint64) {
	d.sum ^= v
	d.sum *= digestPrime
	d.sum ^= d.sum >> 32
}

// ruleHash digests everything an enforcement point sees of a rule.
func ruleHash(r *policyrules.CompiledRule) uint64 {
	d := newDigest()
	d.addString(string(r.Direction))
	d.addString(string(r.Action))
	d.addString(r.Tier)
	d.addWord(uint64(uint32(r.Priority.Tier)))
	d.addWord(math.Float64bits(r.Priority.Policy))
	d.addWord(uint64(uint32(r.Priority.RuleIndex)))
	d.addString(string(r.Policy.Kind))
	d.addString(r.Policy.Namespace)
	d.addString(r.Policy.Name)
	d.addString(r.RuleName)
	d.addString(r.LogLabel)
	d.addWord(boolBits(r.AnyPeer)<<1 | boolBits(r.EnableLogging))
	d.addWord(uint64(len(r.Peers)))
	for _, p := range r.Peers {
		raw := p.Addr().As16()
		d.addWord(binary.BigEndian.Uint64(raw[:8]))
		d.addWord(binary.BigEndian.Uint64(raw[8:]))
		d.addWord(uint64(p.Bits()) | boolBits(p.Addr().Is4())<<8)
	}
	d.addString(portsKey(r.Ports))
	return d.sum
}

func boolBits(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// endpointHash digests an endpoint's node and the hashes of its rules.
func endpointHash(node string, rules []*compiledRule) uint64 {
	d := newDigest()
	d.addString(node)
	for _, r := range rules {
		d.addWord(r.hash)
	}
	return d.sum
}
