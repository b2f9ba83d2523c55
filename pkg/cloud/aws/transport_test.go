package aws_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

func newServer(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Without buffered request bodies the SDK and net/http race and close the
// connection under a response every few calls against a fast server. No
// retries here, so one lost race fails the test.
func TestBufferedBodiesKeepConnectionsSound(t *testing.T) {
	f := newFixture(t, 1)
	f.addVMs(t, 40, awsemu.InstanceSpec{}) // responses of tens of KB
	c := ec2.New(ec2.Options{
		Region:           region,
		BaseEndpoint:     awssdk.String(f.url),
		Credentials:      credentials.NewStaticCredentialsProvider(keyID, secret, ""),
		RetryMaxAttempts: 1,
		HTTPClient:       aws.NewHTTPClient(),
	})
	for n := range 300 {
		if _, err := c.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{}); err != nil {
			t.Fatalf("call %d: %v", n, err)
		}
	}
}
