package agentless

import (
	"context"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/cloudcontroller"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/agentless"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/inventorysync"
	"antreaplus.io/antreaplus/pkg/externalentity"
	"antreaplus.io/antreaplus/pkg/policydistribution/agenttoken"
	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/controlplane"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

// Credentials the emulator accepts, its region, and the timings of the
// controllers.
const (
	awsKeyID   = "AKIAAGENTLESSTEST"
	awsSecret  = "agentless-integration-secret"
	region     = "us-east-1"
	resync     = 2 * time.Second
	timeout    = 60 * time.Second
	prefix     = "antreaplus-"
	systemName = "antreaplus-agentless-test"
	// agentlessNode is the ExternalEntity controller's default.
	agentlessNode = "antreaplus-cloud-controller"
)

// cloud is the EC2 emulator with one VPC, prod.
type cloud struct {
	emu *awsemu.Server
	url string
	vpc string
	ec2 *ec2.Client // a client of our own, to read and to inject drift
}

func newCloud(t *testing.T) *cloud {
	t.Helper()
	emu := awsemu.New(awsemu.Options{Credentials: []awsemu.Credential{{AccessKeyID: awsKeyID, SecretAccessKey: awsSecret}}})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	vpc, err := emu.AddVPC(awsemu.VPCSpec{Region: region, Name: "prod", CIDR: "10.10.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	c := ec2.New(ec2.Options{Region: region, BaseEndpoint: aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider(awsKeyID, awsSecret, "")})
	return &cloud{emu: emu, url: srv.URL, vpc: vpc, ec2: c}
}

func (c *cloud) addVM(t *testing.T, name string) awsemu.Instance {
	t.Helper()
	vm, err := c.emu.AddInstance(awsemu.InstanceSpec{Region: region, VPCID: c.vpc, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

// startPolicyController runs the policy controller's distribution in the
// test process and returns its URL, CA file and the agentless token file.
func startPolicyController(t *testing.T) (url, caFile, tokenFile string) {
	t.Helper()
	dir := t.TempDir()
	cert, err := controlplane.EnsureServingCert(dir, []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddress(t)
	mgr := newManager(t, controlplane.CacheOptions())
	ctx := run(t, mgr, func(ctx context.Context) error {
		_, err := controlplane.Setup(ctx, mgr, controlplane.Options{Namespace: systemName, ListenAddress: addr,
			Certificate: cert, AgentlessNode: agentlessNode, Heartbeat: time.Second, WithoutPods: true})
		return err
	})
	tokenFile = filepath.Join(dir, "token")
	kube := clusters.Client(t, "member-1")
	framework.Eventually(t, timeout, func() error {
		s := &corev1.Secret{}
		if err := kube.Get(ctx, client.ObjectKey{Namespace: systemName, Name: agenttoken.AgentlessSecretName}, s); err != nil {
			return err
		}
		return os.WriteFile(tokenFile, s.Data[policyv1alpha1.TokenSecretKey], 0o600)
	})
	return "https://" + addr, filepath.Join(dir, "ca.crt"), tokenFile
}

// startCloudController runs the cloud controller, the ExternalEntity
// controller and the agentless syncer in the test process.
func startCloudController(t *testing.T, server, caFile, tokenFile string) {
	t.Helper()
	startCloudControllerWith(t, server, caFile, tokenFile, accountprovider.Options{AWSMaxAttempts: 2, AWSMaxBackoff: time.Millisecond, AWSPageSize: 1000})
}

// startCloudControllerWith is startCloudController with the providers'
// options (the CAs of a TLS emulator, call tuning).
func startCloudControllerWith(t *testing.T, server, caFile, tokenFile string, providerOpts accountprovider.Options) {
	t.Helper()
	c, err := consumer.New(consumer.Options{Server: server, TokenFile: tokenFile, CAFile: caFile,
		MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, Log: ctrl.Log.WithName("agentless-consumer")})
	if err != nil {
		t.Fatal(err)
	}
	mgr := newManager(t, cache.Options{})
	run(t, mgr, func(ctx context.Context) error {
		opts := cloudcontroller.Options{
			Provider: providerOpts,
			Sync:     inventorysync.Options{PollIntervalOverride: time.Second},
			Agentless: &agentless.Options{Consumer: c, Prefix: prefix, Interval: resync, RetryInterval: 500 * time.Millisecond,
				Settle: 50 * time.Millisecond},
		}
		if err := cloudcontroller.SetupWithManager(ctx, mgr, opts); err != nil {
			return err
		}
		return externalentity.SetupWithManager(mgr, externalentity.Options{})
	})
}

func newManager(t *testing.T, cacheOpts cache.Options) ctrl.Manager {
	t.Helper()
	s, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(clusters.Config(t, "member-1"), ctrl.Options{
		Scheme: s, Cache: cacheOpts, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return mgr
}

// run sets mgr up and runs it until the test ends.
func run(t *testing.T, mgr ctrl.Manager, setup func(ctx context.Context) error) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	if err := setup(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return ctx
}

func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// eventually is framework.Eventually with the test's timeout and a
// formatted error.
func eventually(t *testing.T, check func() error) {
	t.Helper()
	framework.Eventually(t, timeout, check)
}
