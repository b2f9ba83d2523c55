package membership

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
)

// Cluster is one cluster as a kubeconfig context names it.
type Cluster struct {
	// Name is the kubeconfig context name.
	Name string
	// Config is an admin client configuration of the cluster.
	Config *rest.Config
}

// requestTimeout bounds each request when the configuration sets no
// timeout, so that a dead cluster fails a command instead of hanging it.
const requestTimeout = 30 * time.Second

// Client returns a controller-runtime client of the cluster that knows
// every AntreaPlus type.
func (c Cluster) Client() (client.Client, error) {
	return c.clientWithTimeout(requestTimeout)
}

// clientWithTimeout returns a client whose every request gives up after
// timeout, or the configuration's own shorter timeout.
func (c Cluster) clientWithTimeout(timeout time.Duration) (client.Client, error) {
	if c.Config == nil {
		return nil, fmt.Errorf("%s has no client configuration", c.Name)
	}
	s, err := scheme.New()
	if err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(c.Config)
	if cfg.Timeout == 0 || cfg.Timeout > timeout {
		cfg.Timeout = timeout
	}
	cl, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return nil, fmt.Errorf("client of %s: %w", c.Name, err)
	}
	return cl, nil
}

// Server is the https URL of the cluster's API server, as supervisors reach it.
func (c Cluster) Server() (string, error) {
	host := c.Config.Host
	u, err := url.Parse(host)
	if err != nil || u.Scheme == "" || u.Host == "" {
		// rest.Config allows a bare host:port and then speaks https.
		u, err = url.Parse("https://" + host)
	}
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%s: cannot read the API server address %q of its kubeconfig context", c.Name, host)
	}
	if u.Scheme != "https" {
		return "", fmt.Errorf("%s: its API server %s is not https; supervisors only reach members over https: give the context an https server", c.Name, host)
	}
	return u.String(), nil
}

// CA is the PEM bundle the kubeconfig trusts for the cluster's API server.
func (c Cluster) CA() ([]byte, error) {
	tls := c.Config.TLSClientConfig
	if len(tls.CAData) > 0 {
		return tls.CAData, nil
	}
	if tls.CAFile != "" {
		data, err := os.ReadFile(tls.CAFile)
		if err != nil {
			return nil, fmt.Errorf("%s: reading the certificate authority of its context: %w", c.Name, err)
		}
		return data, nil
	}
	return nil, fmt.Errorf("%s: its kubeconfig context has no certificate authority (certificate-authority-data or certificate-authority), "+
		"so supervisors could not verify its API server: add the CA of %s to the context's cluster entry", c.Name, c.Config.Host)
}

// Identity returns the cluster's ClusterMembership, nil when it belongs to
// no federation.
func Identity(ctx context.Context, c Cluster) (*federationv1alpha1.ClusterMembership, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	m, err := readMembership(ctx, c, cl)
	if errors.Is(err, errNoCRDs) {
		return nil, nil
	}
	return m, err
}
