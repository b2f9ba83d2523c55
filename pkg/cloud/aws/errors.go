package aws

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// regionCode is the shape of an AWS region code, e.g. us-east-1 or
// us-gov-west-1.
var regionCode = regexp.MustCompile(`^[a-z]{2,}(-[a-z]+)+-[0-9]+$`)

// authCodes are the error codes AWS answers when it refuses credentials.
var authCodes = map[string]bool{
	"AuthFailure":                true,
	"UnauthorizedOperation":      true,
	"InvalidClientTokenId":       true,
	"SignatureDoesNotMatch":      true,
	"IncompleteSignature":        true,
	"MissingAuthenticationToken": true,
	"ExpiredToken":               true,
	"ExpiredTokenException":      true,
	"RequestExpired":             true,
}

// expiredCodes are the codes of calls signed with expired temporary
// credentials: EC2's and the other services'.
var expiredCodes = map[string]bool{"RequestExpired": true, "ExpiredToken": true, "ExpiredTokenException": true}

// classify wraps err, from what of region, with the provider error it is.
func (p *Provider) classify(err error, what, region string) error {
	if err == nil {
		return nil
	}
	var role *AssumeRoleError
	if errors.As(err, &role) {
		// The SDK's text around it repeats the operation twice; the role's
		// error says what matters.
		err = fmt.Errorf("%s in %s: %w", what, region, role)
	} else {
		err = fmt.Errorf("%s in %s: %w", what, region, err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	status := 0
	var resp *smithyhttp.ResponseError
	if errors.As(err, &resp) {
		status = resp.HTTPStatusCode()
	}
	var api smithy.APIError
	if !errors.As(err, &api) || !knownCode(api.ErrorCode()) {
		if status == http.StatusUnauthorized || status == http.StatusForbidden {
			// Whatever answered (a proxy, a VPC endpoint, a third-party
			// implementation) refused the call in a form the SDK cannot
			// read: a refusal of the credentials all the same, said the
			// same way every time.
			return fmt.Errorf("%w: %s in %s: HTTP %d (the answer's error code could not be read)", provider.ErrAuthentication, what, region, status)
		}
	}
	if errors.As(err, &api) {
		code, msg := api.ErrorCode(), api.ErrorMessage()
		if expiredCodes[code] && role == nil {
			// The cloud says the credentials expired while the cache
			// thought them valid (a clock apart): fetch new ones next time.
			p.creds.Invalidate()
		}
		switch {
		case role != nil && isThrottle(code):
			return fmt.Errorf("%w: %w", provider.ErrThrottled, err)
		case role != nil:
			return fmt.Errorf("%w: %w", provider.ErrAuthentication, err)
		case code == "OptInRequired", authCodes[code] && strings.Contains(msg, "valid region"):
			return fmt.Errorf("%w: %w", provider.ErrRegionUnavailable, err)
		case authCodes[code]:
			return fmt.Errorf("%w: %w", provider.ErrAuthentication, err)
		case isThrottle(code):
			return fmt.Errorf("%w: %w", provider.ErrThrottled, err)
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			// AccessDenied and kin: refused, whatever the code.
			return fmt.Errorf("%w: %w", provider.ErrAuthentication, err)
		}
		return err
	}
	var dns *net.DNSError
	if p.opts.Endpoint == "" && errors.As(err, &dns) && dns.IsNotFound {
		// ec2.<region>.amazonaws.com does not exist.
		return fmt.Errorf("%w: %w", provider.ErrRegionUnavailable, err)
	}
	return err
}

// knownCode reports whether an error code is one a service sends, rather
// than what the SDK makes up when it cannot read the answer.
func knownCode(code string) bool {
	return code != "" && code != "UnknownError" && code != "Unknown"
}

func isThrottle(code string) bool {
	_, ok := retry.DefaultThrottleErrorCodes[code]
	return ok
}

func checkRegion(region string) error {
	if !regionCode.MatchString(region) {
		return fmt.Errorf("%w: %q is not an AWS region code", provider.ErrRegionUnavailable, region)
	}
	return nil
}
