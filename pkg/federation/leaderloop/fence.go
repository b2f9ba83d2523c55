package leaderloop

import (
	"maps"
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/internal/names"
	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// Fenced makes one write into the member m leads, only while the election
// still allows it: it returns ErrFenced, and does not write, once the
// Fence says no or the term has changed. stamp, when given, is the object
// written: it gets the leader's term in names.LeaderTermAnnotation, so
// that writes of a deposed leader can be told apart. do's error is
// returned as it is.
func Fenced(m manager.Member, stamp client.Object, do func() error) error {
	term, ok := m.Fence.Check()
	if !ok || term != m.Term {
		return ErrFenced
	}
	if stamp != nil {
		a := maps.Clone(stamp.GetAnnotations())
		if a == nil {
			a = map[string]string{}
		}
		a[names.LeaderTermAnnotation] = strconv.Itoa(int(term))
		stamp.SetAnnotations(a)
	}
	return do()
}
