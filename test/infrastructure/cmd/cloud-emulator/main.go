// Command cloud-emulator serves a local, in-memory AWS (EC2, ELBv2, RDS and
// STS Query APIs on one endpoint) and Azure (ARM and Entra ID token
// endpoint, over TLS) for development, the sandbox and demos. IT IS NOT A
// CLOUD and has nothing to do with real accounts: it holds a few seeded
// VPCs/VNets, VMs, load balancers and databases and accepts only the
// made-up credentials it prints.
//
//	cloud-emulator --aws-addr 127.0.0.1:18080 --azure-addr 127.0.0.1:18443 --state-dir /tmp/cloud-emulator
//
// It writes, under --state-dir, ca.pem (the CA of its Azure TLS endpoint,
// for the cloud controller's --cloud-ca-file) and cloud.yaml (a namespace,
// Secrets, CloudProviderAccounts and CloudEntitySelectors pointing at it,
// ready for kubectl apply), and the same per cloud in cloud-aws.yaml and
// cloud-azure.yaml (to import each cloud into a cluster of its own),
// prints the endpoints and credentials, and serves until interrupted.
//
// The AWS VPCs prod and dev are 10.10.0.0/16 and 10.20.0.0/16, the Azure
// VNets prod and dev 10.30.0.0/16 and 10.40.0.0/16: distinct, so that the
// VMs of both clouds can share one network.
//
// With --tenants ns1,ns2,..., each of those Namespaces (tenants) gets an
// AWS account of its own: distinct credentials, a VPC named after it
// (10.51.0.0/16, 10.52.0.0/16, ...) tagged tenant=<ns> with
// --vms-per-tenant VMs tagged the same, and tenant-<ns>.yaml (its Secret,
// account and selector, named aws, picking its VPC by the tag; not the
// Namespace, which whoever makes it a tenant creates and labels).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

// Made-up credentials the emulator accepts; never real ones.
const (
	awsAccessKeyID     = "AKIAEMULATOREXAMPLE"
	awsSecretAccessKey = "emulator-secret-not-a-real-key"
	azureClientID      = "antreaplus-emulator-app"
	azureClientSecret  = "emulator-secret-not-a-real-secret"
	awsRegion          = "us-east-1"
	// An IAM role the AWS credentials may assume with this external id
	// (spec.aws.credentials.assumeRole).
	awsRoleARN    = "arn:aws:iam::123456789012:role/antreaplus-emulator-reader"
	awsExternalID = "antreaplus-emulator-external-id"
	azureRegion   = "eastus"
)

type flags struct {
	awsAddr, azureAddr string
	stateDir           string
	namespace          string
	vmsPerVPC          int
	pollSeconds        int
	tenants            string
	vmsPerTenant       int
	edge               bool
}

func main() {
	var f flags
	flag.StringVar(&f.awsAddr, "aws-addr", "127.0.0.1:18080", "address of the AWS endpoint, EC2, ELBv2, RDS and STS (plain HTTP); empty disables AWS")
	flag.StringVar(&f.azureAddr, "azure-addr", "127.0.0.1:18443", "address of the ARM and token endpoint (HTTPS); empty disables Azure")
	flag.StringVar(&f.stateDir, "state-dir", filepath.Join(os.TempDir(), "antreaplus-cloud-emulator"), "where ca.pem and cloud.yaml are written")
	flag.StringVar(&f.namespace, "namespace", "cloud-demo", "namespace of the objects in cloud.yaml")
	flag.IntVar(&f.vmsPerVPC, "vms-per-vpc", 3, "VMs seeded in each of the two VPCs (VNets) of each cloud")
	flag.IntVar(&f.pollSeconds, "poll-interval-seconds", 30, "pollIntervalSeconds of the accounts in cloud.yaml")
	flag.StringVar(&f.tenants, "tenants", "", "comma-separated Namespaces that each get an AWS account of their own (credentials, a VPC, VMs) and tenant-<ns>.yaml")
	flag.IntVar(&f.vmsPerTenant, "vms-per-tenant", 2, "VMs seeded in each tenant's VPC")
	flag.BoolVar(&f.edge, "edge", false, "also seed the edge networks: an AWS VPC and an Azure VNet of the same range (10.0.0.0/16), "+
		"the VPC behind a NAT gateway, a VM at the same address in each (docs/networks.md)")
	flag.Parse()
	if err := run(f); err != nil {
		fmt.Fprintln(os.Stderr, "cloud-emulator:", err)
		os.Exit(1)
	}
}

