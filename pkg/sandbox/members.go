package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/miekg/dns"
)

// MemberServicesOptions are the binaries of what a federated sandbox runs
// in every member besides its clusters.
type MemberServicesOptions struct {
	// MemberController is the member-controller executable.
	MemberController string
	// CoreDNS is the project's CoreDNS build.
	CoreDNS string
}

// MemberDir holds the member controllers' and DNS servers' pid files, logs
// and Corefiles.
func (s *Sandbox) MemberDir() string { return filepath.Join(s.opts.Dir, "members") }

func (s *Sandbox) memberController(cluster string) process {
	return process{dir: s.MemberDir(), name: cluster + ".member-controller", what: "the member controller of " + cluster}
}

func (s *Sandbox) dnsServer(cluster string) process {
	return process{dir: s.MemberDir(), name: cluster + ".dns", what: "the DNS server of " + cluster}
}

// Corefile is the path of a member's DNS server configuration.
func (s *Sandbox) Corefile(cluster string) string {
	return filepath.Join(s.MemberDir(), cluster+".Corefile")
}

// corefile is a member's DNS server configuration: a complete resolver
// for the member (docs/dns.md's Corefile for a real cluster, on the
// sandbox's address and ports, reading the sandbox's kubeconfig, without
// health, which the plan gives no port): clusterset.local and the
// federation's names from the member's imports alone, the member's own
// cluster.local names, and the rest from the machine's resolvers.
func corefile(p ClusterPlan, kubeconfig string) string {
	addr := p.DNS.Addr.String()
	return fmt.Sprintf(`# Written by 'antreaplus sandbox up': the DNS server of %[1]s.
. {
    bind %[2]s
    errors
    ready %[2]s:%[3]d
    federation cluster.local {
        kubeconfig %[5]s %[1]s
    }
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig %[5]s %[1]s
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 30
    }
    prometheus %[2]s:%[4]d
    forward . /etc/resolv.conf {
        max_concurrent 1000
    }
    cache 30 {
        disable success cluster.local
        disable denial cluster.local
    }
    loop
    reload
    loadbalance
}
`, p.Name, addr, p.DNS.ReadyPort, p.DNS.MetricsPort, kubeconfig)
}

