package accountprovider

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/azure"
)

// Options tune the providers built for every account.
type Options struct {
	// RootCAs are the CAs trusted for cloud endpoints; nil trusts the
	// system's. Set it to reach an endpoint with a private CA, such as the
	// development emulator.
	RootCAs *x509.CertPool
	// AllowCrossNamespaceSecrets lets an account use a Secret outside its
	// own namespace.
	AllowCrossNamespaceSecrets bool
	// AWS call tuning; zero values take the provider's defaults.
	AWSMaxAttempts int
	AWSMaxBackoff  time.Duration
	AWSPageSize    int32
	// AWSRoleDuration and AWSRoleRefreshWindow tune the credentials of
	// roles assumed through STS (spec.aws.credentials.assumeRole); zero
	// values take the provider's defaults (15 minutes, renewed 3 minutes
	// before they expire).
	AWSRoleDuration      time.Duration
	AWSRoleRefreshWindow time.Duration
	// AWSResolver resolves RDS endpoint names; nil uses the system's DNS.
	AWSResolver aws.Resolver
	// Azure call tuning; zero values take the provider's defaults.
	AzureMaxRetries    int32
	AzureRetryDelay    time.Duration
	AzureMaxRetryDelay time.Duration
	// UserAgent, if set, is appended to the User-Agent of every cloud
	// call (the controller sends "antreaplus-replica/<replica>", so that a
	// cloud's logs tell which replica polled an account).
	UserAgent string
}

// Reasons of a ConfigError besides the API's SecretNotFound and
// SecretKeyMissing.
const (
	ReasonSecretNamespaceNotAllowed = "SecretNamespaceNotAllowed"
	ReasonUnsupported               = "Unsupported"
)

// ConfigError says why an account's provider cannot be built. Its message
// names Secrets and keys, never values.
type ConfigError struct {
	Reason  string
	Message string
}

func (e *ConfigError) Error() string { return e.Message }

// Config is what an account's provider is built from.
type Config struct {
	Provider cloudv1alpha1.CloudProvider
	AWS      aws.Options
	Azure    azure.Options
	// Fingerprint changes whenever anything the provider is built from does.
	Fingerprint string
	roots       *x509.CertPool
	userAgent   string
}

// String never shows credentials.
func (c Config) String() string {
	if c.Provider == cloudv1alpha1.ProviderAzure {
		return fmt.Sprintf("Azure%s", c.Azure)
	}
	return fmt.Sprintf("AWS%s", c.AWS)
}

// Read reads the account's Secret through r (best an uncached reader, so
// that Secrets are not cached) and returns the provider's configuration.
func Read(ctx context.Context, r client.Reader, acct *cloudv1alpha1.CloudProviderAccount, opts Options) (Config, error) {
	switch {
	case acct.Spec.Provider == cloudv1alpha1.ProviderAWS && acct.Spec.AWS != nil:
		return readAWS(ctx, r, acct, opts)
	case acct.Spec.Provider == cloudv1alpha1.ProviderAzure && acct.Spec.Azure != nil:
		return readAzure(ctx, r, acct, opts)
	}
	return Config{}, &ConfigError{Reason: ReasonUnsupported, Message: fmt.Sprintf("provider %q without its spec.%s configuration is not supported", acct.Spec.Provider, acct.Spec.Provider)}
}

