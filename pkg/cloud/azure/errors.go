package azure

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// authCodes are the ARM error codes of refused or insufficient credentials.
var authCodes = map[string]bool{
	"InvalidAuthenticationToken":       true,
	"InvalidAuthenticationTokenTenant": true,
	"ExpiredAuthenticationToken":       true,
	"AuthenticationFailed":             true,
	"AuthorizationFailed":              true,
	"SubscriptionNotFound":             true,
}

// classify wraps err, from what in region, with the provider error it is.
func classify(err error, what, region string) error {
	if err == nil {
		return nil
	}
	err = fmt.Errorf("%s for %s: %w", what, region, err)
	var authErr *azidentity.AuthenticationFailedError
	if errors.As(err, &authErr) {
		return fmt.Errorf("%w: %w", provider.ErrAuthentication, err)
	}
	var resp *azcore.ResponseError
	if errors.As(err, &resp) {
		switch {
		case authCodes[resp.ErrorCode], resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden:
			return fmt.Errorf("%w: %w", provider.ErrAuthentication, err)
		case resp.StatusCode == http.StatusTooManyRequests:
			return fmt.Errorf("%w: %w", provider.ErrThrottled, err)
		}
	}
	return err
}
