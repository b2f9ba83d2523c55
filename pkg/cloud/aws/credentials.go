package aws

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
)

// credentialsOf returns the cached credentials every call signs with: the
// static ones of opts, or those of the role they assume. The role's are
// renewed RefreshWindow before they expire, by the first call that needs
// them; calls meanwhile wait for that one AssumeRole.
func credentialsOf(opts Options, retryer func() aws.Retryer) *aws.CredentialsCache {
	static := aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(opts.AccessKeyID, opts.SecretAccessKey, opts.SessionToken))
	role := opts.AssumeRole
	if role == nil {
		return static
	}
	stsOpts := sts.Options{Region: role.STSRegion, Credentials: static, HTTPClient: opts.HTTPClient, Retryer: retryer()}
	if opts.Endpoint != "" {
		stsOpts.BaseEndpoint = aws.String(opts.Endpoint)
	}
	assume := stscreds.NewAssumeRoleProvider(sts.New(stsOpts), role.RoleARN, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = role.SessionName
		o.Duration = role.Duration
		if role.ExternalID != "" {
			o.ExternalID = aws.String(role.ExternalID)
		}
	})
	return aws.NewCredentialsCache(assumedRole{role: role, next: assume}, func(o *aws.CredentialsCacheOptions) {
		o.ExpiryWindow = role.RefreshWindow
	})
}

// assumedRole marks the errors of assuming the role, so that they are told
// apart from the errors of the calls made with its credentials.
type assumedRole struct {
	role *AssumeRole
	next aws.CredentialsProvider
}

func (a assumedRole) Retrieve(ctx context.Context) (aws.Credentials, error) {
	c, err := a.next.Retrieve(ctx)
	if err != nil {
		return c, &AssumeRoleError{RoleARN: a.role.RoleARN, ExternalID: a.role.ExternalID != "", Err: err}
	}
	return c, nil
}

// AssumeRoleError says that the role could not be assumed.
type AssumeRoleError struct {
	RoleARN string
	// ExternalID tells whether an external id was sent (never which).
	ExternalID bool
	Err        error
}

func (e *AssumeRoleError) Error() string {
	with := "without an external id"
	if e.ExternalID {
		with = "with the configured external id"
	}
	cause := e.Err.Error()
	var api smithy.APIError
	if errors.As(e.Err, &api) {
		cause = api.ErrorCode() + ": " + api.ErrorMessage()
	}
	msg := fmt.Sprintf("cannot assume role %s %s: %s", e.RoleARN, with, cause)
	if api != nil && api.ErrorCode() == "AccessDenied" {
		msg += " (the role's trust policy must allow these credentials sts:AssumeRole and, if it requires one, the same external id)"
	}
	return msg
}

func (e *AssumeRoleError) Unwrap() error { return e.Err }
