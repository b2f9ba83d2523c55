package leaderloop

import (
	"errors"
	"fmt"
	"maps"
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// Fenced makes one write into the member m leads, only while the election
// still allows it: it returns ErrFenced, and does not write, once the
// Fence says no or the term has changed. stamp, when given, is the object
// written: it gets the leader's term in federationv1alpha1.AnnotationLeaderTerm, so
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
		a[federationv1alpha1.AnnotationLeaderTerm] = strconv.Itoa(int(term))
		stamp.SetAnnotations(a)
	}
	return do()
}

// Write is Fenced for the loop's led member, counted in the loop's
// Metrics; an error of do says which write into which member failed (verb,
// kind), ErrFenced is returned as it is.
func (l *Loop[K]) Write(kind, verb string, stamp client.Object, do func() error) error {
	return l.Metrics.CountedWrite(l.m, kind, verb, stamp, do)
}

// CountedWrite is Fenced in member m, counted in the controller's Metrics.
func (mt Metrics) CountedWrite(m manager.Member, kind, verb string, stamp client.Object, do func() error) error {
	err := Fenced(m, stamp, do)
	switch {
	case errors.Is(err, ErrFenced):
		mt.Fenced.WithLabelValues(m.ClusterID).Inc()
		return err
	case err != nil:
		return fmt.Errorf("%s of a %s in %s: %w", verb, kind, m.ClusterID, err)
	}
	mt.Writes.WithLabelValues(m.ClusterID, kind, verb).Inc()
	return nil
}
