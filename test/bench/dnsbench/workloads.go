package main

// workload is one kind of query sent to one server, and its figures.
type workload struct {
	server    *server
	queries   [][]byte
	light     bool   // also measured under a light load
	loaded    series // with b.s.clients clients
	lightRuns series // with b.s.latencyClients clients
}

// workloads are the loads measured, in the order measure reads their
// figures: federation names (ours, stock file), clusterset.local names
// (stock kubernetes, ours), headless names (ours, stock kubernetes),
// per-cluster names (ours, stock file).
func (b *bench) workloads(ours, stock, k8s *server) ([]*workload, error) {
	var out []*workload
	for _, w := range []struct {
		s     *server
		names []string
		light bool
	}{
		{ours, b.names(), true}, {stock, b.names(), true},
		{k8s, b.clustersetNames(), false}, {ours, b.clustersetNames(), false},
		{ours, b.headlessNames(), false}, {k8s, b.headlessNames(), false},
		{ours, b.clusterNames(), false}, {stock, b.clusterNames(), false},
	} {
		q, err := packQueries(w.names)
		if err != nil {
			return nil, err
		}
		out = append(out, &workload{server: w.s, queries: q, light: w.light})
	}
	return out, nil
}

// verify checks that ours answers like the zone file on federation names
// and like stock kubernetes on clusterset.local names, headless ones
// included, before anything is measured.
func (b *bench) verify(ours, stock, k8s *server) error {
	sample := append(pick(b.names(), 500), "nothere.bench-00."+federationID+".svc."+domain)
	if err := verify(ours, stock, sample); err != nil {
		return err
	}
	sample = append(pick(b.clustersetNames(), 250), pick(b.headlessNames(), 250)...)
	return verify(ours, k8s, append(sample, "nothere.bench-00.svc.clusterset.local."))
}

// names are every federation name of the records: the Service name and
// one per source cluster.
func (b *bench) names() []string {
	out := make([]string, 0, len(b.recs)*(1+len(sourceClusters)))
	for _, r := range b.recs {
		out = append(out, r.serviceName())
		for _, c := range sourceClusters {
			out = append(out, r.clusterName(c))
		}
	}
	return out
}

// clusterNames are the per-cluster federation names of the records.
func (b *bench) clusterNames() []string {
	out := make([]string, 0, len(b.recs)*len(sourceClusters))
	for _, r := range b.recs {
		for _, c := range sourceClusters {
			out = append(out, r.clusterName(c))
		}
	}
	return out
}

// clustersetNames are the clusterset.local names of the records, which
// the stock kubernetes plugin answers with the same cluster-set IPs.
func (b *bench) clustersetNames() []string {
	out := make([]string, 0, len(b.recs))
	for _, r := range b.recs {
		out = append(out, r.clustersetName())
	}
	return out
}

// headlessNames are the clusterset.local names of the headless records:
// the Service name (every ready endpoint) and each endpoint's name.
func (b *bench) headlessNames() []string {
	var out []string
	for _, r := range b.headless {
		out = append(out, r.clustersetName())
		for _, c := range sourceClusters {
			for _, h := range r.hosts {
				out = append(out, h+"."+c+"."+r.clustersetName())
			}
		}
	}
	return out
}
