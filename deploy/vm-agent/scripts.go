package vmagentpkg

import (
	"fmt"
	"regexp"
	"strings"
)

var placeholder = regexp.MustCompile(`@[A-Z_]+@`)

// RenderScript writes the @NAME@ placeholders of a maintainer script from
// the unit, in POSIX sh:
//
//   - @DEFAULTS@: the unit's Environment= as assignments;
//   - @ENVIRONMENT@: the same, then the env file read with ".", when it exists;
//   - @UNINSTALL@: the unit's ExecStart with --uninstall;
//   - @STATE_DIRECTORY@: /var/lib/ and the unit's StateDirectory=, quoted.
//
// The lines of a placeholder's value keep the indentation of its line.
// An unknown placeholder, or one the unit has no value for, is an error.
func RenderScript(tmpl string, u *Unit) ([]byte, error) {
	values := map[string][]string{
		"@DEFAULTS@":    u.shellDefaults(),
		"@ENVIRONMENT@": append(u.shellDefaults(), "if [ -r "+shellQuote(u.EnvironmentFile)+" ]; then . "+shellQuote(u.EnvironmentFile)+"; fi"),
		"@UNINSTALL@":   {u.ShellCommand("--uninstall")},
	}
	if u.StateDirectory != "" {
		values["@STATE_DIRECTORY@"] = []string{shellQuote("/var/lib/" + u.StateDirectory)}
	}
	lines := strings.Split(tmpl, "\n")
	for i, line := range lines {
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		var err error
		lines[i] = placeholder.ReplaceAllStringFunc(line, func(p string) string {
			v, ok := values[p]
			if !ok {
				err = fmt.Errorf("line %d: the unit gives %s no value", i+1, p)
			}
			return strings.Join(v, "\n"+indent)
		})
		if err != nil {
			return nil, err
		}
	}
	return []byte(strings.Join(lines, "\n")), nil
}

// ShellCommand is the unit's ExecStart, and extra arguments, as a POSIX sh
// command line meaning the same with the unit's variables set (and set -f).
func (u *Unit) ShellCommand(extra ...string) string {
	words := make([]string, 0, len(u.ExecStart)+len(extra))
	for _, w := range u.ExecStart {
		words = append(words, w.shell())
	}
	for _, e := range extra {
		words = append(words, shellQuote(e))
	}
	return strings.Join(words, " ")
}

// shellDefaults are the unit's Environment= as sh assignments.
func (u *Unit) shellDefaults() []string {
	out := make([]string, 0, len(u.Environment))
	for _, a := range u.Environment {
		out = append(out, a.Name+"="+shellQuote(a.Value))
	}
	return out
}

// shellQuote is s in single quotes for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
