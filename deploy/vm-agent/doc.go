// Package vmagentpkg is the VM agent's package: the files the .deb and the
// tarball install beside the binary (the systemd unit
// antreaplus-vm-agent.service, the env file /etc/antreaplus/vm-agent/env,
// the maintainer scripts, the README), embedded so that hack/packages
// packages them and the sandbox runs its agents with exactly them.
//
// It reads the unit as systemd does, for what the agent's command line is
// made of: Environment= (the defaults), EnvironmentFile= (the env file,
// which overrides them) and ExecStart=, whose ${NAME} is the variable's
// value as one word and $NAME alone the value split at whitespace (Unit.Command).
// The parsers accept a subset of systemd's syntax and refuse the rest, so
// that what they accept means the same to systemd: unit files without
// specifiers (but %%) or prefixes of ExecStart, and env files whose values
// are plain or quoted, without $ or backquotes, which also means the same to
// sh (the maintainer scripts read the env file with sh).
//
// # Usage
//
// See ExampleUnit_Command (the sandbox's agents) and ExampleScript (the
// maintainer scripts hack/packages writes).
package vmagentpkg
