package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// fakeGit answers the git commands metadata runs.
func fakeGit(answers map[string]string) func(args ...string) (string, error) {
	return func(args ...string) (string, error) {
		if a, ok := answers[strings.Join(args, " ")]; ok {
			return a, nil
		}
		return "", errors.New("not a git repository")
	}
}

func TestMetadata(t *testing.T) {
	git := fakeGit(map[string]string{
		"describe --tags --always --dirty": "v0.3.0-2-gabc1234-dirty",
		"rev-parse HEAD":                   "abc1234abc1234abc1234abc1234abc1234abc12",
		"log -1 --format=%ct":              "1700000000",
	})
	for _, tc := range []struct {
		name                             string
		o                                options
		git                              func(args ...string) (string, error)
		wantVersion, wantRevision, wantT string
		wantErr                          string
	}{{
		name: "from git", o: options{registry: "r.test/x/"}, git: git,
		wantVersion: "v0.3.0-2-gabc1234-dirty", wantRevision: "abc1234abc1234abc1234abc1234abc1234abc12", wantT: "2023-11-14T22:13:20Z",
	}, {
		name: "given", o: options{version: "v1.0.0", revision: "r", epoch: "0"}, git: fakeGit(nil),
		wantVersion: "v1.0.0", wantRevision: "r", wantT: "1970-01-01T00:00:00Z",
	}, {
		name: "no git", o: options{version: "v1.0.0", revision: "r"}, git: fakeGit(nil),
		wantErr: "not a git repository",
	}, {
		name: "not a tag", o: options{version: "v1.0.0+build", revision: "r", epoch: "0"}, git: fakeGit(nil),
		wantErr: "not a valid image tag",
	}, {
		name: "epoch not a number", o: options{version: "v1", revision: "r", epoch: "yesterday"}, git: fakeGit(nil),
		wantErr: "not a number of seconds",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := metadata(tc.o, tc.git)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Version != tc.wantVersion || m.Revision != tc.wantRevision || m.Created.Format(time.RFC3339) != tc.wantT {
				t.Errorf("got %s %s %s", m.Version, m.Revision, m.Created.Format(time.RFC3339))
			}
		})
	}
}

func TestValidTag(t *testing.T) {
	for tag, want := range map[string]bool{
		"v0.1.0": true, "1bb44ea-dirty": true, "v0.3.0-2-gabc1234": true, "latest_1": true,
		"": false, "-x": false, ".x": false, "v1+meta": false, "a/b": false, strings.Repeat("a", 129): false,
	} {
		if got := validTag(tag); got != want {
			t.Errorf("validTag(%q) = %v, want %v", tag, got, want)
		}
	}
}

func TestParsePlatforms(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []v1.Platform
		wantErr bool
	}{
		{in: "linux/amd64, linux/arm64", want: []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}},
		{in: "windows/amd64", wantErr: true},
		{in: "", wantErr: true},
	} {
		got, err := parsePlatforms(tc.in)
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parsePlatforms(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestBuildCommand(t *testing.T) {
	args, env := buildCommand("/b/linux_arm64", []string{"coredns", "member-controller"}, v1.Platform{OS: "linux", Architecture: "arm64"}, "v1.2.3")
	wantArgs := []string{"build", "-trimpath", "-buildvcs=false", "-ldflags", "-s -w -X main.version=v1.2.3",
		"-o", "/b/linux_arm64/", "./cmd/coredns", "./cmd/member-controller"}
	wantEnv := []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64", "GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS="}
	if !reflect.DeepEqual(args, wantArgs) || !reflect.DeepEqual(env, wantEnv) {
		t.Errorf("go %v with %v,\nwant go %v with %v", args, env, wantArgs, wantEnv)
	}
}