func readAWS(ctx context.Context, r client.Reader, acct *cloudv1alpha1.CloudProviderAccount, opts Options) (Config, error) {
	spec := acct.Spec.AWS
	sec, err := secret(ctx, r, acct, spec.Credentials.SecretRef, opts)
	if err != nil {
		return Config{}, err
	}
	keys := []cloudv1alpha1.SecretKey{
		cmp.Or(spec.Credentials.AccessKeyIDKey, "accessKeyID"),
		cmp.Or(spec.Credentials.SecretAccessKeyKey, "secretAccessKey"),
	}
	if spec.Credentials.SessionTokenKey != "" {
		keys = append(keys, spec.Credentials.SessionTokenKey)
	}
	vals, err := values(sec, keys)
	if err != nil {
		return Config{}, err
	}
	vals = append(vals, "")
	cfg := Config{Provider: cloudv1alpha1.ProviderAWS, roots: opts.RootCAs, userAgent: opts.UserAgent, AWS: aws.Options{
		AccessKeyID: vals[0], SecretAccessKey: vals[1], SessionToken: vals[2], Endpoint: spec.Endpoint,
		MaxAttempts: opts.AWSMaxAttempts, MaxBackoff: opts.AWSMaxBackoff, PageSize: opts.AWSPageSize,
		Resolver: opts.AWSResolver,
	}}
	parts := []string{"AWS", spec.Endpoint, vals[0], vals[1], vals[2]}
	if r := spec.Credentials.AssumeRole; r != nil {
		// The role's credentials are fetched, cached and renewed by the
		// provider; a changed role, external id or session name rebuilds it.
		cfg.AWS.AssumeRole = &aws.AssumeRole{RoleARN: r.RoleARN, ExternalID: r.ExternalID, SessionName: r.SessionName,
			Duration: opts.AWSRoleDuration, RefreshWindow: opts.AWSRoleRefreshWindow}
		parts = append(parts, r.RoleARN, r.ExternalID, r.SessionName)
	}
	cfg.Fingerprint = fingerprint(parts...)
	return cfg, nil
}

func readAzure(ctx context.Context, r client.Reader, acct *cloudv1alpha1.CloudProviderAccount, opts Options) (Config, error) {
	spec := acct.Spec.Azure
	sec, err := secret(ctx, r, acct, spec.Credentials.SecretRef, opts)
	if err != nil {
		return Config{}, err
	}
	vals, err := values(sec, []cloudv1alpha1.SecretKey{
		cmp.Or(spec.Credentials.SubscriptionIDKey, "subscriptionID"),
		cmp.Or(spec.Credentials.TenantIDKey, "tenantID"),
		cmp.Or(spec.Credentials.ClientIDKey, "clientID"),
		cmp.Or(spec.Credentials.ClientSecretKey, "clientSecret"),
	})
	if err != nil {
		return Config{}, err
	}
	cfg := Config{Provider: cloudv1alpha1.ProviderAzure, roots: opts.RootCAs, userAgent: opts.UserAgent, Azure: azure.Options{
		SubscriptionID: vals[0], TenantID: vals[1], ClientID: vals[2], ClientSecret: vals[3],
		Endpoint: spec.Endpoint, AuthorityHost: spec.AuthorityHost,
		MaxRetries: opts.AzureMaxRetries, RetryDelay: opts.AzureRetryDelay, MaxRetryDelay: opts.AzureMaxRetryDelay,
	}}
	cfg.Fingerprint = fingerprint("Azure", spec.Endpoint, spec.AuthorityHost, vals[0], vals[1], vals[2], vals[3])
	return cfg, nil
}

func secret(ctx context.Context, r client.Reader, acct *cloudv1alpha1.CloudProviderAccount, ref cloudv1alpha1.SecretReference, opts Options) (*corev1.Secret, error) {
	ns := cmp.Or(ref.Namespace, acct.Namespace)
	if ns != acct.Namespace && !opts.AllowCrossNamespaceSecrets {
		return nil, &ConfigError{Reason: ReasonSecretNamespaceNotAllowed, Message: fmt.Sprintf(
			"Secret %s/%s is outside the account's namespace %s, which this cloud controller does not allow", ns, ref.Name, acct.Namespace)}
	}
	sec := &corev1.Secret{}
	err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.Name}, sec)
	switch {
	case apierrors.IsNotFound(err):
		return nil, &ConfigError{Reason: cloudv1alpha1.AccountReasonSecretNotFound, Message: fmt.Sprintf("Secret %s/%s not found", ns, ref.Name)}
	case err != nil:
		return nil, fmt.Errorf("reading Secret %s/%s: %w", ns, ref.Name, err)
	}
	return sec, nil
}

// values returns the Secret's values of keys, in order.
func values(sec *corev1.Secret, keys []cloudv1alpha1.SecretKey) ([]string, error) {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		v, ok := sec.Data[string(k)]
		if !ok || len(v) == 0 {
			return nil, &ConfigError{Reason: cloudv1alpha1.AccountReasonSecretKeyMissing,
				Message: fmt.Sprintf("Secret %s/%s has no key %q (or it is empty)", sec.Namespace, sec.Name, k)}
		}
		out = append(out, string(v))
	}
	return out, nil
}

// fingerprint hashes the parts, so that credentials are compared without
// being kept twice.
func fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}
