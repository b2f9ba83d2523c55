package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/framework"
)

// demo is one run: the programs it calls, the sandbox, what it printed.
type demo struct {
	ctx        context.Context
	o          options
	out        io.Writer
	repo       string
	antreaplus string
	kubectl    string
	sb         *sandbox.Sandbox
	kubeconfig string
	// upArgs are the flags of every 'sandbox up' of the demo.
	upArgs []string
	// root: the agented VMs can be played (network namespaces).
	root bool
	// dns3 is member-3's DNS server, ext the external one (when run).
	dns3, ext string
	// victim is the supervisor whose manager the failover killed;
	// victimReplica the cloud controller replica the tenancy section
	// killed, and the tenants it held.
	victim, victimReplica string
	victimTenants         []string
}

// sandboxService is one of the sandbox's processes.
type sandboxService = sandbox.ServiceStatus

// section is one part of the demo.
type section struct {
	title string
	// needs: what the section needs beyond the fast form's sandbox.
	cloud, vms, tenancy, externalDNS bool
	run                              func() error
}

func newDemo(ctx context.Context, o options, out io.Writer) (*demo, error) {
	repo, err := toolchain.FindRepo()
	if err != nil {
		return nil, err
	}
	d := &demo{ctx: ctx, o: o, out: out, repo: repo, root: os.Geteuid() == 0}
	if d.antreaplus, err = filepath.Abs(filepath.Join(o.bin, "antreaplus")); err != nil {
		return nil, err
	}
	if _, err := os.Stat(d.antreaplus); err != nil {
		return nil, fmt.Errorf("%w: build the programs first (make build build-dev)", err)
	}
	d.kubectl = o.kubectl
	if d.kubectl == "" {
		d.kubectl = toolchain.Toolchain{Dir: toolchain.DefaultDir()}.Path("kubectl")
	}
	d.sb = sandbox.New(sandbox.Options{Dir: o.dir, APIPortBase: o.apiPortBase, Progress: io.Discard})
	d.kubeconfig = d.sb.KubeconfigPath()
	d.upArgs = []string{"--clusters", strconv.Itoa(o.clusters), "--supervisors", strconv.Itoa(o.supervisors),
		"--manager-arg=--unreachable-grace=15s"}
	if o.fast {
		d.upArgs = append(d.upArgs, "--nodes", "1")
	}
	if o.apiPortBase != 0 {
		d.upArgs = append(d.upArgs, "--api-port-base", strconv.Itoa(o.apiPortBase))
	}
	return d, nil
}

// up starts the sandbox with everything the demo's sections use.
func (d *demo) up() error {
	d.say("Starting three real clusters (etcd, kube-apiserver, controller-manager, scheduler, kwok each),")
	if d.o.fast {
		d.say("federated with member-1 and member-2 as supervisors, each running a federation manager,")
		d.say("and in every member a member controller and a DNS server (our CoreDNS build); no cloud (-fast)")
	} else {
		d.say("a local cloud (an AWS and Azure emulator, not the real clouds): AWS imported into member-1, Azure into member-2,")
		d.say("federated with member-1 and member-2 as supervisors, each running a federation manager,")
		d.say("and in every member a member controller and a DNS server (our CoreDNS build);")
		d.say("in member-1 three tenants, each with an AWS account of its own, and their cloud controllers;")
		d.say("outside the members, ExternalDNS publishing the federation's names to a DNS server of its own")
	}
	args := append([]string{"sandbox", "up"}, d.upArgs...)
	if !d.o.fast {
		args = append(args, "--cloud", "--networks")
		if d.root {
			args = append(args, "--vm-agents") // agented VMs as network namespaces
		}
		if d.o.asInstalled {
			args = append(args, "--as-installed")
		} else {
			args = append(args, "--tenancy", "--external-dns") // local processes only
		}
	}
	return d.stream(d.antreaplus, args...)
}

// skip says why section s does not run in this demo; "" when it does.
func (d *demo) skip(s section) string {
	switch {
	case d.o.fast && (s.cloud || s.vms || s.tenancy || s.externalDNS):
		return "the fast form runs no cloud, tenants or ExternalDNS"
	case s.vms && !d.root:
		return "the agented VMs are network namespaces, which need root"
	case (s.tenancy || s.externalDNS) && d.o.asInstalled:
		return "tenants and ExternalDNS run as local processes, not as installed"
	}
	return ""
}

