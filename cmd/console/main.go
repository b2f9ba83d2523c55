// Command console serves the AntreaPlus web console inside a member
// cluster (the chart's console.enabled, off by default): read-only, the
// member read with this program's own account, every viewer signed in with
// a Kubernetes token of their own, which the API server reviews
// (TokenReview), and shown only the kinds the API server says the viewer
// may list (SubjectAccessReview). Served over HTTPS (a self-signed
// certificate in --cert-dir unless --tls-cert-file is given). On a
// laptop, `antreaplus console` serves the same views of every member
// (docs/console.md).
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/cmdutil"
	"antreaplus.io/antreaplus/internal/restconfig"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/console"
	"antreaplus.io/antreaplus/pkg/policydistribution/controlplane"
)

// What the console reads, and no more (chart: files/rbac/console.yaml).
// +kubebuilder:rbac:groups=federation.antreaplus.io,resources=clustermemberships;memberclusters;networks,verbs=get;list;watch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch,namespace=antreaplus-system
// +kubebuilder:rbac:groups="",resources=nodes;namespaces;services,verbs=get;list;watch
// +kubebuilder:rbac:groups=discovery.k8s.io,resources=endpointslices,verbs=get;list;watch
// +kubebuilder:rbac:groups=multicluster.x-k8s.io,resources=serviceexports;serviceimports,verbs=get;list;watch
// +kubebuilder:rbac:groups=externaldns.k8s.io,resources=dnsendpoints,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy.antreaplus.io,resources=federatednetworkpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=crd.antrea.io,resources=networkpolicies;clusternetworkpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=cloudprovideraccounts;cloudentityselectors;virtualmachines;cloudnativeservices,verbs=get;list;watch
// Who a viewer is and what the viewer may list.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// version is set at build time with -ldflags "-X main.version=..."; --version
// prints it.
var version = "v0.1.0-dev"

type flags struct {
	kubeconfig, context, metricsAddr string
	probeAddr                        string
	listenAddress, name, domain      string
	certFile, keyFile                string
	certDir, sans                    string
}

func main() {
	f := &flags{}
	host, _ := os.Hostname()
	fs := cmdutil.NewFlagSet()
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the member cluster the console shows (default: in-cluster)")
	fs.StringVar(&f.context, "context", "", "context of the kubeconfig to use")
	fs.StringVar(&f.metricsAddr, "metrics-bind-address", "0", "address of the Prometheus metrics endpoint (plain HTTP, no sign-in); 0 disables it")
	fs.StringVar(&f.probeAddr, "health-probe-bind-address", "0", "address of /healthz and /readyz (plain HTTP); 0 disables them")
	fs.StringVar(&f.listenAddress, "listen-address", ":7443", "address the console serves HTTPS on")
	fs.StringVar(&f.name, "name", "", "the member's name in the views (default: its ClusterID, else \"this cluster\")")
	fs.StringVar(&f.domain, "cluster-domain", "cluster.local", "the members' cluster domain, for the federated Services' DNS names")
	fs.StringVar(&f.certFile, "tls-cert-file", "", "serving certificate (default: a self-signed one in --cert-dir)")
	fs.StringVar(&f.keyFile, "tls-key-file", "", "key of --tls-cert-file")
	fs.StringVar(&f.certDir, "cert-dir", "/var/lib/antreaplus/console/certs", "where a self-signed serving certificate is kept")
	fs.StringVar(&f.sans, "tls-san", strings.Join([]string{host, "localhost", "127.0.0.1"}, ","), "comma-separated host names and IPs of the self-signed certificate")
	cmdutil.Parse(fs, version)
	cmdutil.Run("console", func(ctx context.Context) error { return run(ctx, f) })
}

func run(ctx context.Context, f *flags) error {
	cfg, err := restconfig.Load(f.kubeconfig, f.context)
	if err != nil {
		return err
	}
	if f.name == "" {
		f.name = clusterID(ctx, cfg)
	}
	cert, key := f.certFile, f.keyFile
	if cert == "" && key == "" {
		if _, err := controlplane.EnsureServingCert(f.certDir, strings.Split(f.sans, ",")); err != nil {
			return err
		}
		cert, key = filepath.Join(f.certDir, controlplane.CertFile), filepath.Join(f.certDir, controlplane.KeyFile)
	}
	l, err := net.Listen("tcp", f.listenAddress)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", f.listenAddress, err)
	}
	reg := prometheus.NewRegistry()
	log := slog.New(logr.ToSlogHandler(klog.Background()))
	srv, err := console.New(console.Options{Mode: console.InCluster, Listener: l, InCluster: cfg, Name: f.name, Domain: f.domain,
		CertFile: cert, KeyFile: key, Registry: reg, Gatherer: reg, Log: log})
	if err != nil {
		_ = l.Close()
		return err
	}
	if f.metricsAddr != "0" {
		go serve(ctx, log, f.metricsAddr, map[string]http.Handler{"/metrics": promhttp.HandlerFor(reg, promhttp.HandlerOpts{})})
	}
	if f.probeAddr != "0" {
		ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
		go serve(ctx, log, f.probeAddr, map[string]http.Handler{"/healthz": ok, "/readyz": ok})
	}
	log.Info("serving the console", "address", srv.URL(), "member", f.name)
	return srv.Run(ctx)
}

// clusterID is the member's ClusterID, "this cluster" when it has none.
func clusterID(ctx context.Context, cfg *rest.Config) string {
	sc, err := scheme.New()
	if err != nil {
		return "this cluster"
	}
	cl, err := client.New(cfg, client.Options{Scheme: sc})
	if err != nil {
		return "this cluster"
	}
	var m federationv1alpha1.ClusterMembership
	if err := cl.Get(ctx, client.ObjectKey{Name: federationv1alpha1.MembershipName}, &m); err != nil || m.Spec.ClusterID == "" {
		return "this cluster"
	}
	return m.Spec.ClusterID
}

// serve serves handlers (by path) on addr, plain HTTP, until ctx ends.
func serve(ctx context.Context, log *slog.Logger, addr string, handlers map[string]http.Handler) {
	mux := http.NewServeMux()
	for path, h := range handlers {
		mux.Handle(path, h)
	}
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("endpoint stopped", "address", addr, "err", err)
	}
}
