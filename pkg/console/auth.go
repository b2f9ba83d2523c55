package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"antreaplus.io/antreaplus/pkg/console/source"
)

// Viewer is who asks the console.
type Viewer struct {
	Name   string   `json:"name"`
	Groups []string `json:"groups,omitempty"`
	// Denied are the kinds the viewer may not list, with why (the
	// in-cluster console): the views show them as not readable.
	Denied map[string]string `json:"-"`
}

// authenticator decides who asks; when it cannot, it has answered the
// request (401, a redirect) and returns false.
type authenticator interface {
	authenticate(w http.ResponseWriter, r *http.Request) (Viewer, bool)
}

// cookieName is the console's session cookie.
const cookieName = "antreaplus-console"

// localAuth guards the local console: it reads the members with the
// user's own credentials, so anything else on the machine that could
// reach its port would read them too. Every request must carry the
// session's token (the URL the command printed, then an HttpOnly cookie),
// and name the console's own address as its Host (a page of another site
// cannot rebind a name to 127.0.0.1 and read it).
type localAuth struct {
	token string
	// hosts are the Host values accepted ("127.0.0.1:7443", "localhost:7443").
	hosts []string
}

// newToken is a session token: 128 random bits, hex.
func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making the session token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// localHosts are the Host values a browser sends for addr.
func localHosts(addr net.Addr) []string {
	_, port, _ := net.SplitHostPort(addr.String())
	return []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port}
}

func (a localAuth) authenticate(w http.ResponseWriter, r *http.Request) (Viewer, bool) {
	if !hostAllowed(r.Host, a.hosts) {
		http.Error(w, "this console answers to its own address only ("+strings.Join(a.hosts, ", ")+")", http.StatusMisdirectedRequest)
		return Viewer{}, false
	}
	if t := r.URL.Query().Get("token"); t != "" && equal(t, a.token) {
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: a.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q := r.URL.Query()
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return Viewer{}, false
	}
	if c, err := r.Cookie(cookieName); err == nil && equal(c.Value, a.token) {
		return Viewer{Name: "you (your kubeconfig's credentials)"}, true
	}
	if t, ok := bearer(r); ok && equal(t, a.token) {
		return Viewer{Name: "you (your kubeconfig's credentials)"}, true
	}
	unauthorized(w, r, "open the address `antreaplus console` printed: it carries this session's token", false)
	return Viewer{}, false
}

func hostAllowed(host string, hosts []string) bool {
	for _, h := range hosts {
		if strings.EqualFold(host, h) {
			return true
		}
	}
	return false
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// bearer is the request's bearer token.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	t, ok := strings.CutPrefix(h, "Bearer ")
	return strings.TrimSpace(t), ok && strings.TrimSpace(t) != ""
}

// unauthorized answers 401: a page that says how to sign in (with the
// token form when form), or, for the API, the reason.
func unauthorized(w http.ResponseWriter, r *http.Request, why string, form bool) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="antreaplus-console"`)
	if strings.HasPrefix(r.URL.Path, "/api/") {
		http.Error(w, "not signed in: "+why, http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	f := ""
	if form {
		f = signInForm
	}
	fmt.Fprintf(w, signInPage, htmlEscape(why), f)
}

// reviewAuth guards the in-cluster console: the viewer signs in with a
// Kubernetes token of their own (kubectl create token, an OIDC id token),
// which the API server reviews (TokenReview); then what the viewer may
// list is asked of it too (SubjectAccessReview per kind), and the views
// show the others as not readable. Both answers are kept a minute.
type reviewAuth struct {
	cs    kubernetes.Interface
	kinds []source.Kind
	ttl   time.Duration

	mu      sync.Mutex
	reviews map[string]cachedReview
}

type cachedReview struct {
	viewer Viewer
	err    string
	at     time.Time
}

func newReviewAuth(cs kubernetes.Interface, kinds []source.Kind) *reviewAuth {
	return &reviewAuth{cs: cs, kinds: kinds, ttl: time.Minute, reviews: map[string]cachedReview{}}
}

// tokenCookie holds an in-cluster viewer's token (set by POST /login).
const tokenCookie = "antreaplus-console-token"

func (a *reviewAuth) authenticate(w http.ResponseWriter, r *http.Request) (Viewer, bool) {
	token, ok := bearer(r)
	if !ok {
		if c, err := r.Cookie(tokenCookie); err == nil && c.Value != "" {
			token, ok = c.Value, true
		}
	}
	if !ok {
		unauthorized(w, r, "sign in with a Kubernetes token of yours (kubectl create token, or your identity provider's id token)", true)
		return Viewer{}, false
	}
	v, why := a.review(r.Context(), token)
	if why != "" {
		unauthorized(w, r, why, true)
		return Viewer{}, false
	}
	return v, true
}

// review authenticates token and finds the kinds its user may not list.
func (a *reviewAuth) review(ctx context.Context, token string) (Viewer, string) {
	sum := sha256.Sum256([]byte(token))
	key := hex.EncodeToString(sum[:])
	a.mu.Lock()
	if c, ok := a.reviews[key]; ok && time.Since(c.at) < a.ttl {
		a.mu.Unlock()
		return c.viewer, c.err
	}
	a.mu.Unlock()
	c := cachedReview{at: time.Now()}
	tr, err := a.cs.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	switch {
	case err != nil:
		c.err = "the API server could not review the token: " + err.Error()
	case !tr.Status.Authenticated:
		c.err = "the API server did not accept the token"
		if tr.Status.Error != "" {
			c.err += ": " + tr.Status.Error
		}
	default:
		c.viewer = Viewer{Name: tr.Status.User.Username, Groups: tr.Status.User.Groups, Denied: a.denied(ctx, tr.Status.User)}
	}
	a.mu.Lock()
	a.reviews[key] = c
	a.mu.Unlock()
	return c.viewer, c.err
}

// denied are the kinds user may not list in every Namespace (or the one
// the console watches), with the API server's reason.
func (a *reviewAuth) denied(ctx context.Context, user authenticationv1.UserInfo) map[string]string {
	out := map[string]string{}
	extra := map[string]authorizationv1.ExtraValue{}
	for k, v := range user.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	for _, k := range a.kinds {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user.Username, Groups: user.Groups,
			UID: user.UID, Extra: extra, ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "list", Group: k.Group,
				Resource: k.Resource, Namespace: k.Namespace}}}
		got, err := a.cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		switch {
		case err != nil:
			out[k.Name] = "the access review failed: " + err.Error()
		case !got.Status.Allowed:
			why := fmt.Sprintf("%s may not list %s", user.Username, k.Name)
			if got.Status.Reason != "" {
				why += ": " + got.Status.Reason
			}
			out[k.Name] = why
		}
	}
	return out
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;").Replace(s)
}

// signInPage is what an unauthenticated browser gets: why, and (in
// cluster) a form for the token.
const signInPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>AntreaPlus console: sign in</title>
<meta name="color-scheme" content="light dark"><style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem}
textarea{width:100%%;font:14px monospace}button{font:inherit;padding:.4rem 1rem}</style></head>
<body><main><h1>AntreaPlus console</h1><p role="alert">Not signed in: %s.</p>%s
</main></body></html>`

// signInForm asks an in-cluster viewer for a token.
const signInForm = `<form method="post" action="/login"><label for="token">Kubernetes token</label><br>
<textarea id="token" name="token" rows="4" autocomplete="off"></textarea><br><button type="submit">Sign in</button></form>`
