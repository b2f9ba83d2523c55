package sandbox

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/miekg/dns"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/crdinstall"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/toolchain"
)

// dnsEndpointCRD is ExternalDNS's own DNSEndpoint CRD, copied unchanged
// from sigs.k8s.io/external-dns v0.22.0
// (config/crd/standard/dnsendpoints.externaldns.k8s.io.yaml, the version
// hack/tools/external-dns pins). The project's chart ships no copy of it:
// it comes with ExternalDNS, which the sandbox (--external-dns) and the
// tests install as an operator would.
//
//go:embed crds/dnsendpoints.externaldns.k8s.io.yaml
var dnsEndpointCRD []byte

// DNSEndpointCRD returns ExternalDNS's DNSEndpoint CRD
// (dnsendpoints.externaldns.k8s.io, ExternalDNS v0.22.0's own), for
// crdinstall.Install.
func DNSEndpointCRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(dnsEndpointCRD, crd); err != nil {
		return nil, fmt.Errorf("decoding ExternalDNS's DNSEndpoint CRD: %w", err)
	}
	return crd, nil
}

// ExternalDNSOptions are the binaries of the external DNS stack that are
// the project's own; etcd and ExternalDNS come from the tool cache
// (toolchain.ExternalDNSTools).
type ExternalDNSOptions struct {
	// CoreDNS is the project's CoreDNS build (with the etcd plugin).
	CoreDNS string
}

// ExternalDNSDir holds the external DNS stack's pid files, logs, etcd
// data, Corefile and ExternalDNS's kubeconfig.
func (s *Sandbox) ExternalDNSDir() string { return filepath.Join(s.opts.Dir, "external-dns") }

func (s *Sandbox) externalDNSEtcd() process {
	return process{dir: s.ExternalDNSDir(), name: "etcd", what: "the etcd of the external DNS"}
}

func (s *Sandbox) externalDNS(e ExternalDNSState) process {
	return process{dir: s.ExternalDNSDir(), name: "external-dns", what: "ExternalDNS", env: externalDNSEnv(e)}
}

func (s *Sandbox) externalDNSServer() process {
	return process{dir: s.ExternalDNSDir(), name: "dns", what: "the external DNS server"}
}

// StartExternalDNS publishes the federation's names outside the members
// (docs/sandbox.md, --external-dns): it installs ExternalDNS's CRD in the
// first supervisor, asks its ClusterMembership for the records
// (spec.externalDNS: ExternalDNSDomain, ExternalDNSTTL), and runs an etcd,
// ExternalDNS publishing that supervisor's DNSEndpoints into it, and our
// CoreDNS answering the domain from it, unless they run already; it waits
// until each is ready and records the stack in the state (later runs of
// 'sandbox up' keep it). The sandbox must form a federation; not as
// installed.
func (s *Sandbox) StartExternalDNS(ctx context.Context, opts ExternalDNSOptions) error {
	st, err := s.LoadState()
	if err != nil {
		return fmt.Errorf("no sandbox: %w", err)
	}
	if st.AsInstalled {
		return errors.New("--external-dns runs its processes beside the sandbox's own: not with --as-installed")
	}
	if st.FederationID == "" || len(st.Supervisors) == 0 {
		return errors.New("--external-dns publishes the federation's names: form a federation with --supervisors")
	}
	tools, err := s.externalDNSTools(ctx)
	if err != nil {
		return err
	}
	e := PlanExternalDNS(st.Clusters[0].APIServerPort, st.Supervisors[0])
	if st.ExternalDNS != nil {
		e = *st.ExternalDNS
	}
	// Recorded first: a run that fails half-way is completed by the next.
	st.ExternalDNS = &e
	if err := s.saveState(st); err != nil {
		return err
	}
	if err := s.askForRecords(ctx, e); err != nil {
		return err
	}
	if err := os.MkdirAll(s.ExternalDNSDir(), 0o755); err != nil {
		return err
	}

	etcd := s.externalDNSEtcd()
	if err := s.startStackProcess(ctx, etcd, []int{e.EtcdPort, e.EtcdPeerPort}, "", tools.Path("etcd"),
		externalDNSEtcdArgs(e, filepath.Join(s.ExternalDNSDir(), "etcd")),
		func(ctx context.Context) error { return getOK(ctx, e.EtcdURL()+"/health") }); err != nil {
		return err
	}

	kubeconfig := filepath.Join(s.ExternalDNSDir(), "kubeconfig")
	if err := s.writeContextKubeconfig(kubeconfig, e.Cluster); err != nil {
		return err
	}
	edns := s.externalDNS(e)
	if err := s.startStackProcess(ctx, edns, []int{e.MetricsPort}, "", tools.Path("external-dns"),
		externalDNSArgs(e, kubeconfig, federationv1alpha1.SystemNamespace),
		func(ctx context.Context) error { return getOK(ctx, "http://"+e.metricsAddr()+"/healthz") }); err != nil {
		return err
	}

	corefile := filepath.Join(s.ExternalDNSDir(), "Corefile")
	if err := os.WriteFile(corefile, []byte(externalDNSCorefile(e)), 0o644); err != nil {
		return err
	}
	server := s.externalDNSServer()
	if err := s.startStackProcess(ctx, server, []int{e.Server.ReadyPort, e.Server.MetricsPort}, e.Server.Endpoint(), opts.CoreDNS,
		externalDNSServerArgs(corefile),
		func(ctx context.Context) error { return externalDNSReady(ctx, e) }); err != nil {
		return err
	}
	return nil
}

