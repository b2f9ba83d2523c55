package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"antreaplus.io/antreaplus/hack/internal/gitmeta"
)

// commitVersion is the package version (version when given, else from
// git describe) and the time every file gets: SOURCE_DATE_EPOCH when set,
// else the commit's.
func commitVersion(ctx context.Context, repo, version string) (string, time.Time, error) {
	git := func(args ...string) (string, error) { return gitmeta.Git(ctx, repo, args...) }
	mtime, err := gitmeta.CommitTime(os.Getenv("SOURCE_DATE_EPOCH"), git)
	if err != nil {
		return "", time.Time{}, err
	}
	if version == "" {
		describe, err := git("describe", "--tags", "--long", "--always", "--dirty", "--match", "v[0-9]*")
		if err != nil {
			return "", time.Time{}, err
		}
		version, err = packageVersion(describe, mtime)
		if err != nil {
			return "", time.Time{}, err
		}
	}
	if !debianVersion.MatchString(version) {
		return "", time.Time{}, fmt.Errorf("version %q: a Debian version starts with a digit and holds letters, digits and .+~ only", version)
	}
	return version, mtime, nil
}

var (
	debianVersion = regexp.MustCompile(`^[0-9][A-Za-z0-9.+~]*$`)
	// describeTag is git describe --long of a tagged history:
	// v<version>-<commits since>-g<hash>.
	describeTag = regexp.MustCompile(`^v([0-9][0-9A-Za-z.]*)(?:-([0-9A-Za-z.]+))?-([0-9]+)-g([0-9a-f]+)$`)
	describeSHA = regexp.MustCompile(`^[0-9a-f]+$`)
)

// packageVersion is the Debian version of a commit from its git describe
// (--tags --long --always --dirty):
//
//	v1.2.3-0-gabc1234            1.2.3
//	v1.2.3-rc.1-0-gabc1234       1.2.3~rc.1 (before 1.2.3)
//	v1.2.3-4-gabc1234            1.2.3+git4.abc1234 (after 1.2.3)
//	abc1234 (no tag)             0.0.0~git20260102150405.abc1234 (the commit's time)
//	...-dirty                    ...+dirty (or .dirty after a +)
func packageVersion(describe string, commitTime time.Time) (string, error) {
	describe, dirty := strings.CutSuffix(describe, "-dirty")
	var v string
	switch m := describeTag.FindStringSubmatch(describe); {
	case m != nil:
		v = m[1]
		if m[2] != "" {
			v += "~" + m[2]
		}
		if m[3] != "0" {
			v += "+git" + m[3] + "." + m[4]
		}
	case describeSHA.MatchString(describe):
		v = "0.0.0~git" + commitTime.UTC().Format("20060102150405") + "." + describe
	default:
		return "", fmt.Errorf("git describe %q: want v<version>[-<pre-release>]-<n>-g<hash> or a hash", describe)
	}
	if dirty {
		if strings.Contains(v, "+") {
			v += ".dirty"
		} else {
			v += "+dirty"
		}
	}
	return v, nil
}
