// Package packages checks the VM agent's packages as `make packages`
// (hack/packages) builds them, with Debian's tools: dpkg-deb reads each
// .deb's control fields, maintainer scripts, conffiles and files with their
// modes; systemd-analyze verifies the unit and rates its hardening (when
// installed; else the test checks the unit's keys itself and says so); the
// tarballs are listed; and two builds must give the same bytes.
//
// It starts no cluster (the unit lane); it needs dpkg-deb and fails without
// it under ANTREAPLUS_REQUIRE_CLUSTERS=1 (make test), else skips.
package packages
