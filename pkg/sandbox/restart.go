package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// restartable are the components started again alone when they exit while
// their API server lives. A controller manager exits at start when the API
// server it won its Lease from is not healthy 10 s later (kube-controller-
// manager waits that long, fixed, for /healthz): on two cores where several
// API servers start at once, their RBAC bootstrap took longer, and the
// cluster came up without one (no ServiceAccounts, token Secrets or
// Namespace deletion). Restarting the whole cluster would start that API
// server again, and its bootstrap with it.
var restartable = []string{"kube-controller-manager", "kube-scheduler", "kwok-controller"}

func allRestartable(components []string) bool {
	for _, c := range components {
		if !slices.Contains(restartable, c) {
			return false
		}
	}
	return true
}

// kwokComponent is what kwokctl records of a component (the cluster's
// kwok.yaml) that starts it: the same binary, arguments, directory and
// environment.
type kwokComponent struct {
	Name    string   `json:"name"`
	Binary  string   `json:"binary"`
	Args    []string `json:"args"`
	WorkDir string   `json:"workDir"`
	Envs    []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"envs"`
}

// recordedComponent reads one component's record from the cluster's kwok.yaml.
func (s *Sandbox) recordedComponent(cluster, component string) (kwokComponent, error) {
	path := filepath.Join(s.ClusterDir(cluster), "kwok.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		return kwokComponent{}, err
	}
	return parseRecordedComponent(raw, component)
}

// parseRecordedComponent finds a component in kwokctl's configuration: the
// KwokctlConfiguration document of a multi-document file.
func parseRecordedComponent(raw []byte, component string) (kwokComponent, error) {
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		var cfg struct {
			Kind       string          `json:"kind"`
			Components []kwokComponent `json:"components"`
		}
		if err := yaml.Unmarshal([]byte(doc), &cfg); err != nil {
			return kwokComponent{}, fmt.Errorf("reading kwokctl's configuration: %w", err)
		}
		if cfg.Kind != "KwokctlConfiguration" {
			continue
		}
		for _, c := range cfg.Components {
			if c.Name == component {
				if c.Binary == "" {
					return kwokComponent{}, fmt.Errorf("kwokctl's configuration gives %s no binary", component)
				}
				return c, nil
			}
		}
	}
	return kwokComponent{}, fmt.Errorf("kwokctl's configuration has no component %s", component)
}

// restartExited starts again, alone, each restartable component of the
// cluster that exited, once its API server is ready (started earlier, it
// would exit again). Before a controller manager or scheduler starts, the
// Lease of the one that exited is deleted: it is the only one, and the new
// one would otherwise wait for that Lease to expire (60 s); before a kwok
// controller starts, its nodes' Leases are. It returns the components
// started.
func (s *Sandbox) restartExited(ctx context.Context, cluster string, cs kubernetes.Interface) ([]string, error) {
	var dead []string
	for _, c := range s.deadComponents(cluster) {
		if slices.Contains(restartable, c) {
			dead = append(dead, c)
		}
	}
	if len(dead) == 0 || !s.answers(ctx, cluster) {
		return nil, nil
	}
	for _, c := range dead {
		if c == "kwok-controller" {
			// The nodes' Leases are held by the kwok controller that
			// exited, for 200 s: the new one would play no node and no Pod
			// until they expire.
			err := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
			if err != nil {
				return nil, fmt.Errorf("deleting the node Leases of the kwok controller that exited: %w", err)
			}
		} else {
			err := cs.CoordinationV1().Leases(metav1.NamespaceSystem).Delete(ctx, c, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("deleting the Lease of the %s that exited: %w", c, err)
			}
		}
		if err := s.startComponent(cluster, c); err != nil {
			return nil, err
		}
	}
	return dead, nil
}

// startComponent starts a component as kwokctl did: in a session of its own,
// its output appended to its log, its pid in its pid file.
func (s *Sandbox) startComponent(cluster, component string) error {
	c, err := s.recordedComponent(cluster, component)
	if err != nil {
		return fmt.Errorf("%s: %w", cluster, err)
	}
	log, err := os.OpenFile(filepath.Join(s.LogDir(cluster), component+".log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", cluster, err)
	}
	defer func() { _ = log.Close() }()
	cmd := exec.Command(c.Binary, c.Args...)
	cmd.Dir = c.WorkDir
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = os.Environ()
	for _, e := range c.Envs {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: starting %s: %w", cluster, component, err)
	}
	pidFile := filepath.Join(s.ClusterDir(cluster), "pids", component+".pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		_ = cmd.Process.Kill()
		return fmt.Errorf("%s: recording the pid of %s: %w", cluster, component, err)
	}
	// Reaped when it exits, so that it is not taken for alive as a zombie
	// while this process runs.
	go func() { _ = cmd.Wait() }()
	return nil
}
