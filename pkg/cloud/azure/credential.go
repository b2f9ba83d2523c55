package azure

import (
	"context"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// StaticToken is a TokenCredential that always returns the same bearer
// token, valid for a day from each request: for tests and emulators, or a
// token obtained elsewhere.
type StaticToken string

var _ azcore.TokenCredential = StaticToken("")

// GetToken returns the token.
func (t StaticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: string(t), ExpiresOn: time.Now().Add(24 * time.Hour)}, nil
}
