package sandbox

import (
	"context"
	"os"
	"sync"
)

// ClusterStatus is what Status reports of one cluster.
type ClusterStatus struct {
	ClusterPlan
	// Server is the API server URL.
	Server string `json:"server"`
	// Ready is true when the API server's /readyz answered ok.
	Ready bool `json:"ready"`
	// Error says why the cluster is not ready.
	Error string `json:"error,omitempty"`
	// LogDir holds the cluster's component logs.
	LogDir string `json:"logDir"`
}

// Status probes every cluster of the sandbox; it returns os.ErrNotExist when
// there is no sandbox.
func (s *Sandbox) Status(ctx context.Context) ([]ClusterStatus, error) {
	st, err := s.LoadState()
	if err != nil {
		return nil, err
	}
	out := make([]ClusterStatus, len(st.Clusters))
	var wg sync.WaitGroup
	for i, p := range st.Clusters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := ClusterStatus{ClusterPlan: p, LogDir: s.LogDir(p.Name)}
			if cfg, err := s.restConfig(p.Name); err == nil {
				cs.Server = cfg.Host
			}
			if err := s.readyz(ctx, p.Name); err != nil {
				cs.Error = err.Error()
			} else {
				cs.Ready = true
			}
			out[i] = cs
		}()
	}
	wg.Wait()
	return out, nil
}

// Exists reports whether a sandbox was started in the directory.
func (s *Sandbox) Exists() bool {
	_, err := os.Stat(s.statePath())
	return err == nil
}
