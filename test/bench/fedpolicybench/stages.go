package main

import (
	"bufio"
	"context"
	"fmt"
	"net/netip"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/vmagent"
)

// pollEvery is how often the agent's state file is looked at.
const pollEvery = 2 * time.Millisecond

// stateFile follows the agent's state file, which the agent replaces
// (rename) after every successful nftables apply.
type stateFile struct {
	path string
	ino  uint64
	mod  time.Time
	size int64
	view *wire.View
}

// refresh reads the file again if it was replaced since the last look.
func (s *stateFile) refresh() (*wire.View, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(s.path, &st); err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	mod := time.Unix(st.Mtim.Unix())
	if st.Ino == s.ino && mod.Equal(s.mod) && st.Size == s.size {
		return s.view, nil
	}
	view, _, err := vmagent.LoadState(s.path)
	if err != nil {
		return nil, err
	}
	s.ino, s.mod, s.size, s.view = st.Ino, mod, st.Size, view
	return view, nil
}

// waitFor polls the state file until ok holds for its View, and returns
// when that was seen.
func (s *stateFile) waitFor(ctx context.Context, timeout time.Duration, ok func(*wire.View) bool) (time.Time, *wire.View, error) {
	deadline := time.Now().Add(timeout)
	for {
		view, err := s.refresh()
		now := time.Now()
		if err == nil && view != nil && ok(view) {
			return now, view, nil
		}
		if now.After(deadline) {
			return time.Time{}, view, fmt.Errorf("not applied by the agent within %s (last error reading the state file: %s)", timeout, errText(err))
		}
		if err := sleep(ctx, pollEvery); err != nil {
			return time.Time{}, view, err
		}
	}
}

// allowsAll is true when every address is a peer of some rule of the VM.
func allowsAll(addrs ...netip.Addr) func(*wire.View) bool {
	return func(v *wire.View) bool {
		for _, a := range addrs {
			if !allows(v, a) {
				return false
			}
		}
		return true
	}
}

func allows(v *wire.View, a netip.Addr) bool {
	for _, ep := range v.Endpoints {
		for _, id := range ep.Order {
			for _, p := range ep.Rules[id].Peers {
				if p.Contains(a) {
					return true
				}
			}
		}
	}
	return false
}

// Stages of a change in member-2, seen by the bench's watches.
const (
	stageRemoteEntity = "RemoteEntity"  // the leader wrote the RemoteEntity
	stageImportSlice  = "EndpointSlice" // the leader wrote the imported slice
	stageGroup        = "Group"         // the member controller wrote the Group
)

// sightings are when each address was first seen in objects of a stage.
type sightings struct {
	mu   sync.Mutex
	seen map[string]map[netip.Addr]time.Time
}

func (s *sightings) mark(stage string, addrs []netip.Addr) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[stage] == nil {
		s.seen[stage] = map[netip.Addr]time.Time{}
	}
	for _, a := range addrs {
		if _, ok := s.seen[stage][a]; !ok {
			s.seen[stage][a] = now
		}
	}
}

func (s *sightings) at(stage string, a netip.Addr) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.seen[stage][a]
	return t, ok
}

// watchStages watches member-2's RemoteEntities, imported EndpointSlices
// and Groups of the bench's namespace until ctx ends.
func (s *sightings) watchStages(ctx context.Context, c client.WithWatch) {
	go s.watch(ctx, c, stageRemoteEntity, &federationv1alpha1.RemoteEntityList{}, func(o runtime.Object) []netip.Addr {
		var out []netip.Addr
		e := o.(*federationv1alpha1.RemoteEntity)
		for _, ep := range e.Spec.Endpoints {
			out = appendAddr(out, ep.IP)
		}
		for _, a := range e.Spec.Addresses { // a NAT gateway's address is an egress address, no endpoint
			out = appendAddr(out, a.IP)
		}
		return out
	})
	go s.watch(ctx, c, stageImportSlice, &discoveryv1.EndpointSliceList{}, func(o runtime.Object) []netip.Addr {
		es := o.(*discoveryv1.EndpointSlice)
		if es.Labels[federationv1alpha1.LabelManagedBy] != federationv1alpha1.ManagedByFederation {
			return nil
		}
		var out []netip.Addr
		for _, ep := range es.Endpoints {
			for _, a := range ep.Addresses {
				out = appendAddr(out, a)
			}
		}
		return out
	})
	go s.watch(ctx, c, stageGroup, &antreav1beta1.GroupList{}, func(o runtime.Object) []netip.Addr {
		var out []netip.Addr
		for _, b := range o.(*antreav1beta1.Group).Spec.IPBlocks {
			if p, err := netip.ParsePrefix(b.CIDR); err == nil && p.IsSingleIP() {
				out = append(out, p.Addr())
			}
		}
		return out
	})
}

func appendAddr(out []netip.Addr, s string) []netip.Addr {
	if a, err := netip.ParseAddr(s); err == nil {
		out = append(out, a)
	}
	return out
}

// watch marks the addresses of every object of list added or modified,
// watching again when the watch ends, until ctx ends.
func (s *sightings) watch(ctx context.Context, c client.WithWatch, stage string, list client.ObjectList, addrs func(runtime.Object) []netip.Addr) {
	for ctx.Err() == nil {
		w, err := c.Watch(ctx, list, client.InNamespace(namespace))
		if err != nil {
			_ = sleep(ctx, 200*time.Millisecond)
			continue
		}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Added || ev.Type == watch.Modified {
				s.mark(stage, addrs(ev.Object))
			}
		}
		w.Stop()
	}
}

// klogLine matches a klog text line: its time and message.
var klogLine = regexp.MustCompile(`^[IWEF](\d{4} \d{2}:\d{2}:\d{2}\.\d{6})\s+\d+\s+\S+\]\s+"([^"]*)"(.*)$`)

var generationKV = regexp.MustCompile(`\bgeneration=(\d+)`)

var tookKV = regexp.MustCompile(`\btook="([^"]+)"`)

// logTimes reads, from a log, when each generation was first logged with
// message msg ("Published" by the policy controller, "Applied rules" by
// the agent); with sinceTook, the time the line's took= value before it
// (when the agent began to apply).
func logTimes(path, msg string, sinceTook bool) (map[uint64]time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	out := map[uint64]time.Time{}
	year := time.Now().Year()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := klogLine.FindStringSubmatch(sc.Text())
		if m == nil || m[2] != msg {
			continue
		}
		g := generationKV.FindStringSubmatch(m[3])
		if g == nil {
			continue
		}
		gen, _ := strconv.ParseUint(g[1], 10, 64)
		t, err := time.ParseInLocation("2006 0102 15:04:05.000000", strconv.Itoa(year)+" "+m[1], time.Local)
		if err != nil {
			continue
		}
		if took := tookKV.FindStringSubmatch(m[3]); sinceTook && took != nil {
			if d, err := time.ParseDuration(took[1]); err == nil {
				t = t.Add(-d)
			}
		}
		if _, seen := out[gen]; !seen {
			out[gen] = t
		}
	}
	return out, sc.Err()
}

// describeStages says, for a change that did not reach the agent, which
// stages it reached.
func (s *sightings) describe(a netip.Addr, start time.Time) string {
	var parts []string
	for _, stage := range []string{stageRemoteEntity, stageImportSlice, stageGroup} {
		if t, ok := s.at(stage, a); ok {
			parts = append(parts, fmt.Sprintf("%s after %s", stage, t.Sub(start).Round(time.Millisecond)))
		} else {
			parts = append(parts, stage+" not seen")
		}
	}
	return strings.Join(parts, ", ")
}