func run(f flags) error {
	if f.awsAddr == "" && f.azureAddr == "" {
		return errors.New("both --aws-addr and --azure-addr are empty: nothing to serve")
	}
	tenants, err := planTenants(splitList(f.tenants))
	if err != nil {
		return err
	}
	if len(tenants) > 0 && f.awsAddr == "" {
		return errors.New("--tenants needs the AWS endpoint (--aws-addr): the tenants' accounts are AWS accounts")
	}
	if err := os.MkdirAll(f.stateDir, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var (
		ends    endpoints
		servers []*http.Server
		errs    = make(chan error, 2)
	)
	if f.awsAddr != "" {
		emu := awsemu.New(awsemu.Options{
			Credentials: append([]awsemu.Credential{{AccessKeyID: awsAccessKeyID, SecretAccessKey: awsSecretAccessKey}}, awsTenantCredentials(tenants)...),
			Roles:       []awsemu.Role{{ARN: awsRoleARN, ExternalID: awsExternalID, Trusted: []string{awsAccessKeyID}}},
		})
		if err := seedAWS(emu, f.vmsPerVPC); err != nil {
			return err
		}
		if err := seedAWSEdge(emu, f.edge); err != nil {
			return err
		}
		if err := seedAWSTenants(emu, tenants, f.vmsPerTenant); err != nil {
			return err
		}
		l, err := net.Listen("tcp", f.awsAddr)
		if err != nil {
			return fmt.Errorf("AWS endpoint: %w", err)
		}
		ends.aws = "http://" + hostPort(l)
		srv := &http.Server{Handler: emu, ReadHeaderTimeout: 10 * time.Second}
		servers = append(servers, srv)
		go func() { errs <- srv.Serve(l) }()
	}
	if f.azureAddr != "" {
		emu := azureemu.New(azureemu.Options{Clients: []azureemu.Client{{ClientID: azureClientID, Secret: azureClientSecret}}})
		if err := seedAzure(emu, f.vmsPerVPC); err != nil {
			return err
		}
		if err := seedAzureEdge(emu, f.edge); err != nil {
			return err
		}
		ends.tenant, ends.subscription = emu.TenantID(), emu.SubscriptionID()
		l, err := net.Listen("tcp", f.azureAddr)
		if err != nil {
			return fmt.Errorf("azure endpoint: %w", err)
		}
		ends.azure = "https://" + hostPort(l)
		tlsCfg, caPEM, err := selfSigned(l.Addr().(*net.TCPAddr).IP)
		if err != nil {
			return err
		}
		ends.caFile = filepath.Join(f.stateDir, "ca.pem")
		if err := os.WriteFile(ends.caFile, caPEM, 0o644); err != nil {
			return err
		}
		srv := &http.Server{Handler: emu, TLSConfig: tlsCfg, ReadHeaderTimeout: 10 * time.Second}
		servers = append(servers, srv)
		go func() { errs <- srv.ServeTLS(l, "", "") }()
	}
	// cloud.yaml comes last: once it is there, every file is.
	var manifests string
	for _, m := range renderManifests(ends, f, tenants) {
		manifests = filepath.Join(f.stateDir, m.name)
		if err := os.WriteFile(manifests, []byte(m.content), 0o644); err != nil {
			return err
		}
	}
	printBanner(ends, manifests, f, tenants)
	select {
	case <-ctx.Done():
	case err := <-errs:
		return err
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(shutdown)
	}
	return nil
}

// hostPort is the listener's address with 127.0.0.1 for an unspecified IP.
func hostPort(l net.Listener) string {
	a := l.Addr().(*net.TCPAddr)
	ip := a.IP
	if ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), fmt.Sprint(a.Port))
}

func printBanner(e endpoints, manifests string, f flags, tenants []awsTenant) {
	fmt.Println("cloud-emulator: a LOCAL EMULATOR for development and tests, not AWS or Azure.")
	if e.aws != "" {
		fmt.Printf("AWS   EC2, ELBv2, RDS and STS endpoint %s  region %s  accessKeyID %s  secretAccessKey %s\n", e.aws, awsRegion, awsAccessKeyID, awsSecretAccessKey)
		fmt.Printf("AWS   assumable role %s  externalID %s\n", awsRoleARN, awsExternalID)
		for _, t := range tenants {
			fmt.Printf("AWS   tenant %s  accessKeyID %s  secretAccessKey %s  VPC %s %s  manifests %s\n",
				t.namespace, t.accessKeyID, t.secretAccessKey, t.vpc.name, t.vpc.cidr, filepath.Join(f.stateDir, tenantManifestFile(t.namespace)))
		}
	}
	if e.azure != "" {
		fmt.Printf("Azure ARM and authority host %s  location %s  subscriptionID %s  tenantID %s  clientID %s  clientSecret %s\n",
			e.azure, azureRegion, e.subscription, e.tenant, azureClientID, azureClientSecret)
		fmt.Printf("Azure TLS CA (pass to cloud-controller --cloud-ca-file) %s\n", e.caFile)
	}
	fmt.Printf("Seeded %d VMs in each of 2 VPCs/VNets per cloud. Manifests: kubectl apply -f %s (namespace %s; one cloud's: cloud-aws.yaml, cloud-azure.yaml)\n", f.vmsPerVPC, manifests, f.namespace)
	fmt.Println("ready")
}