// externalDNSTools are etcd and ExternalDNS, built into the tool cache when
// missing.
func (s *Sandbox) externalDNSTools(ctx context.Context) (toolchain.Toolchain, error) {
	if s.opts.Tools != nil {
		if missing := s.opts.Tools.Missing(toolchain.ExternalDNSTools()...); len(missing) > 0 {
			return *s.opts.Tools, fmt.Errorf("tools %v are missing from %s: run 'make tools'", missing, s.opts.Tools.Dir)
		}
		return *s.opts.Tools, nil
	}
	return toolchain.Ensure(ctx, s.opts.Progress, toolchain.ExternalDNSTools()...)
}

// InstallDNSEndpointCRD installs ExternalDNS's DNSEndpoint CRD in a
// cluster of the sandbox, as installing ExternalDNS does, and waits until
// it is served. StartExternalDNS does it too; 'sandbox up --external-dns'
// does it first, before the federation managers start, so that their
// leaders find the API at once.
func (s *Sandbox) InstallDNSEndpointCRD(ctx context.Context, cluster string) error {
	cfg, err := s.restConfig(cluster)
	if err != nil {
		return err
	}
	crd, err := DNSEndpointCRD()
	if err != nil {
		return err
	}
	if err := crdinstall.Install(ctx, cfg, []*apiextensionsv1.CustomResourceDefinition{crd}); err != nil {
		return fmt.Errorf("%s: installing ExternalDNS's DNSEndpoint CRD: %w", cluster, err)
	}
	return nil
}

// askForRecords installs ExternalDNS's CRD in the cluster that publishes
// and sets its ClusterMembership's spec.externalDNS, unless it says so
// already.
func (s *Sandbox) askForRecords(ctx context.Context, e ExternalDNSState) error {
	if err := s.InstallDNSEndpointCRD(ctx, e.Cluster); err != nil {
		return err
	}
	cfg, err := s.restConfig(e.Cluster)
	if err != nil {
		return err
	}
	spec := &federationv1alpha1.ExternalDNSSpec{Domain: e.Domain, RecordTTL: e.RecordTTL}
	if err := membership.SetExternalDNS(ctx, membership.Cluster{Name: e.Cluster, Config: cfg}, spec); err != nil {
		return fmt.Errorf("%s: setting spec.externalDNS of its ClusterMembership: %w", e.Cluster, err)
	}
	s.logf("%s: its leader publishes the federation's names under %s (ClusterMembership spec.externalDNS, TTL %d s)", e.Cluster, e.Domain, e.RecordTTL)
	return nil
}

