package aws

import (
	"errors"
	"fmt"
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

	// Endpoint overrides the EC2 endpoint of every region (the SDK's
	// BaseEndpoint), e.g. a VPC endpoint or a local emulator. Empty uses
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
	// PageSize is the MaxResults of every describe, 5 to 1000. Default 1000.
	PageSize int32

	// RulesPerGroup and GroupsPerInterface are the account's EC2 quotas
	// (rules per security group and direction, security groups per network
	// interface) that SyncSecurityGroups plans within. Default 60 and 5,
	// the AWS defaults.
	RulesPerGroup      int
	GroupsPerInterface int
}

// String never shows the secret parts, so Options can be logged.
func (o Options) String() string {
	return fmt.Sprintf("{AccessKeyID:%s Endpoint:%q MaxAttempts:%d MaxBackoff:%s PageSize:%d}",
		redact(o.AccessKeyID), o.Endpoint, o.MaxAttempts, o.MaxBackoff, o.PageSize)
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
	return o, nil
}
