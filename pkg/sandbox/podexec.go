package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// PodExecSpec is what `antreaplus sandbox pod-exec` makes of its process
// before it becomes a Pod's container: the sandbox writes it from the Pod
// (podplan.go) and starts pod-exec in the Pod's network namespace and in a
// mount namespace of its own.
type PodExecSpec struct {
	// Root is the container's root filesystem (a directory of the sandbox):
	// /etc files, mount targets, and the program's path.
	Root string `json:"root"`
	// Mounts are bind mounts into Root, in order: the program, the devices,
	// the volumes.
	Mounts []PodMount `json:"mounts"`
	// ReadOnlyRoot makes Root read-only (readOnlyRootFilesystem); the
	// volumes stay as they are mounted.
	ReadOnlyRoot bool `json:"readOnlyRoot"`
	// Program is the path of the executable inside Root, Args its
	// arguments (Args[0] the program), Env its environment.
	Program string   `json:"program"`
	Args    []string `json:"args"`
	Env     []string `json:"env"`
	// UID, GID and Groups are the user it runs as (runAsUser, runAsGroup,
	// fsGroup and supplementalGroups).
	UID    int   `json:"uid"`
	GID    int   `json:"gid"`
	Groups []int `json:"groups"`
	// NoNewPrivs: allowPrivilegeEscalation false. Every capability is
	// dropped from the bounding set either way (capabilities: drop ALL,
	// which the chart's Pods all say; podplan refuses other sets).
	NoNewPrivs bool `json:"noNewPrivs"`
}

// PodMount is a bind mount of Source (a host path) onto Target (a path
// inside the root filesystem).
type PodMount struct {
	Source   string `json:"source"`
	Target   string `json:"target"`
	ReadOnly bool   `json:"readOnly"`
}

// ReadPodExecSpec reads a spec file.
func ReadPodExecSpec(path string) (*PodExecSpec, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s PodExecSpec
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// ExecPod turns this process into the Pod's container and does not return
// unless that fails. It must run as root in a mount namespace of its own
// (the sandbox starts it under `unshare --mount --propagation private`):
// it bind-mounts Root onto itself, the mounts into it, proc, then changes
// root, drops to the Pod's user without any capability, and executes the
// program.
func ExecPod(s *PodExecSpec) error {
	// Credentials, the bounding set and no_new_privs are set for the
	// thread that executes the program: lock it.
	runtime.LockOSThread()
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	if err := unix.Mount(s.Root, s.Root, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("mounting the root filesystem %s: %w", s.Root, err)
	}
	for _, m := range s.Mounts {
		target := filepath.Join(s.Root, m.Target)
		if err := bindMount(m.Source, target, m.ReadOnly); err != nil {
			return fmt.Errorf("mounting %s on %s: %w", m.Source, m.Target, err)
		}
	}
	if err := unix.Mount("proc", filepath.Join(s.Root, "proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting proc: %w", err)
	}
	if s.ReadOnlyRoot {
		if err := unix.Mount("", s.Root, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
			return fmt.Errorf("making the root filesystem read-only: %w", err)
		}
	}
	if err := unix.Chroot(s.Root); err != nil {
		return fmt.Errorf("changing root to %s: %w", s.Root, err)
	}
	if err := os.Chdir("/"); err != nil {
		return err
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	if s.NoNewPrivs {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("setting no_new_privs: %w", err)
		}
	}
	// Go sets these for every thread of the process; changing to a user
	// other than root clears the permitted and effective capabilities.
	if err := syscall.Setgroups(s.Groups); err != nil {
		return fmt.Errorf("setting groups %v: %w", s.Groups, err)
	}
	if err := syscall.Setgid(s.GID); err != nil {
		return fmt.Errorf("setting gid %d: %w", s.GID, err)
	}
	if err := syscall.Setuid(s.UID); err != nil {
		return fmt.Errorf("setting uid %d: %w", s.UID, err)
	}
	return syscall.Exec(s.Program, s.Args, s.Env)
}

// bindMount bind-mounts source onto target, a file or a directory of the
// root filesystem that the sandbox created, read-only if asked.
func bindMount(source, target string, readOnly bool) error {
	if err := unix.Mount(source, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	if !readOnly {
		return nil
	}
	return unix.Mount("", target, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, "")
}
