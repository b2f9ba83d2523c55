// Package joins indexes, from the ServiceExport events of every member,
// the exports that join a federated Service other than their own name
// (the federation.antreaplus.io/joins annotation): the leader controllers
// that decide a federated Service (serviceimport, dnsendpoints) read a
// member's joining exports at the name they join, and requeue that name
// when one changes. What a join means is package exportscope's.
package joins

import (
	"cmp"
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/exportscope"
)

// source is one member's ServiceExport.
type source struct {
	cluster string
	key     types.NamespacedName
}

// Index knows, from the export events of every member, which exports
// join a federated Service other than their own name (the joins
// annotation): by the Service they join. An export that joins nothing is
// not in it.
type Index struct {
	mu       sync.Mutex
	target   map[source]types.NamespacedName
	byTarget map[types.NamespacedName]map[source]struct{}
}

// New returns an empty index.
func New() *Index {
	return &Index{target: map[source]types.NamespacedName{}, byTarget: map[types.NamespacedName]map[source]struct{}{}}
}

// Set records what the export key of cluster joins now (its annotations;
// gone: it was deleted) and returns the names whose federated Service may
// change: its own name, the Service it joins, and the one it joined before.
func (j *Index) Set(cluster string, key types.NamespacedName, annotations map[string]string, gone bool) []types.NamespacedName {
	src := source{cluster: cluster, key: key}
	target, ok, _ := exportscope.JoinTarget(src.key, annotations)
	j.mu.Lock()
	defer j.mu.Unlock()
	affected := []types.NamespacedName{src.key}
	if old, had := j.target[src]; had {
		affected = append(affected, old)
		delete(j.byTarget[old], src)
		if len(j.byTarget[old]) == 0 {
			delete(j.byTarget, old)
		}
		delete(j.target, src)
	}
	if !gone && ok && target != src.key {
		j.target[src] = target
		if j.byTarget[target] == nil {
			j.byTarget[target] = map[source]struct{}{}
		}
		j.byTarget[target][src] = struct{}{}
		affected = append(affected, target)
	}
	return affected
}

// Joining are the exports of cluster that join name, sorted.
func (j *Index) Joining(cluster string, name types.NamespacedName) []types.NamespacedName {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []types.NamespacedName
	for src := range j.byTarget[name] {
		if src.cluster == cluster {
			out = append(out, src.key)
		}
	}
	slices.SortFunc(out, func(a, b types.NamespacedName) int { return cmp.Compare(a.String(), b.String()) })
	return out
}

// TargetsIn are the joined names of Namespace ns.
func (j *Index) TargetsIn(ns string) []types.NamespacedName {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []types.NamespacedName
	for _, k := range slices.Collect(maps.Keys(j.byTarget)) {
		if k.Namespace == ns {
			out = append(out, k)
		}
	}
	return out
}

// Target is the federated Service the export key of cluster joins, when it
// joins one other than its own name.
func (j *Index) Target(cluster string, key types.NamespacedName) (types.NamespacedName, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	t, ok := j.target[source{cluster: cluster, key: key}]
	return t, ok
}
