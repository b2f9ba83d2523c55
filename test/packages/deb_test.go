package packages

import (
	"bytes"
	"debug/elf"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	vmagentpkg "antreaplus.io/antreaplus/deploy/vm-agent"
)

// checkControl reads the .deb's control fields and members with dpkg-deb
// --info. The package depends on nothing: the agent is static and
// programs nftables through netlink, so the nft program is only suggested.
func checkControl(t *testing.T, deb, arch, version string) {
	t.Helper()
	fields := map[string]string{}
	for _, f := range []string{"Package", "Version", "Architecture", "Maintainer", "Description", "Section", "Priority", "Depends", "Pre-Depends", "Suggests"} {
		fields[f] = strings.TrimSpace(run(t, "dpkg-deb", "--field", deb, f))
	}
	want := map[string]string{"Package": vmagentpkg.Name, "Version": version, "Architecture": arch, "Section": "net",
		"Priority": "optional", "Depends": "", "Pre-Depends": "", "Suggests": "nftables"}
	for f, w := range want {
		if fields[f] != w {
			t.Errorf("%s: %q, want %q", f, fields[f], w)
		}
	}
	if !regexp.MustCompile(`^[^<>]+ <[^@<>]+@[^@<>]+>$`).MatchString(fields["Maintainer"]) {
		t.Errorf("Maintainer %q: want Name <address>", fields["Maintainer"])
	}
	if summary, long, _ := strings.Cut(fields["Description"], "\n"); summary == "" || long == "" {
		t.Errorf("Description %q: want a summary and a long description", fields["Description"])
	}
	info := run(t, "dpkg-deb", "--info", deb)
	for _, member := range []string{"control", "md5sums", "conffiles", "postinst", "prerm", "postrm"} {
		if !regexp.MustCompile(`(?m)^\s+\d+ bytes,\s+\d+ lines\s+\*?\s+` + member + `\s`).MatchString(info) {
			t.Errorf("dpkg-deb --info lists no control member %s:\n%s", member, info)
		}
	}
	if got, want := run(t, "dpkg-deb", "--info", deb, "conffiles"), envPath(t)+"\n"; got != want {
		t.Errorf("conffiles %q, want %q", got, want)
	}
}

// checkContents reads the .deb's file list with dpkg-deb --contents: the
// files with their modes, every entry root's; no token or CA (the
// operator writes them).
func checkContents(t *testing.T, deb string) {
	t.Helper()
	want := map[string]string{
		"." + vmagentpkg.Binary:                          "-rwxr-xr-x",
		"." + vmagentpkg.UnitPath:                        "-rw-r--r--",
		"." + envPath(t):                                 "-rw-r--r--",
		"./usr/share/doc/" + vmagentpkg.Name + "/README": "-rw-r--r--",
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(run(t, "dpkg-deb", "--contents", deb)), "\n") {
		f := strings.Fields(line) // mode owner/group size date time path
		if len(f) != 6 || f[1] != "root/root" {
			t.Errorf("entry %q: want mode root/root size date time path", line)
			continue
		}
		if strings.HasPrefix(f[0], "d") {
			if f[0] != "drwxr-xr-x" {
				t.Errorf("directory %s: mode %s", f[5], f[0])
			}
			continue
		}
		got[f[5]] = f[0]
	}
	if !maps.Equal(got, want) {
		t.Errorf("the .deb's files are %v, want %v", got, want)
	}
}

// checkFiles checks the .deb unpacked in root: the files are the embedded
// ones, the maintainer scripts those of deploy/vm-agent with the unit's
// lines written, executable and valid sh, and the agent a static
// linux/arch program that reports the package's version.
func checkFiles(t *testing.T, deb, root, arch, version string) {
	t.Helper()
	for path, want := range map[string][]byte{vmagentpkg.UnitPath: vmagentpkg.UnitFile(), envPath(t): vmagentpkg.EnvFile(),
		"/usr/share/doc/" + vmagentpkg.Name + "/README": vmagentpkg.Readme()} {
		if got, err := os.ReadFile(filepath.Join(root, path)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not deploy/vm-agent's (%v)", path, err)
		}
	}
	control := t.TempDir()
	run(t, "dpkg-deb", "--control", deb, control)
	for _, name := range vmagentpkg.ScriptNames() {
		want, err := vmagentpkg.Script(name)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(control, name)
		got, err := os.ReadFile(path)
		if info, statErr := os.Stat(path); err != nil || statErr != nil || !bytes.Equal(got, want) || info.Mode().Perm() != 0o755 {
			t.Errorf("maintainer script %s is not deploy/vm-agent's rendered, mode 0755 (%v)", name, err)
		}
		run(t, "sh", "-n", path)
	}
	checkELF(t, filepath.Join(root, vmagentpkg.Binary), arch)
	if arch == "amd64" {
		if got := strings.TrimSpace(run(t, filepath.Join(root, vmagentpkg.Binary), "--version")); got != version {
			t.Errorf("antreaplus-vm-agent --version: %q, want %q", got, version)
		}
	}
}

// checkELF checks that binary is a static program for linux/arch.
func checkELF(t *testing.T, binary, arch string) {
	t.Helper()
	f, err := elf.Open(binary)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]; f.Machine != want {
		t.Errorf("%s: machine %v, want %v", binary, f.Machine, want)
	}
	if slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC }) {
		t.Errorf("%s is dynamically linked", binary)
	}
}

// envPath is the env file's path, the unit's EnvironmentFile=.
func envPath(t *testing.T) string {
	t.Helper()
	u, err := vmagentpkg.PackagedUnit()
	if err != nil {
		t.Fatal(err)
	}
	return u.EnvironmentFile
}
