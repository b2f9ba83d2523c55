package metricstest

import (
	"fmt"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
)

// Registered calls register twice on a fresh registry (registering again is
// not an error, by the convention) and returns the descriptors of every
// metric of the collectors it registered, sorted.
func Registered(register func(prometheus.Registerer) error) ([]string, error) {
	r := &recorder{Registry: prometheus.NewRegistry(), descs: map[string]bool{}}
	if err := register(r); err != nil {
		return nil, err
	}
	if err := register(r); err != nil {
		return nil, fmt.Errorf("registering again: %w", err)
	}
	descs := make([]string, 0, len(r.descs))
	for d := range r.descs {
		descs = append(descs, d)
	}
	slices.Sort(descs)
	return descs, nil
}

// recorder is a registry that remembers the descriptors of what it
// registered.
type recorder struct {
	*prometheus.Registry
	descs map[string]bool
}

func (r *recorder) Register(c prometheus.Collector) error {
	if err := r.Registry.Register(c); err != nil {
		return err
	}
	ch := make(chan *prometheus.Desc)
	go func() {
		c.Describe(ch)
		close(ch)
	}()
	for d := range ch {
		r.descs[d.String()] = true
	}
	return nil
}

func (r *recorder) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}
