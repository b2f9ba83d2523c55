package vmagentpkg

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Word is one word of ExecStart= before expansion: $NAME alone (Split),
// or literal text and ${NAME} references (Parts).
type Word struct {
	// Split is the variable of a word that is $NAME alone: its value split
	// at whitespace, zero or more words.
	Split string
	// Parts are the word's text and references, otherwise.
	Parts []Part
}

// Part is literal Text, or a reference to the variable Var (${Var}).
type Part struct{ Text, Var string }

// expand is the word's arguments with env.
func (w Word) expand(env map[string]string) []string {
	if w.Split != "" {
		return strings.Fields(env[w.Split])
	}
	var b strings.Builder
	for _, p := range w.Parts {
		if p.Var != "" {
			b.WriteString(env[p.Var])
		} else {
			b.WriteString(p.Text)
		}
	}
	return []string{b.String()}
}

// shell is the word in POSIX sh, with the same expansion: a $NAME word
// unquoted (run with set -f), any other in double quotes.
func (w Word) shell() string {
	if w.Split != "" {
		return "$" + w.Split
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, p := range w.Parts {
		if p.Var != "" {
			b.WriteString("${" + p.Var + "}")
			continue
		}
		for _, c := range p.Text {
			if strings.ContainsRune("\\\"$`", c) {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// parseCommand reads ExecStart='s value: an absolute program, without
// systemd's prefixes (@-:+!), and its arguments.
func parseCommand(s string) ([]Word, error) {
	raw, err := splitWords(s)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 || !path.IsAbs(raw[0]) {
		return nil, errors.New("want an absolute program path first (no prefixes)")
	}
	words := make([]Word, 0, len(raw))
	for _, r := range raw {
		w, err := parseWord(r)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", r, err)
		}
		words = append(words, w)
	}
	return words, nil
}

// parseWord finds the references of an unquoted word: $NAME alone,
// ${NAME}, and $$ (a $).
func parseWord(s string) (Word, error) {
	if strings.HasPrefix(s, "$") && validName(s[1:]) {
		return Word{Split: s[1:]}, nil
	}
	var w Word
	text := ""
	for len(s) > 0 {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			text, s = text+s, ""
			break
		}
		text, s = text+s[:i], s[i:]
		switch {
		case strings.HasPrefix(s, "$$"):
			text, s = text+"$", s[2:]
		case strings.HasPrefix(s, "${"):
			end := strings.IndexByte(s, '}')
			if end < 0 || !validName(s[2:end]) {
				return Word{}, errors.New("want ${NAME}")
			}
			if text != "" {
				w.Parts = append(w.Parts, Part{Text: text})
				text = ""
			}
			w.Parts = append(w.Parts, Part{Var: s[2:end]})
			s = s[end+1:]
		default:
			return Word{}, errors.New("a $ that is not ${NAME}, $$, or $NAME as a word of its own")
		}
	}
	if text != "" || len(w.Parts) == 0 {
		w.Parts = append(w.Parts, Part{Text: text})
	}
	return w, nil
}

// splitWords splits a unit file value into words as systemd does: at
// whitespace outside quotes, "..." and '...' quote, a backslash escapes
// \ " ' or a space outside '...', %% is %. Other escapes and specifiers
// are refused.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t'):
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
			continue
		case c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case c == '\\':
			if quote == '\'' || i+1 >= len(rs) || !strings.ContainsRune(`\"' `, rs[i+1]) {
				return nil, errors.New(`a backslash escapes only \, ", ' or a space here`)
			}
			i++
			cur.WriteRune(rs[i])
		case c == '%':
			if i+1 >= len(rs) || rs[i+1] != '%' {
				return nil, errors.New("specifiers (%x) are not supported; write %% for %")
			}
			i++
			cur.WriteRune('%')
		default:
			cur.WriteRune(c)
		}
		inWord = true
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// vars are the variables the word refers to.
func (w Word) vars() []string {
	if w.Split != "" {
		return []string{w.Split}
	}
	var out []string
	for _, p := range w.Parts {
		if p.Var != "" {
			out = append(out, p.Var)
		}
	}
	return out
}
