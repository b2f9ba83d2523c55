package azure

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// locationsAPIVersion is the Microsoft.Resources API version of the
// subscription's location list.
const locationsAPIVersion = "2022-12-01"

// checkLocation makes sure region is a location of the subscription. The
// list is read once and again only when a region is not in it, so steady
// polls cost no call.
func (p *Provider) checkLocation(ctx context.Context, region string) error {
	key := normaliseLocation(region)
	p.mu.Lock()
	known := p.locations[key]
	p.mu.Unlock()
	if known {
		return nil
	}
	names, err := p.listLocations(ctx)
	if err != nil {
		return classify(err, "listing locations", region)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, n := range names {
		p.locations[normaliseLocation(n)] = true
	}
	if !p.locations[key] {
		return fmt.Errorf("%w: %q is not a location of subscription %s", provider.ErrRegionUnavailable, region, p.opts.SubscriptionID)
	}
	return nil
}

func normaliseLocation(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, " ", ""))
}

func (p *Provider) listLocations(ctx context.Context) ([]string, error) {
	var names []string
	next := runtime.JoinPaths(p.arm.Endpoint(), "/subscriptions/"+p.opts.SubscriptionID+"/locations") + "?api-version=" + locationsAPIVersion
	for next != "" {
		page, err := p.locationsPage(ctx, next)
		if err != nil {
			return nil, err
		}
		for _, l := range page.Value {
			names = append(names, l.Name)
		}
		next = page.NextLink
	}
	return names, nil
}

type locationsPage struct {
	Value    []struct{ Name string }
	NextLink string
}

func (p *Provider) locationsPage(ctx context.Context, url string) (locationsPage, error) {
	var page locationsPage
	req, err := runtime.NewRequest(ctx, http.MethodGet, url)
	if err != nil {
		return page, err
	}
	resp, err := p.arm.Pipeline().Do(req)
	if err != nil {
		return page, err
	}
	defer func() { _ = resp.Body.Close() }()
	if !runtime.HasStatusCode(resp, http.StatusOK) {
		return page, runtime.NewResponseError(resp)
	}
	err = runtime.UnmarshalAsJSON(resp, &page)
	return page, err
}