// writeContextKubeconfig writes a copy of the sandbox's kubeconfig whose
// current context is cluster: ExternalDNS has no --context flag.
func (s *Sandbox) writeContextKubeconfig(path, cluster string) error {
	kc, err := clientcmd.LoadFromFile(s.KubeconfigPath())
	if err != nil {
		return fmt.Errorf("reading the sandbox's kubeconfig: %w", err)
	}
	if _, ok := kc.Contexts[cluster]; !ok {
		return fmt.Errorf("the sandbox's kubeconfig has no context %s", cluster)
	}
	kc.CurrentContext = cluster
	return clientcmd.WriteToFile(*kc, path)
}

// startStackProcess starts p unless it runs, first checking that its TCP
// ports on loopback (and its DNS endpoint, if any, in UDP and TCP) are
// free, and waits up to a minute until ready says it is.
func (s *Sandbox) startStackProcess(ctx context.Context, p process, ports []int, dnsEndpoint, binary string, args []string, ready func(context.Context) error) error {
	if p.pid() == 0 {
		for _, port := range ports {
			if err := checkPortFree(port); err != nil {
				return fmt.Errorf("%s: %w", p.what, err)
			}
		}
		if dnsEndpoint != "" {
			if err := checkAddrFree(dnsEndpoint); err != nil {
				return fmt.Errorf("%s: %w", p.what, err)
			}
		}
	}
	pid, started, err := p.start(binary, args...)
	if err != nil {
		return err
	}
	const timeout = time.Minute
	deadline := time.Now().Add(timeout)
	for {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := ready(rctx)
		cancel()
		if err == nil {
			break
		}
		if p.pid() == 0 {
			return fmt.Errorf("%s exited: see %s", p.what, p.logFile())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is not ready after %s (%w): see %s", p.what, timeout, err, p.logFile())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	if started {
		s.logf("external DNS: %s running (pid %d, log %s)", p.what, pid, p.logFile())
	}
	return nil
}

// externalDNSReady asks the DNS server's /ready, then the SOA of its
// domain (CoreDNS answers /ready before it binds its DNS port).
func externalDNSReady(ctx context.Context, e ExternalDNSState) error {
	if err := readyEndpoint(ctx, e.Server); err != nil {
		return err
	}
	q := new(dns.Msg)
	q.SetQuestion(dns.Fqdn(e.Domain), dns.TypeSOA)
	if _, _, err := new(dns.Client).ExchangeContext(ctx, q, e.Server.Endpoint()); err != nil {
		return fmt.Errorf("%s does not answer DNS yet: %w", e.Server.Endpoint(), err)
	}
	return nil
}

// stopExternalDNS stops the external DNS stack's processes.
func (s *Sandbox) stopExternalDNS() error {
	var errs []error
	for _, name := range processNames(s.ExternalDNSDir()) {
		p := process{dir: s.ExternalDNSDir(), name: name, what: name}
		errs = append(errs, p.stop(syscall.SIGTERM))
	}
	return errors.Join(errs...)
}

// externalDNSServices are the external DNS stack's processes, as Services
// lists them: kinds external-dns-etcd, external-dns and
// external-dns-server, of the cluster that publishes.
func (s *Sandbox) externalDNSServices(ctx context.Context, e *ExternalDNSState) []ServiceStatus {
	if e == nil {
		return nil
	}
	var out []ServiceStatus
	add := func(ss ServiceStatus, started bool) {
		if started {
			out = append(out, ss)
		}
	}
	probe := func(f func(context.Context) error) func() bool {
		return func() bool {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			return f(ctx) == nil
		}
	}
	add(processStatus(e.Cluster, "external-dns-etcd", strings.TrimPrefix(e.EtcdURL(), "http://"), s.externalDNSEtcd(),
		probe(func(ctx context.Context) error { return getOK(ctx, e.EtcdURL()+"/health") })))
	add(processStatus(e.Cluster, "external-dns", e.metricsAddr(), s.externalDNS(*e),
		probe(func(ctx context.Context) error { return getOK(ctx, "http://"+e.metricsAddr()+"/healthz") })))
	add(processStatus(e.Cluster, "external-dns-server", e.Server.Endpoint(), s.externalDNSServer(),
		probe(func(ctx context.Context) error { return externalDNSReady(ctx, *e) })))
	return out
}
