package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/membership"
)

type externalDNSFlags struct {
	domain string
	ttl    int64
	off    bool
}

func federationExternalDNS(f *federationFlags, out, errOut io.Writer) *cobra.Command {
	ef := &externalDNSFlags{}
	c := &cobra.Command{
		Use:   "external-dns --context CONTEXT (--domain DOMAIN [--ttl SECONDS] | --off)",
		Short: "Publish the federation's Services to clients outside it, through the ExternalDNS of a member",
		Example: `  antreaplus federation external-dns --context hub-1 --domain example.org --ttl 60
  antreaplus federation external-dns --context hub-1 --off`,
		Long: `external-dns makes a member publish the federated Services for the ExternalDNS running in it:
its leader writes one DNSEndpoint (externaldns.k8s.io/v1alpha1) per federated Service exported
through a load balancer or node ports into its antreaplus-system, with the names
<svc>.<ns>.<federation>.svc[.<zone>][.<region>].<domain> (docs/external-dns.md). Run ExternalDNS
there with --source=crd --crd-source-apiversion=externaldns.k8s.io/v1alpha1
--crd-source-kind=DNSEndpoint --namespace=antreaplus-system. --off stops publishing: the
leader deletes what it wrote. A ServiceExport annotated federation.antreaplus.io/external-dns=false
keeps its member's addresses out.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			spec, err := ef.spec()
			if err != nil {
				return err
			}
			member, _, err := f.cluster("publish from (where ExternalDNS runs)")
			if err != nil {
				return err
			}
			err = membership.SetExternalDNS(ctx, member, spec)
			switch {
			case errors.Is(err, membership.ErrNoDNSEndpointAPI):
				fmt.Fprintf(errOut, "warning: %s: %v\n", member.Name, err)
			case err != nil:
				return err
			}
			if spec == nil {
				fmt.Fprintf(out, "%s no longer publishes the federation's names; its leader deletes the DNSEndpoints it wrote.\n", member.Name)
				return nil
			}
			ttl := spec.RecordTTL
			if ttl == 0 {
				ttl = 30
			}
			fmt.Fprintf(out, "%s publishes the federation's names under %s (records' TTL %d s): its leader writes the DNSEndpoints into %s.\n",
				member.Name, spec.Domain, ttl, federationv1alpha1.SystemNamespace)
			return nil
		},
	}
	c.Flags().StringVar(&ef.domain, "domain", "", "domain the names are published under, e.g. example.org")
	c.Flags().Int64Var(&ef.ttl, "ttl", 0, "TTL in seconds of every record (default 30)")
	c.Flags().BoolVar(&ef.off, "off", false, "stop publishing: the DNSEndpoints the federation wrote there are deleted")
	return c
}

// spec is what the flags ask for: nil with --off.
func (ef *externalDNSFlags) spec() (*federationv1alpha1.ExternalDNSSpec, error) {
	switch {
	case ef.off && (ef.domain != "" || ef.ttl != 0):
		return nil, errors.New("--off takes no --domain or --ttl")
	case ef.off:
		return nil, nil
	case ef.domain == "":
		return nil, errors.New("name the domain to publish under with --domain DOMAIN (or stop publishing with --off)")
	case ef.ttl < 0:
		return nil, fmt.Errorf("--ttl %d: a TTL is at least 1 second", ef.ttl)
	}
	return &federationv1alpha1.ExternalDNSSpec{Domain: ef.domain, RecordTTL: ef.ttl}, nil
}
