package main

import (
	"testing"
	"time"
)

func TestPackageVersion(t *testing.T) {
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	for _, tc := range []struct{ describe, want, err string }{
		{describe: "v1.2.3-0-gabc1234", want: "1.2.3"},
		{describe: "v1.2.3-rc.1-0-gabc1234", want: "1.2.3~rc.1"},
		{describe: "v1.2.3-4-gabc1234", want: "1.2.3+git4.abc1234"},
		{describe: "v1.2.3-rc.1-4-gabc1234-dirty", want: "1.2.3~rc.1+git4.abc1234.dirty"},
		{describe: "v1.2.3-0-gabc1234-dirty", want: "1.2.3+dirty"},
		{describe: "abc1234", want: "0.0.0~git20260102150405.abc1234"},
		{describe: "abc1234-dirty", want: "0.0.0~git20260102150405.abc1234+dirty"},
		{describe: "release-1", err: "want v<version>"},
		{describe: "v1.2.3_x-0-gabc", err: "want v<version>"},
	} {
		got, err := packageVersion(tc.describe, at)
		if got != tc.want || (err != nil) != (tc.err != "") {
			t.Errorf("packageVersion(%q) = %q, %v; want %q, error %q", tc.describe, got, err, tc.want, tc.err)
		}
		if err == nil && !debianVersion.MatchString(got) {
			t.Errorf("packageVersion(%q) = %q: not a Debian version", tc.describe, got)
		}
	}
}
