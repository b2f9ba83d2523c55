package vmagentpkg

import (
	"reflect"
	"testing"
)

func TestParseEnvFile(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []Assignment
		err        string
	}{
		{name: "comments, blanks, plain and quoted values",
			text: "# c\n\n  \nA=https://h:8443/x\nB=\nC=\"--v=2 --x=a,b\"\nD='  s  '\n#E=commented\n",
			want: []Assignment{{"A", "https://h:8443/x"}, {"B", ""}, {"C", "--v=2 --x=a,b"}, {"D", "  s  "}}},
		{name: "a space, unquoted", text: "A=a b\n", err: "line 1: A: quote"},
		{name: "a trailing space", text: "A=a \n", err: "quote"},
		{name: "a $, unquoted", text: "A=$B\n", err: "quote"},
		{name: "a $, quoted", text: "A=\"$B\"\n", err: "no quotes, backslashes, $"},
		{name: "a quote inside", text: "A=\"a'b\"\n", err: "no quotes"},
		{name: "a tilde", text: "A=~/x\n", err: "quote"},
		{name: "an unterminated quote", text: "A=\"x\n", err: "quote"},
		{name: "spaces around =", text: "A = b\n", err: "NAME=value"},
		{name: "an export", text: "export A=b\n", err: "NAME=value"},
		{name: "a ; comment", text: "; c\n", err: "line 1"},
	} {
		got, err := ParseEnvFile([]byte(tc.text))
		if !errorIs(err, tc.err) || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v, error with %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

func TestSetEnvFile(t *testing.T) {
	in := "# head\nA=1\n#B=2\n# B again\n#B=3\n"
	for _, tc := range []struct {
		name   string
		values []Assignment
		want   string
		err    string
	}{
		{name: "replaced, uncommented, appended", values: []Assignment{{"A", "x"}, {"B", "a b"}, {"C", ""}},
			want: "# head\nA=x\nB=\"a b\"\n# B again\n#B=3\nC=\n"},
		{name: "nothing", want: in},
		{name: "a value sh would expand", values: []Assignment{{"A", "$HOME"}}, err: "no quotes, backslashes, $"},
		{name: "a bad name", values: []Assignment{{"A-B", "x"}}, err: "not a variable name"},
	} {
		got, err := SetEnvFile([]byte(in), tc.values)
		if !errorIs(err, tc.err) || string(got) != tc.want {
			t.Errorf("%s: %q, %v; want %q, error with %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

// FuzzEnvFileRoundTrip: a value SetEnvFile writes reads back the same.
func FuzzEnvFileRoundTrip(f *testing.F) {
	for _, v := range []string{"", "https://h:8443", "a b", " --v=2 ", "x'y", "%=@,+:./-_"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, value string) {
		data, err := SetEnvFile(EnvFile(), []Assignment{{"ANTREAPLUS_EXTRA_ARGS", value}})
		if err != nil {
			return // a value the format cannot hold, refused
		}
		file, err := ParseEnvFile(data)
		if err != nil {
			t.Fatalf("%q: SetEnvFile wrote what ParseEnvFile refuses: %v", value, err)
		}
		if got := (&Unit{}).Env(file)["ANTREAPLUS_EXTRA_ARGS"]; got != value {
			t.Fatalf("%q reads back as %q", value, got)
		}
	})
}
