package awsemu

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const sigV4Algorithm = "AWS4-HMAC-SHA256"

// sigV4Auth is a parsed SigV4 Authorization header.
type sigV4Auth struct {
	accessKeyID   string
	date          string // yyyymmdd of the credential scope
	region        string
	service       string
	signedHeaders []string
	signature     string
}

// parseSigV4 parses "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/ec2/aws4_request,
// SignedHeaders=host;x-amz-date, Signature=hex".
func parseSigV4(header string) (sigV4Auth, bool) {
	var a sigV4Auth
	rest, ok := strings.CutPrefix(header, sigV4Algorithm+" ")
	if !ok {
		return a, false
	}
	for part := range strings.SplitSeq(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			scope := strings.Split(v, "/")
			if len(scope) != 5 || scope[4] != "aws4_request" {
				return a, false
			}
			a.accessKeyID, a.date, a.region, a.service = scope[0], scope[1], scope[2], scope[3]
		case "SignedHeaders":
			a.signedHeaders = strings.Split(v, ";")
		case "Signature":
			a.signature = v
		}
	}
	return a, a.accessKeyID != "" && a.signature != "" && len(a.signedHeaders) > 0
}

// caller is who signed a request, and for which region.
type caller struct {
	region      string
	accessKeyID string
	// session is the temporary credential used, nil for a long-term key.
	session *session
}

// authenticate checks the request's SigV4 signature against the configured
// credentials and the temporary ones AssumeRole issued, and returns the
// caller and the service signed for.
func (s *Server) authenticate(r *http.Request, body []byte) (caller, *service, *apiError) {
	auth, ok := parseSigV4(r.Header.Get("Authorization"))
	svc, known := serviceNamed(auth.service)
	if !ok {
		return caller{}, svc, svc.authError(authUnknownKey)
	}
	if !known {
		return caller{}, svc, errClient("UnknownService", "The emulator does not serve the AWS service %q", auth.service)
	}
	cred, sess := s.credential(auth.accessKeyID)
	switch {
	case cred == nil:
		return caller{}, svc, svc.authError(authUnknownKey)
	case cred.SessionToken != "" && r.Header.Get("X-Amz-Security-Token") != cred.SessionToken:
		return caller{}, svc, svc.authError(authUnknownKey)
	}
	want := signature(cred.SecretAccessKey, auth, stringToSign(r, body, auth))
	if !hmac.Equal([]byte(want), []byte(auth.signature)) {
		return caller{}, svc, svc.authError(authBadSignature)
	}
	if sess != nil && !time.Now().Before(sess.expires) {
		return caller{}, svc, svc.authError(authExpired)
	}
	return caller{region: auth.region, accessKeyID: auth.accessKeyID, session: sess}, svc, nil
}

// credential finds an access key: a configured one, or a temporary one
// with its session.
func (s *Server) credential(accessKeyID string) (*Credential, *session) {
	for i := range s.opts.Credentials {
		if s.opts.Credentials[i].AccessKeyID == accessKeyID {
			return &s.opts.Credentials[i], nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess := s.sessions[accessKeyID]; sess != nil {
		cp := *sess // a copy: ExpireSessions may change the original
		return &cp.cred, &cp
	}
	return nil, nil
}

func stringToSign(r *http.Request, body []byte, auth sigV4Auth) string {
	var canon strings.Builder
	canon.WriteString(r.Method + "\n")
	uri := r.URL.EscapedPath()
	if uri == "" {
		uri = "/"
	}
	canon.WriteString(uri + "\n")
	canon.WriteString(strings.ReplaceAll(r.URL.Query().Encode(), "+", "%20") + "\n")
	for _, h := range auth.signedHeaders {
		canon.WriteString(h + ":" + headerValue(r, h) + "\n")
	}
	canon.WriteString("\n" + strings.Join(auth.signedHeaders, ";") + "\n")
	canon.WriteString(sha256Hex(body))

	scope := strings.Join([]string{auth.date, auth.region, auth.service, "aws4_request"}, "/")
	return strings.Join([]string{sigV4Algorithm, r.Header.Get("X-Amz-Date"), scope, sha256Hex([]byte(canon.String()))}, "\n")
}

// headerValue is a signed header's canonical value.
func headerValue(r *http.Request, name string) string {
	switch name {
	case "host":
		return r.Host
	case "content-length":
		return strconv.FormatInt(r.ContentLength, 10)
	}
	values := r.Header.Values(name)
	for i, v := range values {
		values[i] = strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(values, ",")
}

func signature(secret string, auth sigV4Auth, toSign string) string {
	key := hmacSHA256([]byte("AWS4"+secret), auth.date)
	key = hmacSHA256(key, auth.region)
	key = hmacSHA256(key, auth.service)
	key = hmacSHA256(key, "aws4_request")
	return hex.EncodeToString(hmacSHA256(key, toSign))
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
