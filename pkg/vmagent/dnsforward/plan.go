package dnsforward

import (
	"bytes"
	"net/netip"
)

// FilePlan is what to do with a resolver file.
type FilePlan struct {
	// Write is the file's new content; nil leaves the file as it is.
	Write []byte
	// Original is the file as it was before the agent rewrote it, to keep
	// (in the agent's state) while the file is managed; nil once it is
	// not.
	Original *string
}

// PlanResolvConf decides the content of a resolver file whose content is
// current: pointed at the forwarder when manage is true, restored
// otherwise. original is the file before the agent rewrote it, as the
// agent's state keeps it (nil: not known; a managed file then stands for
// Unmanage of itself).
//
// A file that is not managed is the original: the agent's first run, or
// another program (a DHCP client, an administrator) wrote it since, and
// the agent takes it as the new original and points it at the forwarder
// again.
func PlanResolvConf(current []byte, original *string, manage bool, forwarder netip.Addr, zones []string) FilePlan {
	if !Managed(current) {
		if !manage {
			return FilePlan{}
		}
		orig := string(current)
		return FilePlan{Write: Rewrite(current, forwarder, zones), Original: &orig}
	}
	if original == nil {
		orig := string(Unmanage(current))
		original = &orig
	}
	if !manage {
		return FilePlan{Write: []byte(*original)}
	}
	want := Rewrite([]byte(*original), forwarder, zones)
	if bytes.Equal(want, current) {
		return FilePlan{Original: original}
	}
	return FilePlan{Write: want, Original: original}
}
