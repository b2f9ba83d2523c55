package vmagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// stateVersion is the format of the state file.
const stateVersion = 1

// state is what the agent keeps on disk: the last View it enforced, so that
// it enforces it again at start (after a reboot, or a crash) before the
// control plane answers, and what it did to the VM's DNS, so that it keeps
// answering and can undo it.
type state struct {
	Version int `json:"version"`
	// VirtualMachine is the VM the server said the token stands for.
	VirtualMachine string     `json:"virtualMachine,omitempty"`
	View           *wire.View `json:"view"`
	DNS            *DNSState  `json:"dns,omitempty"`
	// Counted is what rules counted in the tables the agent replaced: the
	// rules in force count the rest, so the file never holds what the
	// kernel still counts.
	Counted []wire.RuleCount `json:"counted,omitempty"`
}

// DNSState is what the agent keeps of the VM's DNS.
type DNSState struct {
	// Member is the member's DNS server the forwarder sends the federation
	// zones to, as the policy distribution server last said.
	Member string `json:"member,omitempty"`
	// ResolvConf is the resolver file the agent points at its forwarder,
	// and Original its content before: its nameservers are the
	// forwarder's upstreams, and --uninstall writes it back.
	ResolvConf string  `json:"resolvConf,omitempty"`
	Original   *string `json:"original,omitempty"`
}

// State is the content of a state file.
type State struct {
	VirtualMachine string
	View           *wire.View
	DNS            *DNSState
	Counted        RuleCounts
}

// LoadState reads the View of a state file. It returns nil, and no error,
// when the file does not exist.
func LoadState(path string) (*wire.View, string, error) {
	st, err := ReadState(path)
	if err != nil {
		return nil, "", err
	}
	return st.View, st.VirtualMachine, nil
}

// ReadState reads a state file; a file that does not exist reads as empty.
// When the View is damaged it returns an error with what else the file
// holds (the VM, DNS).
func ReadState(path string) (State, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("reading the state file: %w", err)
	}
	var st state
	if err := json.Unmarshal(raw, &st); err != nil {
		return State{}, fmt.Errorf("decoding the state file %s: %w", path, err)
	}
	if st.Version != stateVersion {
		return State{}, fmt.Errorf("the state file %s has version %d, not %d", path, st.Version, stateVersion)
	}
	out := State{VirtualMachine: st.VirtualMachine, DNS: st.DNS, Counted: countsOf(st.Counted)}
	if st.View == nil {
		return out, nil
	}
	// Check that the view is whole, as a Sync of it would be.
	full := &wire.Event{Type: wire.EventSync, Scope: st.View.Scope, Epoch: st.View.Epoch, Generation: st.View.Generation}
	for _, name := range st.View.Names() {
		full.Endpoints = append(full.Endpoints, *st.View.Endpoints[name])
	}
	if out.View, err = (*wire.View)(nil).Apply(full); err != nil {
		return out, fmt.Errorf("the state file %s is damaged: %w", path, err)
	}
	return out, nil
}

// SaveState writes a state file atomically: a crash leaves the old file or
// the new one, never a part of either.
func SaveState(path string, st State) error {
	raw, err := json.Marshal(state{Version: stateVersion, VirtualMachine: st.VirtualMachine, View: st.View, DNS: st.DNS,
		Counted: st.Counted.List()})
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the state directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing the state file: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(raw); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("writing the state file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("syncing the state file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replacing the state file: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
