package aws

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Options configure the AWS provider of one account.
type Options struct {
	// AccessKeyID and SecretAccessKey are static credentials; required.
	AccessKeyID     string
	SecretAccessKey string
	// SessionToken, for temporary credentials.
	SessionToken string
	// AssumeRole, if set, makes every call with the credentials of this IAM
	// role, assumed through STS with the credentials above.
	AssumeRole *AssumeRole

	// Endpoint overrides the endpoint of every service (EC2, ELBv2, RDS,
	// STS) in every region (the SDK's BaseEndpoint), e.g. a local emulator.
	// Empty uses the regional AWS endpoints, e.g.
	// https://ec2.<region>.amazonaws.com.
	Endpoint string
	// HTTPClient sends the requests; default NewHTTPClient().
	HTTPClient *http.Client

	// MaxAttempts is the most attempts of one API call, the first included,
	// when the cloud throttles or fails transiently. Default 5.
	MaxAttempts int
	// MaxBackoff caps the jittered exponential wait between attempts.
	// Default 20s.
	MaxBackoff time.Duration
	// PageSize is the MaxResults of every EC2 describe, 5 to 1000. Default
	// 1000. ELBv2 pages take at most 400, RDS pages 20 to 100.
	PageSize int32

	// Resolver resolves the endpoint names of RDS DB instances, which the
	// RDS API gives without addresses; default net.DefaultResolver.
	Resolver Resolver

	// RulesPerGroup and GroupsPerInterface are the account's EC2 quotas
	// (rules per security group and direction, security groups per network
	// interface) that SyncSecurityGroups plans within. Default 60 and 5,
	// the AWS defaults.
	RulesPerGroup      int
	GroupsPerInterface int
}

// AssumeRole is an IAM role to assume through STS AssumeRole.
type AssumeRole struct {
	// RoleARN is the role's ARN; required.
	RoleARN string
	// ExternalID is the external id the role's trust policy requires, if
	// any.
	ExternalID string
	// SessionName is the role session name; default
	// antreaplus-cloud-controller.
	SessionName string
	// Duration is the lifetime asked for the role's credentials; default
	// 15 minutes (STS's minimum), at most the role's maximum session
	// duration.
	Duration time.Duration
	// RefreshWindow: the role's credentials are renewed this long before
	// they expire. Default 3 minutes; it must be shorter than Duration.
	RefreshWindow time.Duration
	// STSRegion is the region of the STS endpoint; default us-east-1.
	STSRegion string
}

// Resolver resolves host names; *net.Resolver is one.
type Resolver interface {
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// String never shows the secret parts (the secret access key, the session
// token, the external id), so Options can be logged.
func (o Options) String() string {
	role := ""
	if o.AssumeRole != nil {
		role = fmt.Sprintf(" AssumeRole:%s", o.AssumeRole.RoleARN)
	}
	return fmt.Sprintf("{AccessKeyID:%s%s Endpoint:%q MaxAttempts:%d MaxBackoff:%s PageSize:%d}",
		redact(o.AccessKeyID), role, o.Endpoint, o.MaxAttempts, o.MaxBackoff, o.PageSize)
}

// GoString is String, for %#v.
func (o Options) GoString() string { return o.String() }

// redact keeps the first four characters of an access key id (its type,
// e.g. AKIA or ASIA), which is enough to tell keys apart in logs.
func redact(id string) string {
	if len(id) <= 4 {
		return "****"
	}
	return id[:4] + "****"
}

func (o Options) withDefaults() (Options, error) {
	if o.AccessKeyID == "" || o.SecretAccessKey == "" {
		return o, errors.New("AWS provider: access key id and secret access key are required")
	}
	if o.PageSize == 0 {
		o.PageSize = 1000
	}
	if o.PageSize < 5 || o.PageSize > 1000 {
		return o, fmt.Errorf("AWS provider: page size %d is outside EC2's 5..1000", o.PageSize)
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = 5
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 20 * time.Second
	}
	if o.RulesPerGroup == 0 {
		o.RulesPerGroup = 60
	}
	if o.GroupsPerInterface == 0 {
		o.GroupsPerInterface = 5
	}
	if o.HTTPClient == nil {
		o.HTTPClient = NewHTTPClient()
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.AssumeRole != nil {
		r := *o.AssumeRole
		if r.RoleARN == "" {
			return o, errors.New("AWS provider: the role to assume has no ARN")
		}
		r.SessionName = cmp.Or(r.SessionName, "antreaplus-cloud-controller")
		r.Duration = cmp.Or(r.Duration, 15*time.Minute)
		r.RefreshWindow = cmp.Or(r.RefreshWindow, 3*time.Minute)
		r.STSRegion = cmp.Or(r.STSRegion, "us-east-1")
		if r.RefreshWindow >= r.Duration {
			return o, fmt.Errorf("AWS provider: refresh window %s is not shorter than the role session's %s", r.RefreshWindow, r.Duration)
		}
		o.AssumeRole = &r
	}
	return o, nil
}
