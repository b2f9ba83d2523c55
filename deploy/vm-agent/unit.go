package vmagentpkg

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Unit is what the agent's command line is made of in a unit file.
type Unit struct {
	// Environment holds the Environment= assignments, in order: the
	// defaults of the variables.
	Environment []Assignment
	// EnvironmentFile is the path of the env file (EnvironmentFile=),
	// whose assignments override Environment's.
	EnvironmentFile string
	// ExecStart is the command line, before expansion.
	ExecStart []Word
	// StateDirectory is StateDirectory=, relative to /var/lib.
	StateDirectory string
	// Entries are every key of the file, in order, for checks.
	Entries []Entry
}

// Assignment is one NAME=value.
type Assignment struct{ Name, Value string }

// Entry is one Key=Value of a unit file's section.
type Entry struct {
	Section, Key, Value string
	// Line is the entry's first line (1-based).
	Line int
}

// ParseUnit reads a unit file: its [Service] section must have one
// ExecStart= and one EnvironmentFile=.
func ParseUnit(data []byte) (*Unit, error) {
	entries, err := parseEntries(string(data))
	if err != nil {
		return nil, err
	}
	u := &Unit{Entries: entries}
	execStarts := 0
	for _, e := range entries {
		if e.Section != "Service" {
			continue
		}
		if err := u.set(e, &execStarts); err != nil {
			return nil, fmt.Errorf("line %d: %s=: %w", e.Line, e.Key, err)
		}
	}
	switch {
	case execStarts != 1:
		return nil, fmt.Errorf("want one ExecStart= in [Service], found %d", execStarts)
	case u.EnvironmentFile == "":
		return nil, errors.New("no EnvironmentFile= in [Service]")
	}
	return u, nil
}

// set records one entry of [Service] that the command line depends on.
func (u *Unit) set(e Entry, execStarts *int) error {
	switch e.Key {
	case "Environment":
		if e.Value == "" {
			u.Environment = nil // an empty assignment resets the list
			return nil
		}
		words, err := splitWords(e.Value)
		if err != nil {
			return err
		}
		for _, w := range words {
			name, value, ok := strings.Cut(w, "=")
			if !ok || !validName(name) {
				return fmt.Errorf("%q is not NAME=value", w)
			}
			u.Environment = append(u.Environment, Assignment{name, value})
		}
	case "EnvironmentFile":
		if u.EnvironmentFile != "" || !path.IsAbs(e.Value) {
			return errors.New("want one absolute path, without the optional - prefix")
		}
		u.EnvironmentFile = e.Value
	case "ExecStart":
		*execStarts++
		words, err := parseCommand(e.Value)
		if err != nil {
			return err
		}
		u.ExecStart = words
	case "StateDirectory":
		if e.Value == "" || path.IsAbs(e.Value) || path.Clean(e.Value) != e.Value || strings.HasPrefix(e.Value, "..") || strings.ContainsAny(e.Value, " \t") {
			return errors.New("want one relative directory")
		}
		u.StateDirectory = e.Value
	}
	return nil
}

// Env is the environment the unit's command runs with: its Environment=,
// then the env file's assignments over them.
func (u *Unit) Env(file []Assignment) map[string]string {
	env := map[string]string{}
	for _, list := range [][]Assignment{u.Environment, file} {
		for _, a := range list {
			env[a.Name] = a.Value
		}
	}
	return env
}

// Command is the unit's command line with env: ${NAME} is NAME's value,
// one word even when empty or with spaces; $NAME, a word of its own, is
// its value split at whitespace, no word when empty. An unset variable is
// empty.
func (u *Unit) Command(env map[string]string) []string {
	var argv []string
	for _, w := range u.ExecStart {
		argv = append(argv, w.expand(env)...)
	}
	return argv
}

// Value is the value of key in section; "" when it has none.
func (u *Unit) Value(section, key string) string {
	for _, e := range u.Entries {
		if e.Section == section && e.Key == key {
			return e.Value
		}
	}
	return ""
}

// parseEntries reads the sections and keys of a unit file: comments (#, ;),
// [Section] lines, Key=Value lines, a trailing backslash continuing a line
// (joined with a space, as systemd does).
func parseEntries(text string) ([]Entry, error) {
	var entries []Entry
	section := ""
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line, first := strings.TrimSpace(lines[i]), i+1
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasPrefix(line, "[") {
			if !strings.HasSuffix(line, "]") {
				return nil, fmt.Errorf("line %d: %q is not a [Section]", first, line)
			}
			section = line[1 : len(line)-1]
			continue
		}
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			i++
			next := strings.TrimSpace(lines[i])
			if next != "" && (next[0] == '#' || next[0] == ';') {
				continue // a comment inside a continued line is skipped
			}
			line = strings.TrimSuffix(line, `\`) + " " + next
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok || section == "" {
			return nil, fmt.Errorf("line %d: %q is not a Key=Value of a section", first, line)
		}
		entries = append(entries, Entry{Section: section, Key: strings.TrimSpace(key), Value: strings.TrimSpace(value), Line: first})
	}
	return entries, nil
}

// validName tells whether s is a variable name: letters, digits and _,
// not starting with a digit.
func validName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
