package framework

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// LogTailsOnFailure registers a cleanup that, when t has failed, logs the
// last n lines of each named file (a program's log the sandbox keeps and
// deletes with it) that contain none of drop: what the programs did when the
// test gave up, in the test's own output (CI keeps nothing else).
func LogTailsOnFailure(t testing.TB, files map[string]string, n int, drop ...string) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for name, path := range files {
			lines, err := tail(path, n, drop)
			if err != nil {
				t.Logf("%s: %v", name, err)
				continue
			}
			t.Logf("the last %d lines of %s (%s):\n%s", len(lines), name, path, strings.Join(lines, "\n"))
		}
	})
}

// tail is the last n lines of the file that contain none of drop.
func tail(path string, n int, drop []string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var ring []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
scan:
	for sc.Scan() {
		line := sc.Text()
		for _, d := range drop {
			if strings.Contains(line, d) {
				continue scan
			}
		}
		ring = append(ring, line)
		if len(ring) > n {
			ring = ring[1:]
		}
	}
	return ring, sc.Err()
}
