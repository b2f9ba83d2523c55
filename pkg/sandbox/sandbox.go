package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"antreaplus.io/antreaplus/pkg/toolchain"
)

// DirEnv overrides the default sandbox directory.
const DirEnv = "ANTREAPLUS_SANDBOX_DIR"

// DefaultAPIPortBase is the API server port of member-1; member-i uses base+i-1.
const DefaultAPIPortBase = 16443

// Options configure a sandbox.
type Options struct {
	// Dir holds the sandbox's state, kubeconfig, and every cluster's files and logs.
	Dir string
	// APIPortBase is the API server port of member-1.
	APIPortBase int
	// NodesPerCluster is how many simulated nodes each cluster gets.
	NodesPerCluster int
	// Progress receives one line per step.
	Progress io.Writer
	// Tools overrides the toolchain lookup (tests).
	Tools *toolchain.Toolchain
	// SingleStack names the clusters whose Services are IPv4 only; the
	// others are dual-stack (IPv4 first).
	SingleStack []string
	// Light runs light members (light.go): etcd and kube-apiserver only,
	// the nodes and the federation account's token written by the sandbox.
	// Recorded: a sandbox keeps the kind of members it started with.
	Light bool
}

// State is what a running sandbox records in Dir/sandbox.json.
type State struct {
	Kubeconfig string        `json:"kubeconfig"`
	Clusters   []ClusterPlan `json:"clusters"`
	StartedAt  time.Time     `json:"startedAt"`
	// FederationID is set once the sandbox forms a federation.
	FederationID string `json:"federationID,omitempty"`
	// Supervisors are the clusters running a federation manager.
	Supervisors []string `json:"supervisors,omitempty"`
	// Cloud is set once the sandbox runs its local cloud.
	Cloud *CloudState `json:"cloud,omitempty"`
	// AsInstalled: the chart is installed in every cluster and the
	// components run as its Pods (installed.go).
	AsInstalled bool `json:"asInstalled,omitempty"`
	// ExternalDNS is set once the sandbox publishes the federation's
	// names outside the members (--external-dns, externaldns.go).
	ExternalDNS *ExternalDNSState `json:"externalDNS,omitempty"`
	// Light: the members are light (light.go).
	Light bool `json:"light,omitempty"`
}

// Sandbox is a set of local clusters living in one directory.
type Sandbox struct {
	opts Options
	// light is Options.Light, or what the sandbox recorded when it started.
	light bool
}

// DefaultDir is $ANTREAPLUS_SANDBOX_DIR or ~/.antreaplus/sandbox.
func DefaultDir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ".antreaplus", "sandbox")
}

// New returns a sandbox with defaults filled in.
func New(opts Options) *Sandbox {
	if opts.Dir == "" {
		opts.Dir = DefaultDir()
	}
	if opts.APIPortBase == 0 {
		opts.APIPortBase = DefaultAPIPortBase
	}
	if opts.NodesPerCluster == 0 {
		opts.NodesPerCluster = 3
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	return &Sandbox{opts: opts, light: opts.Light}
}

// Dir is the sandbox directory.
func (s *Sandbox) Dir() string { return s.opts.Dir }

// KubeconfigPath is where the sandbox writes its kubeconfig.
func (s *Sandbox) KubeconfigPath() string { return filepath.Join(s.opts.Dir, "kubeconfig") }

func (s *Sandbox) statePath() string { return filepath.Join(s.opts.Dir, "sandbox.json") }

func (s *Sandbox) logf(format string, args ...any) {
	fmt.Fprintf(s.opts.Progress, format+"\n", args...)
}

// LoadState reads the recorded state; it returns os.ErrNotExist when no sandbox was started.
func (s *Sandbox) LoadState() (*State, error) {
	raw, err := os.ReadFile(s.statePath())
	if err != nil {
		return nil, err
	}
	st := &State{}
	if err := json.Unmarshal(raw, st); err != nil {
		return nil, fmt.Errorf("reading sandbox state %s: %w (remove the directory to start afresh)", s.statePath(), err)
	}
	return st, nil
}

func (s *Sandbox) saveState(st *State) error {
	raw, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(s.statePath(), raw, 0o600)
}

// Up makes sure n clusters run: it starts the missing ones, restarts stopped
// ones, leaves running ones alone, and (re)writes the kubeconfig. Running it
// on a running sandbox is safe. A sandbox is never shrunk by Up.
func (s *Sandbox) Up(ctx context.Context, n int) (*State, error) {
	tools, err := s.tools(ctx)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating sandbox directory: %w", err)
	}
	base := s.opts.APIPortBase
	if prev, err := s.LoadState(); err == nil {
		if len(prev.Clusters) > 0 && prev.Light != s.opts.Light {
			if s.opts.Light {
				s.logf("The sandbox runs full members; keeping them (run 'antreaplus sandbox down' first for light ones).")
			}
			s.light = prev.Light
		}
		if len(prev.Clusters) > n {
			s.logf("The sandbox already runs %d clusters; keeping all of them (run 'antreaplus sandbox down' first to start smaller).", len(prev.Clusters))
			n = len(prev.Clusters)
		}
		if len(prev.Clusters) > 0 {
			base = prev.Clusters[0].APIServerPort
		}
	}
	plans, err := Plan(n, base)
	if err != nil {
		return nil, err
	}
	for i := range plans {
		if slices.Contains(s.opts.SingleStack, plans[i].Name) {
			plans[i].ServiceCIDR6 = netip.Prefix{}
		}
	}
	if lo, hi, ok := ephemeralRange(); ok && plans[0].APIServerPort <= hi && plans[len(plans)-1].ComponentPorts.Kwok >= lo {
		s.logf("Warning: ports %d..%d overlap the kernel's ephemeral range %d..%d: client connections may take them; prefer a base port below %d.",
			plans[0].APIServerPort, plans[len(plans)-1].ComponentPorts.Kwok, lo, hi, lo-400)
	}
	if base < 1024 && os.Geteuid() != 0 {
		return nil, fmt.Errorf("API server ports below 1024 need root: run as root or pick a base port of 1024 or more")
	}

	start := time.Now()
	errs := make([]error, len(plans))
	var wg sync.WaitGroup
	for i := range plans {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = s.ensureCluster(ctx, tools, plans[i])
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	st := &State{Kubeconfig: s.KubeconfigPath(), Clusters: plans, StartedAt: start, Light: s.light}
	if prev, err := s.LoadState(); err == nil {
		st.FederationID, st.Supervisors, st.Cloud, st.AsInstalled = prev.FederationID, prev.Supervisors, prev.Cloud, prev.AsInstalled
		st.ExternalDNS = prev.ExternalDNS
	}
	if err := s.writeKubeconfig(plans); err != nil {
		return nil, err
	}
	if err := s.saveState(st); err != nil {
		return nil, fmt.Errorf("saving sandbox state: %w", err)
	}
	s.logf("Sandbox of %d clusters ready in %s.", len(plans), time.Since(start).Round(100*time.Millisecond))
	return st, nil
}

func (s *Sandbox) tools(ctx context.Context) (toolchain.Toolchain, error) {
	if s.opts.Tools != nil {
		if missing := s.opts.Tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
			return *s.opts.Tools, fmt.Errorf("tools %v are missing from %s: run 'make tools'", missing, s.opts.Tools.Dir)
		}
		return *s.opts.Tools, nil
	}
	return toolchain.Ensure(ctx, s.opts.Progress, toolchain.SandboxTools()...)
}
