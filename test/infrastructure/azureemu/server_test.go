package azureemu_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

type env struct {
	emu *azureemu.Server
	srv *httptest.Server
}

func newEnv(t *testing.T, opts azureemu.Options) env {
	t.Helper()
	opts.Clients = []azureemu.Client{{ClientID: "app", Secret: "s3cret"}}
	opts.StaticTokens = []string{"tok"}
	emu := azureemu.New(opts)
	srv := httptest.NewTLSServer(emu)
	t.Cleanup(srv.Close)
	return env{emu, srv}
}

// get does a GET with a bearer token and decodes the JSON answer.
func (e env) get(t *testing.T, path, token string) (int, http.Header, map[string]any) {
	t.Helper()
	u := path
	if !strings.HasPrefix(path, "https://") {
		u = e.srv.URL + path
	}
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return e.do(t, req)
}

func (e env) do(t *testing.T, req *http.Request) (int, http.Header, map[string]any) {
	t.Helper()
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("answer is not JSON: %s", body)
	}
	return resp.StatusCode, resp.Header, doc
}

func errorCode(doc map[string]any) string {
	e, _ := doc["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func (e env) subPath(rest string) string {
	return "/subscriptions/" + e.emu.SubscriptionID() + rest
}

func TestTokenEndpoint(t *testing.T) {
	e := newEnv(t, azureemu.Options{})
	status, _, cfg := e.get(t, "/"+e.emu.TenantID()+"/v2.0/.well-known/openid-configuration", "")
	if status != 200 || cfg["issuer"] != e.srv.URL+"/"+e.emu.TenantID()+"/v2.0" || cfg["token_endpoint"] == nil {
		t.Fatalf("openid configuration: %d %v", status, cfg)
	}
	for _, tc := range []struct {
		name, client, secret, grant string
		status                      int
		want                        string
	}{
		{"ok", "app", "s3cret", "client_credentials", 200, ""},
		{"wrong secret", "app", "nope", "client_credentials", 401, "invalid_client"},
		{"unknown client", "other", "s3cret", "client_credentials", 400, "unauthorized_client"},
		{"wrong grant", "app", "s3cret", "password", 400, "unsupported_grant_type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := url.Values{"client_id": {tc.client}, "client_secret": {tc.secret}, "grant_type": {tc.grant}, "scope": {e.srv.URL + "/.default openid"}}
			req, _ := http.NewRequest(http.MethodPost, cfg["token_endpoint"].(string), strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			status, _, doc := e.do(t, req)
			if status != tc.status || (tc.want != "" && doc["error"] != tc.want) {
				t.Fatalf("%d %v; want %d %s", status, doc, tc.status, tc.want)
			}
			if tc.want == "" {
				token, _ := doc["access_token"].(string)
				if status, _, _ := e.get(t, e.subPath("/locations?api-version=2022-12-01"), token); status != 200 {
					t.Errorf("issued token refused: %d", status)
				}
				e.emu.RevokeTokens()
				if status, _, _ := e.get(t, e.subPath("/locations?api-version=2022-12-01"), token); status != 401 {
					t.Errorf("revoked token accepted: %d", status)
				}
			}
		})
	}
}

func TestARMErrors(t *testing.T) {
	e := newEnv(t, azureemu.Options{})
	for _, tc := range []struct {
		name, path, token string
		status            int
		code              string
	}{
		{"no token", e.subPath("/providers/Microsoft.Network/virtualNetworks?api-version=2025-01-01"), "", 401, "InvalidAuthenticationToken"},
		{"unknown subscription", "/subscriptions/other/providers/Microsoft.Network/virtualNetworks?api-version=2025-01-01", "tok", 404, "SubscriptionNotFound"},
		{"no api-version", e.subPath("/providers/Microsoft.Network/virtualNetworks"), "tok", 400, "MissingApiVersionParameter"},
		{"unknown type", e.subPath("/providers/Microsoft.Network/virtualNetworkTaps?api-version=2025-01-01"), "tok", 404, "InvalidResourceType"},
		{"bad skip token", e.subPath("/providers/Microsoft.Network/virtualNetworks?api-version=2025-01-01&$skiptoken=%25%25"), "tok", 400, "InvalidSkipToken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, doc := e.get(t, tc.path, tc.token)
			if status != tc.status || errorCode(doc) != tc.code {
				t.Fatalf("%d %v; want %d %s", status, doc, tc.status, tc.code)
			}
		})
	}
}

func TestPagingByNextLink(t *testing.T) {
	e := newEnv(t, azureemu.Options{PageSize: 2})
	for n := range 5 {
		if _, err := e.emu.AddVNet(azureemu.VNetSpec{Location: "eastus", Name: fmt.Sprint("v", n)}); err != nil {
			t.Fatal(err)
		}
	}
	next := e.subPath("/providers/Microsoft.Network/virtualNetworks?api-version=2025-01-01")
	var names []string
	pages := 0
	for next != "" {
		status, _, doc := e.get(t, next, "tok")
		if status != 200 {
			t.Fatalf("page %d: %d %v", pages, status, doc)
		}
		pages++
		for _, v := range doc["value"].([]any) {
			names = append(names, v.(map[string]any)["name"].(string))
		}
		next, _ = doc["nextLink"].(string)
	}
	if pages != 3 || strings.Join(names, ",") != "v0,v1,v2,v3,v4" {
		t.Errorf("%d pages: %v", pages, names)
	}
	if got := e.emu.Calls("VirtualNetworks.ListAll"); got != 3 {
		t.Errorf("calls = %d", got)
	}
}

func TestThrottleHeaders(t *testing.T) {
	e := newEnv(t, azureemu.Options{})
	path := e.subPath("/providers/Microsoft.Network/virtualNetworks?api-version=2025-01-01")
	e.emu.Throttle("", 1, 250*time.Millisecond)
	status, h, doc := e.get(t, path, "tok")
	if status != 429 || errorCode(doc) != "TooManyRequests" || h.Get("retry-after-ms") != "250" {
		t.Errorf("%d %v %v", status, h, doc)
	}
	e.emu.Throttle("VirtualNetworks.ListAll", 1, 3*time.Second)
	if status, h, _ := e.get(t, path, "tok"); status != 429 || h.Get("Retry-After") != "3" {
		t.Errorf("%d %v", status, h)
	}
	if status, _, _ := e.get(t, path, "tok"); status != 200 {
		t.Errorf("after the faults: %d", status)
	}
}
