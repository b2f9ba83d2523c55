// Package gitmeta is what the build tools (hack/images, hack/packages) read
// of the commit they build: git's answers and the time every file and image
// gets, so that the same commit gives the same bytes.
package gitmeta

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Git runs git with args in dir ("" for the current directory) and returns
// its output, trimmed.
func Git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s (outside a git checkout, give the version and the source date epoch): %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// CommitTime is epoch (seconds since 1970, as SOURCE_DATE_EPOCH) when set,
// else the time of HEAD's commit as git tells it.
func CommitTime(epoch string, git func(args ...string) (string, error)) (time.Time, error) {
	if epoch == "" {
		var err error
		if epoch, err = git("log", "-1", "--format=%ct"); err != nil {
			return time.Time{}, err
		}
	}
	secs, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("the source date epoch %q is not a number of seconds: %w", epoch, err)
	}
	return time.Unix(secs, 0).UTC(), nil
}