// say prints a section title.
func (d *demo) say(title string) { fmt.Fprintf(d.out, "\n\033[1m== %s\033[0m\n", title) }

func (d *demo) printf(format string, a ...any) { fmt.Fprintf(d.out, format, a...) }

// command is name with args, run with the sandbox's kubeconfig.
func (d *demo) command(name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(d.ctx, name, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+d.kubeconfig, sandbox.DirEnv+"="+d.sb.Dir())
	cmd.Dir = d.repo
	return cmd
}

// stream runs a command with its output shown as it comes.
func (d *demo) stream(name string, args ...string) error {
	cmd := d.command(name, args...)
	cmd.Stdout, cmd.Stderr = d.out, d.out
	return cmd.Run()
}

// output runs a command and returns its standard output; an error carries
// its standard error.
func (d *demo) output(name string, args ...string) (string, error) {
	cmd := d.command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", filepath.Base(name), strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// k runs kubectl.
func (d *demo) k(args ...string) (string, error) { return d.output(d.kubectl, args...) }

// ap runs antreaplus.
func (d *demo) ap(args ...string) (string, error) { return d.output(d.antreaplus, args...) }

// show prints the command line (when echo), then its output, indented;
// with must, a failure is the demo's.
func (d *demo) show(indent string, echo, must bool, name string, args ...string) error {
	if echo {
		d.printf("%s%s %s\n", indent, filepath.Base(name), strings.Join(args, " "))
	}
	cmd := d.command(name, args...)
	out, err := cmd.CombinedOutput()
	d.indent(indent, string(out))
	if err != nil && must {
		return fmt.Errorf("%s %s: %w", filepath.Base(name), strings.Join(args, " "), err)
	}
	return nil
}

// showK shows a kubectl command's output, which must succeed.
func (d *demo) showK(indent string, args ...string) error {
	return d.show(indent, false, true, d.kubectl, args...)
}

// indent prints text with every line indented.
func (d *demo) indent(indent, text string) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return
	}
	for _, l := range strings.Split(text, "\n") {
		d.printf("%s%s\n", indent, l)
	}
}

// file is the path of a testdata object.
func (d *demo) file(name string) string { return filepath.Join(testdata(d.repo), name) }

// apply prints a testdata object (when print) and applies it in a member.
func (d *demo) apply(member, name string, print bool) error {
	if print {
		raw, err := os.ReadFile(d.file(name))
		if err != nil {
			return err
		}
		d.indent("  ", string(raw))
	}
	_, err := d.k("--context", member, "apply", "-f", d.file(name))
	return err
}

// applyText applies YAML given inline.
func (d *demo) applyText(member, yaml string) error {
	cmd := d.command(d.kubectl, "--context", member, "apply", "-f", "-")
	cmd.Stdin = strings.NewReader(yaml)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("kubectl apply in %s: %w: %s", member, err, out)
	}
	return nil
}

// wait waits for check, as the tests do.
func (d *demo) wait(what string, timeout time.Duration, check func() error) error {
	if err := framework.Poll(d.ctx, timeout, 250*time.Millisecond, check); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// jsonpath reads one field of an object with kubectl's JSONPath.
func (d *demo) jsonpath(member string, args ...string) string {
	out, err := d.k(append([]string{"--context", member}, args...)...)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// state is the sandbox's recorded state.
func (d *demo) state() (*sandbox.State, error) { return d.sb.LoadState() }

// service is the address of one of the sandbox's processes.
func (d *demo) service(cluster, kind string) (sandbox.ServiceStatus, error) {
	services, err := d.sb.Services(d.ctx)
	if err != nil {
		return sandbox.ServiceStatus{}, err
	}
	for _, s := range services {
		if s.Cluster == cluster && s.Kind == kind {
			return s, nil
		}
	}
	return sandbox.ServiceStatus{}, fmt.Errorf("no %s in %s", kind, cluster)
}

// seconds formats a duration as the demo reports them.
func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// errNot is a check's "not yet".
func errNot(format string, a ...any) error { return fmt.Errorf(format, a...) }
