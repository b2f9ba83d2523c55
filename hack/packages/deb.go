package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/goreleaser/nfpm/v2"
	"github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"

	vmagentpkg "antreaplus.io/antreaplus/deploy/vm-agent"
)

const (
	maintainer  = "AntreaPlus maintainers <maintainers@antreaplus.io>"
	description = `AntreaPlus VM agent: federated network policies in nftables
 The agent of an AntreaPlus agented VM. It receives the VM's network
 policies from the policy controller of the member cluster that imports the
 VM, enforces them in an nftables table of its own (through netlink),
 keeps the last good rules in force while the controller is unreachable,
 reports to it, and forwards the federation's DNS names to the member's DNS
 server. Configure /etc/antreaplus/vm-agent/env, then
 systemctl enable --now antreaplus-vm-agent.`
)

// writeDeb writes the .deb of arch into out with nfpm and returns its
// path. It depends on nothing: the binary is static and programs nftables
// through netlink; nftables (the nft program) is only suggested, to look
// at the agent's table.
func (b build) writeDeb(arch string, pkgFiles []pkgFile, out string) (string, error) {
	info := &nfpm.Info{
		Name: vmagentpkg.Name, Arch: arch, Platform: "linux",
		Version: b.version, VersionSchema: "none",
		Section: "net", Priority: "optional", Maintainer: maintainer, Description: description,
		MTime:        b.mtime,
		Overridables: nfpm.Overridables{Suggests: []string{"nftables"}},
	}
	for _, f := range pkgFiles {
		switch {
		case f.script != "":
			setScript(&info.Scripts, f.script, f.src)
		case f.deb != "":
			typ := files.TypeFile
			if f.conffile {
				typ = files.TypeConfig
			}
			info.Contents = append(info.Contents, &files.Content{Source: f.src, Destination: f.deb, Type: typ,
				FileInfo: &files.ContentFileInfo{Mode: f.mode, Owner: "root", Group: "root"}})
		}
	}
	info = nfpm.WithDefaults(info)
	path := filepath.Join(out, deb.Default.ConventionalFileName(info))
	return path, writeFile(path, func(f *os.File) error { return deb.Default.Package(info, f) })
}

func setScript(s *nfpm.Scripts, name, path string) {
	switch name {
	case "postinst":
		s.PostInstall = path
	case "prerm":
		s.PreRemove = path
	case "postrm":
		s.PostRemove = path
	default:
		panic("no maintainer script " + name)
	}
}

// writeFile writes path with write, through a temporary file renamed over
// it when write succeeds.
func writeFile(path string, write func(*os.File) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := write(tmp); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
