package awsemu_test

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go"

	cloudaws "antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

const (
	testKeyID  = "AKIDTESTEXAMPLE"
	testSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	testRegion = "us-east-1"
)

// newEmulator starts an emulator behind httptest and returns it with an
// EC2 client of the real SDK that does not retry, so faults surface as is.
func newEmulator(t *testing.T, opts awsemu.Options) (*awsemu.Server, *ec2.Client) {
	t.Helper()
	if opts.Credentials == nil {
		opts.Credentials = []awsemu.Credential{{AccessKeyID: testKeyID, SecretAccessKey: testSecret}}
	}
	emu := awsemu.New(opts)
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	return emu, newClient(srv.URL, testKeyID, testSecret, "")
}

func newClient(endpoint, keyID, secret, token string) *ec2.Client {
	return ec2.New(ec2.Options{
		Region:           testRegion,
		BaseEndpoint:     aws.String(endpoint),
		Credentials:      credentials.NewStaticCredentialsProvider(keyID, secret, token),
		RetryMaxAttempts: 1,
		HTTPClient:       cloudaws.NewHTTPClient(), // see its doc: a fast server trips an SDK race otherwise
	})
}

// apiCode returns the EC2 error code of err, or "" if it has none.
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := apiCode(err); got != code {
		t.Fatalf("error = %v; want code %s", err, code)
	}
}

func mustVPC(t *testing.T, emu *awsemu.Server, spec awsemu.VPCSpec) string {
	t.Helper()
	if spec.Region == "" {
		spec.Region = testRegion
	}
	id, err := emu.AddVPC(spec)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustInstance(t *testing.T, emu *awsemu.Server, spec awsemu.InstanceSpec) awsemu.Instance {
	t.Helper()
	if spec.Region == "" {
		spec.Region = testRegion
	}
	vm, err := emu.AddInstance(spec)
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

// allInstances pages through DescribeInstances and returns the ids seen.
func allInstances(t *testing.T, c *ec2.Client, in *ec2.DescribeInstancesInput) ([]string, error) {
	t.Helper()
	var ids []string
	p := ec2.NewDescribeInstancesPaginator(c, in)
	for p.HasMorePages() {
		out, err := p.NextPage(t.Context())
		if err != nil {
			return ids, err
		}
		for _, r := range out.Reservations {
			for _, i := range r.Instances {
				ids = append(ids, aws.ToString(i.InstanceId))
			}
		}
	}
	return ids, nil
}
