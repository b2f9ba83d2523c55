package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/toolchain"
)

// FederationOptions shape the federation a sandbox forms.
type FederationOptions struct {
	// FederationID of the sandbox's federation.
	FederationID string
	// Supervisors is how many clusters, from member-1 on, are supervisors.
	Supervisors int
	// ManagerBinary is the federation-manager executable.
	ManagerBinary string
	// ManagerArgs are extra flags for every federation manager.
	ManagerArgs []string
	// ManagerArgsFor, when set, gives one supervisor's manager flags of
	// its own after ManagerArgs (an address to serve its metrics on).
	ManagerArgsFor func(supervisor string) []string
}

// Federate forms a federation of every sandbox cluster, the first
// Supervisors of them supervisors, and runs a federation manager per
// supervisor. Running it again is safe: joins are idempotent and running
// managers are left alone.
func (s *Sandbox) Federate(ctx context.Context, opts FederationOptions) error {
	st, err := s.LoadState()
	if err != nil {
		return fmt.Errorf("no sandbox to federate: %w", err)
	}
	if opts.Supervisors < 1 || opts.Supervisors > len(st.Clusters) {
		return fmt.Errorf("--supervisors must be between 1 and the number of clusters (%d), not %d", len(st.Clusters), opts.Supervisors)
	}
	if st.FederationID != "" && st.FederationID != opts.FederationID {
		return fmt.Errorf("the sandbox already forms federation %q: use that ID or 'antreaplus sandbox down' first", st.FederationID)
	}
	var clusters []membership.Cluster
	for _, p := range st.Clusters {
		cfg, err := s.restConfig(p.Name)
		if err != nil {
			return err
		}
		clusters = append(clusters, membership.Cluster{Name: p.Name, Config: cfg})
	}
	supervisors := clusters[:opts.Supervisors]
	if st.AsInstalled {
		// The chart first: the federation's accounts are the chart's.
		for _, p := range st.Clusters {
			_, cloud := st.Cloud.Member(p.Name)
			if err := s.installRelease(ctx, p, installedRoles(st, p.Name, names(supervisors)), cloud); err != nil {
				return err
			}
		}
	}
	s.logf("Forming federation %q with supervisors %v ...", opts.FederationID, names(supervisors))
	if err := membership.Create(ctx, s.opts.Progress, opts.FederationID, supervisors, membership.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the federation: %w", err)
	}
	for _, m := range clusters[opts.Supervisors:] {
		if _, err := membership.Join(ctx, s.opts.Progress, m, "", supervisors, membership.JoinOptions{FederationID: opts.FederationID}); err != nil {
			return fmt.Errorf("joining %s: %w", m.Name, err)
		}
	}
	st.FederationID, st.Supervisors = opts.FederationID, names(supervisors)
	if err := s.saveState(st); err != nil {
		return err
	}
	if st.AsInstalled { // the managers are Pods: RunInstalled plays them
		return nil
	}
	for _, sup := range supervisors {
		args := opts.ManagerArgs
		if opts.ManagerArgsFor != nil {
			args = append(slices.Clip(args), opts.ManagerArgsFor(sup.Name)...)
		}
		if _, err := s.StartManager(sup.Name, opts.ManagerBinary, args...); err != nil {
			return err
		}
	}
	return nil
}

func names(cs []membership.Cluster) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// FindBinary locates one of the project's own executables: next to the
// running program, then on PATH, then built from the repository (into the
// sandbox directory) when the repository is at hand.
func (s *Sandbox) FindBinary(ctx context.Context, name string) (string, error) {
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(exe), name); isExecutable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	repo, err := toolchain.FindRepo()
	if err != nil {
		return "", fmt.Errorf("%s not found next to this program nor on PATH: run 'make build' (%w)", name, err)
	}
	out := filepath.Join(s.opts.Dir, "bin", name)
	s.logf("Building %s ...", name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, SourcePackage(name))
	cmd.Dir = repo
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %w\n%s", name, err, msg)
	}
	return out, nil
}

// SourcePackage is the package a program is built from: the product's programs
// are under cmd/, the development tools the sandbox runs (the cloud
// emulator) under test/infrastructure/cmd/.
func SourcePackage(name string) string {
	if name == "cloud-emulator" {
		return "./test/infrastructure/cmd/" + name
	}
	return "./cmd/" + name
}

func isExecutable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}
