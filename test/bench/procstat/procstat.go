// Package procstat reads a process's memory and CPU time from /proc, for
// the benchmark programs under test/bench.
package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat (100 on Linux).
const clockTicks = 100

// RSSMiB is the resident memory of a process in MiB (0 when it is gone).
func RSSMiB(pid int) float64 { return statusMiB(pid, "VmRSS:") }

// AnonRSSMiB is the part of the resident memory that is the process's own
// (heap, stacks): RSS without the pages of files it maps, its program's
// text first, which every process of the same program shares and which
// does not grow with what the process holds.
func AnonRSSMiB(pid int) float64 { return statusMiB(pid, "RssAnon:") }

func statusMiB(pid int, field string) float64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// CPUSeconds is the user plus system CPU time a process has used.
func CPUSeconds(pid int) (float64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(raw)
	// Fields after the parenthesised command: state is field 3, utime 14, stime 15.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / clockTicks, nil
}

// PidFromFile reads a pid file.
func PidFromFile(path string) int {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	return pid
}

// TCPConnections counts the established TCP connections (IPv4 and IPv6) a
// process holds: its socket descriptors found in the host's TCP tables.
func TCPConnections(pid int) (int, error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0, err
	}
	sockets := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(target, "socket:[") {
			sockets[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
		}
	}
	n := 0
	for _, table := range []string{"tcp", "tcp6"} {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(raw), "\n")[1:] {
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
			if f := strings.Fields(line); len(f) >= 10 && f[3] == "01" && sockets[f[9]] {
				n++
			}
		}
	}
	return n, nil
}