// StartMemberServices runs, in every member of the sandbox, its member
// controller and its DNS server, unless they run already, and waits until
// every DNS server is ready (has listed its member's imports).
func (s *Sandbox) StartMemberServices(ctx context.Context, opts MemberServicesOptions) error {
	st, err := s.LoadState()
	if err != nil {
		return fmt.Errorf("no sandbox: %w", err)
	}
	if err := os.MkdirAll(s.MemberDir(), 0o755); err != nil {
		return err
	}
	for _, p := range st.Clusters {
		if p.DNS.Port == 0 {
			return fmt.Errorf("the sandbox state predates DNS servers: run 'antreaplus sandbox down' and 'up' again")
		}
		mc := s.memberController(p.Name)
		pid, started, err := mc.start(opts.MemberController, "--kubeconfig", s.KubeconfigPath(), "--context", p.Name)
		if err != nil {
			return err
		}
		if started {
			s.logf("%s: member controller running (pid %d, log %s)", p.Name, pid, mc.logFile())
		}
		if err := os.WriteFile(s.Corefile(p.Name), []byte(corefile(p, s.KubeconfigPath())), 0o644); err != nil {
			return err
		}
		dns := s.dnsServer(p.Name)
		if dns.pid() == 0 {
			if err := checkAddrFree(p.DNS.Endpoint()); err != nil {
				return fmt.Errorf("the DNS server of %s: %w", p.Name, err)
			}
		}
		pid, started, err = dns.start(opts.CoreDNS, "-conf", s.Corefile(p.Name), "-dns.port", strconv.Itoa(p.DNS.Port))
		if err != nil {
			return err
		}
		if started {
			s.logf("%s: DNS server on %s (pid %d, log %s)", p.Name, p.DNS.Endpoint(), pid, dns.logFile())
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, p := range st.Clusters {
		for {
			err := dnsReady(ctx, p)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the DNS server of %s is not ready after 60s (%w): see %s", p.Name, err, s.dnsServer(p.Name).logFile())
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return nil
}

// stopMemberServices stops every member controller and DNS server.
func (s *Sandbox) stopMemberServices() error {
	var errs []error
	for _, name := range processNames(s.MemberDir()) {
		p := process{dir: s.MemberDir(), name: name, what: name}
		errs = append(errs, p.stop(syscall.SIGTERM))
	}
	return errors.Join(errs...)
}

// checkAddrFree fails, naming the owner when it can, if a UDP or TCP
// address is taken.
func checkAddrFree(endpoint string) error {
	if err := checkListen("tcp", endpoint); err != nil {
		return err
	}
	return checkListen("udp", endpoint)
}

// dnsReady asks a member's DNS server's /ready endpoint, then asks it a
// question over UDP: CoreDNS answers /ready before it binds its DNS port.
func dnsReady(ctx context.Context, p ClusterPlan) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := readyEndpoint(ctx, p.DNS); err != nil {
		return err
	}
	q := new(dns.Msg)
	q.SetQuestion("clusterset.local.", dns.TypeSOA)
	if _, _, err := new(dns.Client).ExchangeContext(ctx, q, p.DNS.Endpoint()); err != nil {
		return fmt.Errorf("%s does not answer DNS yet: %w", p.DNS.Endpoint(), err)
	}
	return nil
}

func readyEndpoint(ctx context.Context, p DNSPlan) error {
	return getOK(ctx, fmt.Sprintf("http://%s:%d/ready", p.Addr, p.ReadyPort))
}

// getOK fails unless a GET of url answers 200 OK.
func getOK(ctx context.Context, url string) error { return getOKWith(ctx, http.DefaultClient, url) }

// ServiceStatus is one local process the sandbox runs beside its clusters.
type ServiceStatus struct {
	// Cluster the process serves.
	Cluster string `json:"cluster"`
	// Kind is federation-manager, member-controller, dns, cloud-emulator,
	// policy-controller, cloud-controller, vm-agent, vm-listener, vm-relay,
	// vm-dns-relay, external-dns-etcd, external-dns or external-dns-server.
	Kind string `json:"kind"`
	// Pid is 0 when the process is not running.
	Pid int `json:"pid"`
	// Address is where it serves (DNS servers, the cloud's processes, VMs);
	// for a cloud controller, its accounts, or with --tenancy its Replica.
	Address string `json:"address,omitempty"`
	// Replica is a cloud controller's claim holderIdentity,
	// "<instance>/<replica>", in a sandbox run with --tenancy.
	Replica string `json:"replica,omitempty"`
	// Ready is true while it runs (and, for a DNS server, answers /ready).
	Ready bool `json:"ready"`
	// Log is the process's log file.
	Log string `json:"log"`
}

// Services lists the federation managers, member controllers, DNS
// servers and cloud processes the sandbox started, by cluster, and whether
// they run.
func (s *Sandbox) Services(ctx context.Context) ([]ServiceStatus, error) {
	st, err := s.LoadState()
	if err != nil {
		return nil, err
	}
	var out []ServiceStatus
	add := func(ss ServiceStatus, started bool) {
		if started {
			out = append(out, ss)
		}
	}
	for _, c := range st.Clusters {
		add(processStatus(c.Name, "federation-manager", "", s.manager(c.Name), nil))
		add(processStatus(c.Name, "member-controller", "", s.memberController(c.Name), nil))
		add(processStatus(c.Name, "dns", c.DNS.Endpoint(), s.dnsServer(c.Name), func() bool { return dnsReady(ctx, c) == nil }))
		out = append(out, s.cloudServices(ctx, st.Cloud, c.Name)...)
		if _, ok := st.Cloud.Member(c.Name); !ok { // as installed, every member runs one
			add(processStatus(c.Name, "policy-controller", "", s.policyController(c.Name), nil))
		}
	}
	out = append(out, s.externalDNSServices(ctx, st.ExternalDNS)...)
	return out, nil
}

// processStatus is what Services says of p, a process of cluster serving
// at address and ready while it runs and ready (if given) says so; false
// when p was never started.
func processStatus(cluster, kind, address string, p process, ready func() bool) (ServiceStatus, bool) {
	if _, err := os.Stat(p.pidFile()); err != nil {
		return ServiceStatus{}, false
	}
	ss := ServiceStatus{Cluster: cluster, Kind: kind, Pid: p.pid(), Address: address, Log: p.logFile()}
	ss.Ready = ss.Pid != 0 && (ready == nil || ready())
	return ss, true
}
