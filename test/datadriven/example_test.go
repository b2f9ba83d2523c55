package datadriven_test

import (
	"strings"
	"testing"

	"antreaplus.io/antreaplus/test/datadriven"
)

// A data-driven test: every testdata/*.txt file is a subtest, whose cases
// run in order against state made anew per file (here a list of words that
// the command "add" extends and "list" prints). Regenerate the expected
// outputs with: go test ./pkg/x/ -run TestDataDriven -rewrite
func Example() {
	testDataDriven := func(t *testing.T) { //nolint:thelper // the body of a TestDataDriven function, not a helper
		datadriven.Walk(t, "testdata", func(t *testing.T, file string) {
			t.Helper()
			var words []string // the state of one file
			datadriven.RunTest(t, file, func(t *testing.T, d *datadriven.TestData) []string {
				t.Helper()
				switch d.Cmd {
				case "add":
					words = append(words, d.CmdArgs...)
					return []string{"ok"}
				case "list":
					return []string{strings.Join(words, " ")}
				}
				t.Fatalf("unknown command %q", d.Command)
				return nil
			})
		})
	}
	_ = testDataDriven
}
