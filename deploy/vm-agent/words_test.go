package vmagentpkg

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "", want: nil},
		{in: "  a\tb  c ", want: []string{"a", "b", "c"}},
		{in: `"a b" 'c d'`, want: []string{"a b", "c d"}},
		{in: `--x="a b"c`, want: []string{"--x=a bc"}},
		{in: `"" b`, want: []string{"", "b"}},
		{in: `a\ b \\ \" \'`, want: []string{"a b", `\`, `"`, `'`}},
		{in: `"a \" b"`, want: []string{`a " b`}},
		{in: "100%% %%i", want: []string{"100%", "%i"}},
		{in: "%i", err: "specifiers"},
		{in: `a\n`, err: "backslash"},
		{in: `'a\ b'`, err: "backslash"},
		{in: `"a b`, err: "unterminated"},
	} {
		got, err := splitWords(tc.in)
		if !errorIs(err, tc.err) || !slices.Equal(got, tc.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q, error with %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestCommand(t *testing.T) {
	env := map[string]string{"A": "x", "SPACED": "  p  q ", "EMPTY": ""}
	for _, tc := range []struct {
		exec string
		want []string
		err  string
	}{
		{exec: "/bin/a --a=${A} ${A}${A}", want: []string{"/bin/a", "--a=x", "xx"}},
		{exec: "/bin/a ${SPACED} --s=${SPACED}", want: []string{"/bin/a", "  p  q ", "--s=  p  q "}},
		{exec: "/bin/a $SPACED $EMPTY $UNSET z", want: []string{"/bin/a", "p", "q", "z"}},
		{exec: "/bin/a ${EMPTY} --u=${UNSET}", want: []string{"/bin/a", "", "--u="}},
		{exec: `/bin/a "$A" "${A} y"`, want: []string{"/bin/a", "x", "x y"}},
		{exec: "/bin/a $$A a$$ $${A}", want: []string{"/bin/a", "$A", "a$", "${A}"}},
		{exec: "/bin/a x$A", err: "not ${NAME}"},
		{exec: "/bin/a ${A", err: "want ${NAME}"},
		{exec: "/bin/a ${1A}", err: "want ${NAME}"},
		{exec: "-/bin/a", err: "absolute"},
		{exec: "a", err: "absolute"},
		{exec: "", err: "absolute"},
	} {
		words, err := parseCommand(tc.exec)
		if !errorIs(err, tc.err) {
			t.Errorf("parseCommand(%q): error %v, want one with %q", tc.exec, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		if got := (&Unit{ExecStart: words}).Command(env); !slices.Equal(got, tc.want) {
			t.Errorf("%q with %v = %q, want %q", tc.exec, env, got, tc.want)
		}
	}
}

// errorIs tells whether err is nil when want is "", else holds want.
func errorIs(err error, want string) bool {
	if want == "" {
		return err == nil
	}
	return err != nil && strings.Contains(err.Error(), want)
}
