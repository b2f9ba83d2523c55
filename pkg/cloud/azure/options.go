package azure

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// DefaultEndpoint is the Azure Resource Manager of the public cloud.
const DefaultEndpoint = "https://management.azure.com"

// DefaultAuthorityHost is Microsoft Entra ID of the public cloud.
const DefaultAuthorityHost = "https://login.microsoftonline.com/"

// Options configure the Azure provider of one subscription.
type Options struct {
	// SubscriptionID to read; required.
	SubscriptionID string
	// TenantID, ClientID and ClientSecret are the service principal the
	// provider authenticates as, unless Credential is set.
	TenantID     string
	ClientID     string
	ClientSecret string
	// Credential, if set, is used instead of the service principal (e.g.
	// workload identity, or StaticToken in tests).
	Credential azcore.TokenCredential

	// Endpoint overrides the ARM URL; default DefaultEndpoint.
	Endpoint string
	// AuthorityHost overrides the Entra ID URL; default DefaultAuthorityHost.
	AuthorityHost string
	// Transport sends the requests (an *http.Client); default azcore's.
	Transport policy.Transporter

	// MaxRetries of one call on throttling (429, honouring Retry-After) and
	// transient failures. Default 4.
	MaxRetries int32
	// RetryDelay is the base of the exponential backoff; default 800ms.
	RetryDelay time.Duration
	// MaxRetryDelay caps the backoff, and a Retry-After longer than it
	// stops retrying; default 60s.
	MaxRetryDelay time.Duration
	// PollFrequency is how often a long-running write (PUT or DELETE of an
	// NSG, ASG or interface) is polled when ARM sends no Retry-After;
	// default 2s, at least 1s outside tests.
	PollFrequency time.Duration
	// Quotas of agentless enforcement, Azure's defaults when zero:
	// security rules (1000) and address prefixes (4000) per NSG,
	// application security groups referenced per NSG (100) and per IP
	// configuration of an interface (20).
	RulesPerNSG, AddressPrefixesPerNSG, ASGsPerNSG, ASGsPerInterface int
}

// String never shows the client secret, so Options can be logged.
func (o Options) String() string {
	return fmt.Sprintf("{SubscriptionID:%s TenantID:%s ClientID:%s Endpoint:%q AuthorityHost:%q MaxRetries:%d}",
		o.SubscriptionID, o.TenantID, o.ClientID, o.Endpoint, o.AuthorityHost, o.MaxRetries)
}

// GoString is String, for %#v.
func (o Options) GoString() string { return o.String() }

func (o Options) withDefaults() (Options, error) {
	if o.SubscriptionID == "" {
		return o, errors.New("azure provider: subscription id is required")
	}
	if o.Credential == nil && (o.TenantID == "" || o.ClientID == "" || o.ClientSecret == "") {
		return o, errors.New("azure provider: tenant id, client id and client secret are required")
	}
	if o.Endpoint == "" {
		o.Endpoint = DefaultEndpoint
	}
	o.Endpoint = strings.TrimSuffix(o.Endpoint, "/")
	if o.AuthorityHost == "" {
		o.AuthorityHost = DefaultAuthorityHost
	}
	if !strings.HasSuffix(o.AuthorityHost, "/") {
		o.AuthorityHost += "/"
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = 4
	}
	if o.PollFrequency == 0 {
		o.PollFrequency = 2 * time.Second
	}
	o.RulesPerNSG = cmp.Or(o.RulesPerNSG, 1000)
	o.AddressPrefixesPerNSG = cmp.Or(o.AddressPrefixesPerNSG, 4000)
	o.ASGsPerNSG = cmp.Or(o.ASGsPerNSG, 100)
	o.ASGsPerInterface = cmp.Or(o.ASGsPerInterface, 20)
	return o, nil
}

func (o Options) retry() policy.RetryOptions {
	return policy.RetryOptions{MaxRetries: o.MaxRetries, RetryDelay: o.RetryDelay, MaxRetryDelay: o.MaxRetryDelay}
}
