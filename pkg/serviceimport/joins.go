package serviceimport

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

// joinIndex knows, from the export events of every member, which exports
// join a federated Service other than their own name (the joins
// annotation): by the Service they join. An export that joins nothing is
// not in it.
type joinIndex struct {
	mu       sync.Mutex
	target   map[source]types.NamespacedName
	byTarget map[types.NamespacedName]map[source]struct{}
}

func newJoinIndex() *joinIndex {
	return &joinIndex{target: map[source]types.NamespacedName{}, byTarget: map[types.NamespacedName]map[source]struct{}{}}
}

// set records what export src joins now (annotations nil: it is gone) and
// returns the names whose import may change: its own name, the Service it
// joins, and the one it joined before.
func (j *joinIndex) set(src source, annotations map[string]string, gone bool) []types.NamespacedName {
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

// joining are the exports of cluster that join name, sorted.
func (j *joinIndex) joining(cluster string, name types.NamespacedName) []types.NamespacedName {
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

// targetsIn are the joined names of Namespace ns.
func (j *joinIndex) targetsIn(ns string) []types.NamespacedName {
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
