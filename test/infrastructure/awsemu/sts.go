package awsemu

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// STS API version and XML namespace.
const (
	STSAPIVersion = "2011-06-15"
	STSNamespace  = "https://sts.amazonaws.com/doc/" + STSAPIVersion + "/"
)

var stsHandlers = map[string]handler{
	"AssumeRole": (*Server).assumeRole,
}

// Role is an IAM role that AssumeRole lets long-term credentials assume.
type Role struct {
	// ARN of the role, e.g. arn:aws:iam::123456789012:role/reader; required.
	ARN string
	// ExternalID, if set, is the external id the role's trust policy
	// requires; a call without it, or with another, is refused.
	ExternalID string
	// Trusted are the access key ids allowed to assume the role; empty
	// trusts every configured Credential.
	Trusted []string
	// MaxSessionDuration bounds DurationSeconds; default one hour, as IAM.
	MaxSessionDuration time.Duration
}

// session is a temporary credential AssumeRole issued.
type session struct {
	cred    Credential
	expires time.Time
	roleARN string
	// source is the long-term access key id that assumed the role.
	source string
}

// AddRole adds (or replaces) a role that AssumeRole can assume.
func (s *Server) AddRole(r Role) {
	if r.MaxSessionDuration == 0 {
		r.MaxSessionDuration = time.Hour
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.roles[r.ARN] = &r
}

// ExpireSessions makes every temporary credential issued so far expired,
// as if their time had passed; calls signed with them get ExpiredToken
// (RequestExpired on EC2).
func (s *Server) ExpireSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	past := time.Now().Add(-time.Second)
	for _, sess := range s.sessions {
		sess.expires = past
	}
}

// Sessions returns how many temporary credentials were issued for roleARN
// and are still valid.
func (s *Server) Sessions(roleARN string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, now := 0, time.Now()
	for _, sess := range s.sessions {
		if sess.roleARN == roleARN && now.Before(sess.expires) {
			n++
		}
	}
	return n
}

type assumeRoleResult struct {
	Credentials struct {
		AccessKeyID     string `xml:"AccessKeyId"`
		SecretAccessKey string `xml:"SecretAccessKey"`
		SessionToken    string `xml:"SessionToken"`
		Expiration      string `xml:"Expiration"`
	} `xml:"Credentials"`
	AssumedRoleUser struct {
		AssumedRoleID string `xml:"AssumedRoleId"`
		ARN           string `xml:"Arn"`
	} `xml:"AssumedRoleUser"`
}

// assumeRole serves STS AssumeRole: the caller must be a trusted long-term
// key and give the role's external id; AWS answers AccessDenied without
// saying which check failed, and so does the emulator.
func (s *Server) assumeRole(req *request) (any, *apiError) {
	p := req.params
	arn, name := p.Get("RoleArn"), p.Get("RoleSessionName")
	if arn == "" {
		return nil, errValidation("1 validation error detected: Value null at 'roleArn' failed to satisfy constraint: Member must not be null")
	}
	if len(name) < 2 || len(name) > 64 {
		return nil, errValidation("1 validation error detected: Value at 'roleSessionName' failed to satisfy constraint: Member must have length between 2 and 64")
	}
	role := s.roles[arn]
	denied := &apiError{http.StatusForbidden, "AccessDenied", "User: arn:aws:iam::" + s.opts.OwnerID +
		":user/emulator-user is not authorized to perform: sts:AssumeRole on resource: " + arn}
	switch {
	case role == nil, req.caller.session != nil:
		return nil, denied
	case len(role.Trusted) > 0 && !slices.Contains(role.Trusted, req.caller.accessKeyID):
		return nil, denied
	case role.ExternalID != "" && p.Get("ExternalId") != role.ExternalID:
		return nil, denied
	}
	lifetime := time.Hour
	if v := p.Get("DurationSeconds"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 900 || time.Duration(n)*time.Second > role.MaxSessionDuration {
			return nil, errValidation("The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
		}
		lifetime = time.Duration(n) * time.Second
	}
	if s.opts.SessionLifetime > 0 {
		lifetime = s.opts.SessionLifetime
	}
	sess := &session{
		cred:    Credential{AccessKeyID: "ASIA" + strings.ToUpper(randomHex(8)), SecretAccessKey: randomHex(20), SessionToken: randomHex(32)},
		expires: time.Now().Add(lifetime),
		roleARN: arn,
		source:  req.caller.accessKeyID,
	}
	s.sessions[sess.cred.AccessKeyID] = sess
	out := &assumeRoleResult{}
	out.Credentials.AccessKeyID = sess.cred.AccessKeyID
	out.Credentials.SecretAccessKey = sess.cred.SecretAccessKey
	out.Credentials.SessionToken = sess.cred.SessionToken
	out.Credentials.Expiration = sess.expires.UTC().Format("2006-01-02T15:04:05.000Z")
	roleName := arn[strings.LastIndex(arn, "/")+1:]
	out.AssumedRoleUser.AssumedRoleID = "AROA" + strings.ToUpper(randomHex(8)) + ":" + name
	out.AssumedRoleUser.ARN = strings.Replace(strings.Replace(arn, ":iam::", ":sts::", 1), ":role/", ":assumed-role/", 1)
	if roleName != "" {
		out.AssumedRoleUser.ARN += "/" + name
	}
	return out, nil
}

func errValidation(msg string) *apiError {
	return &apiError{http.StatusBadRequest, "ValidationError", msg}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
