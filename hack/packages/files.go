package main

import (
	"io/fs"
	"os"
	"path/filepath"

	vmagentpkg "antreaplus.io/antreaplus/deploy/vm-agent"
)

// pkgFile is one file of the packages.
type pkgFile struct {
	// src is the file on disk (in the stage directory).
	src string
	// deb is its path in the .deb, tar its name in the tarball's
	// directory; "" leaves it out.
	deb, tar string
	mode     fs.FileMode
	// conffile marks a file dpkg keeps when the administrator changed it.
	conffile bool
	// script names a maintainer script of the .deb instead.
	script string
}

// packageFiles writes the files of package deploy/vm-agent into stage and
// lists them with binary, the agent.
func packageFiles(stage, binary string) ([]pkgFile, error) {
	unit, err := vmagentpkg.PackagedUnit()
	if err != nil {
		return nil, err
	}
	files := []pkgFile{
		{src: binary, deb: vmagentpkg.Binary, tar: filepath.Base(vmagentpkg.Binary), mode: 0o755},
		{src: "unit", deb: vmagentpkg.UnitPath, tar: vmagentpkg.UnitName, mode: 0o644},
		{src: "env", deb: unit.EnvironmentFile, tar: "env", mode: 0o644, conffile: true},
		{src: "README", deb: "/usr/share/doc/" + vmagentpkg.Name + "/README", tar: "README", mode: 0o644},
	}
	data := map[string][]byte{"unit": vmagentpkg.UnitFile(), "env": vmagentpkg.EnvFile(), "README": vmagentpkg.Readme()}
	for _, name := range vmagentpkg.ScriptNames() {
		script, err := vmagentpkg.Script(name)
		if err != nil {
			return nil, err
		}
		data[name] = script
		files = append(files, pkgFile{src: name, script: name, mode: 0o755})
	}
	for i, f := range files {
		if content, ok := data[f.src]; ok {
			files[i].src = filepath.Join(stage, f.src)
			if err := os.WriteFile(files[i].src, content, f.mode); err != nil {
				return nil, err
			}
		}
	}
	return files, nil
}
