package policycompiler

import (
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// entity is a Pod or an ExternalEntity, slimmed to what rules need.
type entity struct {
	kind      entityKind
	namespace string
	name      string
	// id is "namespace/name".
	id           string
	ips          []netip.Addr
	ports        []NamedPort
	externalNode string
	set          *labelSet
}

// labelSet is the workloads of one kind, in one Namespace, with the same
// labels. Selectors are matched against label sets, not workloads: most
// workloads share their labels with others.
type labelSet struct {
	kind      entityKind
	namespace string
	labels    labels.Set
	key       string
	entities  map[*entity]struct{}
	selectors map[*selectorItem]struct{}
}

// selectorItem is a selector in use by policies, with the label sets it
// selects and the policy rules that use it.
type selectorItem struct {
	spec      selectorSpec
	key       string
	eqKey     string
	refs      int
	labelSets map[*labelSet]struct{}
	// appliedUsers are the rules applied to what the selector selects.
	appliedUsers map[*policyRule]struct{}
	// peerUsers are the rules whose peers include what it selects.
	peerUsers map[*policyRule]struct{}
	// addresses caches the prefixes of the selected workloads' IPs.
	addresses      []netip.Prefix
	addressesValid bool
	dead           bool
}

// membershipChange says that a label set started or stopped being selected.
type membershipChange struct {
	selector *selectorItem
	set      *labelSet
}

// entityIndex matches selectors with label sets, both ways, incrementally.
type entityIndex struct {
	intern    *interner
	labelSets map[string]*labelSet
	// setsByNamespace files label sets by kind and Namespace.
	setsByNamespace [kindCount]map[string]map[*labelSet]struct{}
	// setsByLabel files label sets by kind and "key=value".
	setsByLabel [kindCount]map[string]map[*labelSet]struct{}
	selectors   map[string]*selectorItem
	// selectorsByScope files selectors by kind, Namespace ("" when they span
	// Namespaces) and equality key ("" when they have none).
	selectorsByScope [kindCount]map[string]map[string]map[*selectorItem]struct{}
	namespaceLabels  map[string]labels.Set
}

func newEntityIndex(in *interner) *entityIndex {
	x := &entityIndex{
		intern:          in,
		labelSets:       map[string]*labelSet{},
		selectors:       map[string]*selectorItem{},
		namespaceLabels: map[string]labels.Set{},
	}
	for k := range kindCount {
		x.setsByNamespace[k] = map[string]map[*labelSet]struct{}{}
		x.setsByLabel[k] = map[string]map[*labelSet]struct{}{}
		x.selectorsByScope[k] = map[string]map[string]map[*selectorItem]struct{}{}
	}
	return x
}

func labelSetKey(kind entityKind, namespace string, lbls map[string]string) string {
	keys := make([]string, 0, len(lbls))
	for k := range lbls {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteByte('0' + byte(kind))
	b.WriteString(namespace)
	for _, k := range keys {
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(lbls[k])
	}
	return b.String()
}

// addEntity files e under the label set of lbls, creating the set (and
// matching it against every selector that could select it) if needed.
func (x *entityIndex) addEntity(e *entity, lbls map[string]string) {
	key := labelSetKey(e.kind, e.namespace, lbls)
	set, ok := x.labelSets[key]
	if !ok {
		set = x.newLabelSet(e.kind, e.namespace, lbls, key)
	}
	set.entities[e] = struct{}{}
	e.set = set
}

func (x *entityIndex) newLabelSet(kind entityKind, namespace string, lbls map[string]string, key string) *labelSet {
	set := &labelSet{
		kind:      kind,
		namespace: namespace,
		labels:    make(labels.Set, len(lbls)),
		key:       key,
		entities:  map[*entity]struct{}{},
		selectors: map[*selectorItem]struct{}{},
	}
	for k, v := range lbls {
		set.labels[x.intern.get(k)] = x.intern.get(v)
	}
	x.labelSets[key] = set
	addToSet(x.setsByNamespace[kind], namespace, set)
	for k, v := range set.labels {
		addToSet(x.setsByLabel[kind], k+"="+v, set)
	}
	for _, scope := range [2]string{namespace, ""} {
		bySelectorKey := x.selectorsByScope[kind][scope]
		for s := range bySelectorKey[""] {
			x.link(s, set)
		}
		for k, v := range set.labels {
			for s := range bySelectorKey[k+"="+v] {
				x.link(s, set)
			}
		}
	}
	return set
}

// link records that s selects set, if it does.
func (x *entityIndex) link(s *selectorItem, set *labelSet) {
	if x.matches(s, set) {
		s.labelSets[set] = struct{}{}
		set.selectors[s] = struct{}{}
	}
}

// removeEntity takes e out of its label set, deleting the set when it is
// left empty.
func (x *entityIndex) removeEntity(e *entity) {
	set := e.set
	e.set = nil
	delete(set.entities, e)
	if len(set.entities) > 0 {
		return
	}
	delete(x.labelSets, set.key)
	removeFromSet(x.setsByNamespace[set.kind], set.namespace, set)
	for k, v := range set.labels {
		removeFromSet(x.setsByLabel[set.kind], k+"="+v, set)
	}
	for s := range set.selectors {
		delete(s.labelSets, set)
	}
}

func (x *entityIndex) matches(s *selectorItem, set *labelSet) bool {
	if s.spec.kind != set.kind {
		return false
	}
	switch s.spec.scope {
	case scopeNamespace:
		if set.namespace != s.spec.namespace {
			return false
		}
	case scopeNamespaceSelector:
		if !s.spec.nsSelector.Matches(x.namespaceLabels[set.namespace]) {
			return false
		}
	}
	return s.spec.selector.Matches(set.labels)
}

// acquire returns the selector item of spec, creating it and finding the
// label sets it selects if no policy used it yet.
func (x *entityIndex) acquire(spec selectorSpec) *selectorItem {
	key := spec.key()
	if s, ok := x.selectors[key]; ok {
		s.refs++
		return s
	}
	s := &selectorItem{
		spec:         spec,
		key:          key,
		eqKey:        equalityKey(spec.selector),
		refs:         1,
		labelSets:    map[*labelSet]struct{}{},
		appliedUsers: map[*policyRule]struct{}{},
		peerUsers:    map[*policyRule]struct{}{},
	}
	x.selectors[key] = s
	byKey := x.selectorsByScope[spec.kind][spec.scopeNamespaceKey()]
	if byKey == nil {
		byKey = map[string]map[*selectorItem]struct{}{}
		x.selectorsByScope[spec.kind][spec.scopeNamespaceKey()] = byKey
	}
	addToSet(byKey, s.eqKey, s)
	x.forEachCandidate(s, func(set *labelSet) { x.link(s, set) })
	return s
}

// forEachCandidate calls fn with every label set that s could select: the
// smaller of the sets with its equality label and the sets in its scope.
func (x *entityIndex) forEachCandidate(s *selectorItem, fn func(*labelSet)) {
	kind := s.spec.kind
	byLabel := x.setsByLabel[kind][s.eqKey]
	switch {
	case s.spec.scope == scopeNamespace:
		inNamespace := x.setsByNamespace[kind][s.spec.namespace]
		if s.eqKey != "" && len(byLabel) < len(inNamespace) {
			inNamespace = byLabel
		}
		for set := range inNamespace {
			fn(set)
		}
	case s.eqKey != "":
		for set := range byLabel {
			fn(set)
		}
	default:
		for namespace, sets := range x.setsByNamespace[kind] {
			if s.spec.scope == scopeNamespaceSelector && !s.spec.nsSelector.Matches(x.namespaceLabels[namespace]) {
				continue
			}
			for set := range sets {
				fn(set)
			}
		}
	}
}

// release drops one use of s, deleting it when no policy uses it.
func (x *entityIndex) release(s *selectorItem) {
	s.refs--
	if s.refs > 0 {
		return
	}
	s.dead = true
	delete(x.selectors, s.key)
	byKey := x.selectorsByScope[s.spec.kind][s.spec.scopeNamespaceKey()]
	removeFromSet(byKey, s.eqKey, s)
	if len(byKey) == 0 {
		delete(x.selectorsByScope[s.spec.kind], s.spec.scopeNamespaceKey())
	}
	for set := range s.labelSets {
		delete(set.selectors, s)
	}
}

// setNamespaceLabels records a Namespace's labels (nil when it is deleted)
// and returns the label sets that selectors with a namespaceSelector
// started or stopped selecting.
func (x *entityIndex) setNamespaceLabels(namespace string, lbls map[string]string) []membershipChange {
	old := x.namespaceLabels[namespace]
	if labels.Equals(old, lbls) && (lbls == nil) == (old == nil) {
		return nil
	}
	if lbls == nil {
		delete(x.namespaceLabels, namespace)
	} else {
		interned := make(labels.Set, len(lbls))
		for k, v := range lbls {
			interned[x.intern.get(k)] = x.intern.get(v)
		}
		x.namespaceLabels[namespace] = interned
	}
	var changes []membershipChange
	for kind := range kindCount {
		for _, selectors := range x.selectorsByScope[kind][""] {
			for s := range selectors {
				if s.spec.scope != scopeNamespaceSelector {
					continue
				}
				if s.spec.nsSelector.Matches(old) == s.spec.nsSelector.Matches(x.namespaceLabels[namespace]) {
					continue
				}
				changes = x.rematchNamespace(s, kind, namespace, changes)
			}
		}
	}
	return changes
}

func (x *entityIndex) rematchNamespace(s *selectorItem, kind entityKind, namespace string, changes []membershipChange) []membershipChange {
	for set := range x.setsByNamespace[kind][namespace] {
		_, had := s.labelSets[set]
		has := x.matches(s, set)
		switch {
		case has && !had:
			s.labelSets[set] = struct{}{}
			set.selectors[s] = struct{}{}
		case had && !has:
			delete(s.labelSets, set)
			delete(set.selectors, s)
		default:
			continue
		}
		changes = append(changes, membershipChange{selector: s, set: set})
	}
	return changes
}

// forEachMember calls fn with every workload s selects.
func (s *selectorItem) forEachMember(fn func(*entity)) {
	for set := range s.labelSets {
		for e := range set.entities {
			fn(e)
		}
	}
}

func addToSet[K comparable, V comparable](m map[K]map[V]struct{}, key K, value V) {
	set, ok := m[key]
	if !ok {
		set = map[V]struct{}{}
		m[key] = set
	}
	set[value] = struct{}{}
}

func removeFromSet[K comparable, V comparable](m map[K]map[V]struct{}, key K, value V) {
	set := m[key]
	delete(set, value)
	if len(set) == 0 {
		delete(m, key)
	}
}

// interner keeps one copy of each label key, value and Namespace name.
type interner struct{ strings map[string]string }

func (in *interner) get(s string) string {
	if v, ok := in.strings[s]; ok {
		return v
	}
	in.strings[s] = s
	return s
}
