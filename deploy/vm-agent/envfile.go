package vmagentpkg

import (
	"fmt"
	"strings"
)

// Env file values mean the same to systemd and to sh when they are plain
// (these bytes only), or quoted without these.
const (
	plainValueChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+,=-"
	unquotable      = "\"'\\$`\n"
)

// ParseEnvFile reads an env file: NAME=value lines, blank lines and #
// comments. A value is plain (letters, digits and _./:@%+,=-), or in
// double or single quotes without quotes, backslashes, $ or backquotes.
// Anything else is refused, naming its line.
func ParseEnvFile(data []byte) ([]Assignment, error) {
	var out []Assignment
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		a, err := parseAssignment(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		out = append(out, a)
	}
	return out, nil
}

func parseAssignment(line string) (Assignment, error) {
	name, value, ok := strings.Cut(line, "=")
	if !ok || !validName(name) {
		return Assignment{}, fmt.Errorf("%q: want NAME=value at the start of the line", line)
	}
	if n := len(value); n >= 2 && (value[0] == '"' || value[0] == '\'') && value[n-1] == value[0] {
		value = value[1 : n-1]
		if strings.ContainsAny(value, unquotable) {
			return Assignment{}, fmt.Errorf("%s: a quoted value holds no quotes, backslashes, $ or backquotes", name)
		}
		return Assignment{name, value}, nil
	}
	if strings.Trim(value, plainValueChars) != "" {
		return Assignment{}, fmt.Errorf("%s: quote the value (\"...\"): it holds more than letters, digits and _./:@%%+,=-", name)
	}
	return Assignment{name, value}, nil
}

// SetEnvFile is the env file data with values set: each variable's
// assignment replaced, else its commented-out #NAME= line, else appended;
// comments and other lines kept.
func SetEnvFile(data []byte, values []Assignment) ([]byte, error) {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, a := range values {
		line, err := formatAssignment(a)
		if err != nil {
			return nil, err
		}
		if i := assignmentLine(lines, a.Name); i >= 0 {
			lines[i] = line
		} else {
			lines = append(lines, line)
		}
	}
	out := []byte(strings.Join(lines, "\n") + "\n")
	if _, err := ParseEnvFile(out); err != nil {
		return nil, err
	}
	return out, nil
}

// assignmentLine is the index of the line assigning name, else of the
// first commented-out assignment of it, else -1.
func assignmentLine(lines []string, name string) int {
	commented := -1
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, name+"="):
			return i
		case commented < 0 && strings.HasPrefix(l, "#"+name+"="):
			commented = i
		}
	}
	return commented
}

// formatAssignment writes NAME=value, the value quoted when it is not plain.
func formatAssignment(a Assignment) (string, error) {
	switch {
	case !validName(a.Name):
		return "", fmt.Errorf("%q is not a variable name", a.Name)
	case strings.ContainsAny(a.Value, unquotable):
		return "", fmt.Errorf("%s: an env file value holds no quotes, backslashes, $, backquotes or newlines", a.Name)
	case strings.Trim(a.Value, plainValueChars) == "":
		return a.Name + "=" + a.Value, nil
	default:
		return a.Name + `="` + a.Value + `"`, nil
	}
}
