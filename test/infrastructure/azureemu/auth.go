package azureemu

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"time"
)

func requestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// baseURL is the scheme and host the client reached the emulator at.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// serveOpenIDConfiguration is the tenant discovery document MSAL reads
// before it requests a token.
func (s *Server) serveOpenIDConfiguration(w http.ResponseWriter, r *http.Request) {
	s.before("OpenIDConfiguration")
	base := baseURL(r) + "/" + s.opts.TenantID
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                 base + "/v2.0",
		"token_endpoint":         base + "/oauth2/v2.0/token",
		"authorization_endpoint": base + "/oauth2/v2.0/authorize",
		"jwks_uri":               base + "/discovery/v2.0/keys",
	})
}

// serveToken is the client credentials grant of the v2.0 token endpoint.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	s.before("Token")
	if err := r.ParseForm(); err != nil || r.Method != http.MethodPost {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "AADSTS900144: The request body must contain a valid form.")
		return
	}
	if g := r.PostForm.Get("grant_type"); g != "client_credentials" {
		writeOAuthError(w, http.StatusBadRequest, "unsupported_grant_type", "AADSTS70003: The app requested an unsupported grant type '"+g+"'.")
		return
	}
	// MSAL adds openid, profile and offline_access to the resource's scope.
	if !slices.ContainsFunc(strings.Fields(r.PostForm.Get("scope")), func(s string) bool { return strings.HasSuffix(s, "/.default") }) {
		writeOAuthError(w, http.StatusBadRequest, "invalid_scope", "AADSTS1002012: The provided value for scope is not valid.")
		return
	}
	id, secret := r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	i := slices.IndexFunc(s.opts.Clients, func(c Client) bool { return c.ClientID == id })
	switch {
	case i < 0:
		writeOAuthError(w, http.StatusBadRequest, "unauthorized_client", "AADSTS700016: Application with identifier '"+id+"' was not found in the directory.")
		return
	case s.opts.Clients[i].Secret != secret:
		writeOAuthError(w, http.StatusUnauthorized, "invalid_client", "AADSTS7000215: Invalid client secret provided.")
		return
	}
	s.countPoll(r, id, "", "Token", false)()
	token := "emu-" + requestID()
	s.mu.Lock()
	s.tokens[token] = issuedToken{expires: time.Now().Add(s.opts.TokenLifetime), clientID: id}
	s.mu.Unlock()
	secs := int(s.opts.TokenLifetime / time.Second)
	writeJSON(w, http.StatusOK, map[string]any{
		"token_type": "Bearer", "access_token": token, "expires_in": secs, "ext_expires_in": secs,
	})
}

func writeOAuthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]any{"error": code, "error_description": desc, "timestamp": time.Now().UTC().Format(time.DateTime)})
}

// issuedToken is an access token the token endpoint issued.
type issuedToken struct {
	expires  time.Time
	clientID string
}

// authorized reports whether the request carries a token the emulator
// issued (and that has not expired) or a configured static token, and
// returns the account of the token: the client id it was issued to, or
// StaticTokenAccount.
func (s *Server) authorized(r *http.Request) (string, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" {
		return "", false
	}
	if i := slices.Index(s.opts.StaticTokens, token); i >= 0 {
		return StaticTokenAccount(i), true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[token]
	return t.clientID, ok && time.Now().Before(t.expires)
}

// RevokeTokens invalidates every token issued so far, as when a service
// principal's secret is rotated; static tokens stay valid.
func (s *Server) RevokeTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
}
