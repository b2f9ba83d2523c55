package awsemu

import (
	"io"
	"maps"
	"net/http"
	"net/url"
	"sync"
	"time"

	"antreaplus.io/antreaplus/test/infrastructure/pollstats"
)

// APIVersion is the EC2 API version the emulator speaks.
const APIVersion = "2016-11-15"

// Namespace is the XML namespace of EC2 responses.
const Namespace = "http://ec2.amazonaws.com/doc/" + APIVersion + "/"

// Credential is an access key the emulator accepts.
type Credential struct {
	AccessKeyID     string
	SecretAccessKey string
	// SessionToken, if set, must be sent as X-Amz-Security-Token.
	SessionToken string
}

// Quotas are the EC2 limits the emulator enforces. Zero values take the AWS
// defaults.
type Quotas struct {
	// RulesPerGroup is the most inbound, and separately outbound, rules of
	// one security group (AWS default 60).
	RulesPerGroup int
	// GroupsPerInterface is the most security groups on one network
	// interface (AWS default 5).
	GroupsPerInterface int
	// GroupsPerVPC is the most security groups in one VPC (AWS default 2500).
	GroupsPerVPC int
}

// Options configure a Server.
type Options struct {
	// Regions the emulator serves; requests signed for another region fail
	// as AWS fails them. Default: us-east-1, us-west-2, eu-west-1.
	Regions []string
	// Credentials accepted. Requests must be signed (SigV4) with one of them.
	Credentials []Credential
	// OwnerID is the account id reported as owner. Default 123456789012.
	OwnerID string
	// DefaultPageSize is the page size of describes that set no MaxResults;
	// 0 returns everything in one page, as EC2 does for small accounts.
	DefaultPageSize int
	// Quotas enforced on security groups.
	Quotas Quotas
	// Roles that STS AssumeRole lets the Credentials assume; AddRole adds
	// more.
	Roles []Role
	// SessionLifetime, if set, is the lifetime of every temporary
	// credential AssumeRole issues, whatever the call asked for, so tests
	// can see credentials expire. Default: the call's DurationSeconds.
	SessionLifetime time.Duration
	// PollGap is the longest pause between two describes of one poll
	// window in PollStats; default pollstats.DefaultGap (2s).
	PollGap time.Duration
	// PollClock, if set, is the clock of PollStats, for tests; default
	// time.Now.
	PollClock func() time.Time
}

// Server is an in-memory EC2 Query API endpoint. It is an http.Handler; serve
// it with httptest.NewServer in tests or http.ListenAndServe in a sandbox.
// Every method is safe for concurrent use.
type Server struct {
	opts Options

	mu         sync.Mutex
	regions    map[string]*region
	seq        uint64
	calls      map[string]int
	faults     []*Fault
	hook       func(action string)
	latency    time.Duration
	hideNewFor int
	roles      map[string]*Role
	sessions   map[string]*session
	// polls counts calls per account and replica (pollcount.go); it has
	// its own lock.
	polls *pollstats.Tracker
}

// New returns an emulator with the given options and no resources.
func New(opts Options) *Server {
	if len(opts.Regions) == 0 {
		opts.Regions = []string{"us-east-1", "us-west-2", "eu-west-1"}
	}
	if opts.OwnerID == "" {
		opts.OwnerID = "123456789012"
	}
	opts.Quotas = opts.Quotas.withDefaults()
	s := &Server{opts: opts, regions: map[string]*region{}, calls: map[string]int{}, roles: map[string]*Role{}, sessions: map[string]*session{},
		polls: pollstats.NewTracker(opts.PollGap, opts.PollClock)}
	for _, r := range opts.Regions {
		s.regions[r] = newRegion(r)
	}
	for _, role := range opts.Roles {
		s.AddRole(role)
	}
	return s
}

func (q Quotas) withDefaults() Quotas {
	if q.RulesPerGroup == 0 {
		q.RulesPerGroup = 60
	}
	if q.GroupsPerInterface == 0 {
		q.GroupsPerInterface = 5
	}
	if q.GroupsPerVPC == 0 {
		q.GroupsPerVPC = 2500
	}
	return q
}

// request is one parsed API call.
type request struct {
	action string
	params url.Values
	region *region
	caller caller
}

// handler serves one action with s.mu held.
type handler func(s *Server, req *request) (any, *apiError)

var ec2Handlers = map[string]handler{
	"DescribeRegions":                   (*Server).describeRegions,
	"DescribeVpcs":                      (*Server).describeVpcs,
	"DescribeInstances":                 (*Server).describeInstances,
	"DescribeNetworkInterfaces":         (*Server).describeNetworkInterfaces,
	"DescribeSecurityGroups":            (*Server).describeSecurityGroups,
	"DescribeNatGateways":               (*Server).describeNatGateways,
	"DescribeRouteTables":               (*Server).describeRouteTables,
	"DescribeVpcPeeringConnections":     (*Server).describeVpcPeerings,
	"DescribeTransitGatewayAttachments": (*Server).describeTGWAttachments,
	"AllocateAddress":                   (*Server).allocateAddress,
	"CreateNatGateway":                  (*Server).createNatGateway,
	"ReplaceRoute":                      (*Server).replaceRoute,
	"CreateVpcPeeringConnection":        (*Server).createVpcPeering,
	"AcceptVpcPeeringConnection":        (*Server).acceptVpcPeering,
	"DeleteVpcPeeringConnection":        (*Server).deleteVpcPeering,
	"CreateSecurityGroup":               (*Server).createSecurityGroup,
	"DeleteSecurityGroup":               (*Server).deleteSecurityGroup,
	"AuthorizeSecurityGroupIngress":     (*Server).authorizeIngress,
	"AuthorizeSecurityGroupEgress":      (*Server).authorizeEgress,
	"RevokeSecurityGroupIngress":        (*Server).revokeIngress,
	"RevokeSecurityGroupEgress":         (*Server).revokeEgress,
	"ModifyNetworkInterfaceAttribute":   (*Server).modifyNetworkInterfaceAttribute,
	"CreateTags":                        (*Server).createTags,
	"DeleteTags":                        (*Server).deleteTags,
	"TerminateInstances":                (*Server).terminateInstances,
	"AssignPrivateIpAddresses":          (*Server).assignPrivateIPs,
	"UnassignPrivateIpAddresses":        (*Server).unassignPrivateIPs,
}

// ServeHTTP serves one call of EC2, ELBv2, RDS or STS: a form-encoded POST
// (or GET) with Action and Version, signed with SigV4; the service is the
// one of the signature's credential scope.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if pollstats.IsAdminPath(r.URL.Path) {
		s.polls.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, errBadRequest("could not read the request body"))
		return
	}
	params, err := url.ParseQuery(string(body))
	if err != nil || r.Method == http.MethodGet {
		params = r.URL.Query()
	}
	action := params.Get("Action")
	s.before(action)

	caller, svc, aerr := s.authenticate(r, body)
	if aerr != nil {
		svc.writeError(w, aerr)
		return
	}
	defer s.countPoll(r, caller, svc, action)()
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, ok := s.regions[caller.region]
	if !ok {
		svc.writeError(w, svc.invalidRegion(caller.region))
		return
	}
	if f := s.takeFault(action); f != nil {
		if f.Body != "" {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(f.Status)
			_, _ = w.Write([]byte(f.Body))
			return
		}
		svc.writeError(w, svc.faultError(f))
		return
	}
	h, ok := svc.handlers[action]
	if !ok {
		svc.writeError(w, errInvalidAction(action))
		return
	}
	if v := params.Get("Version"); v != svc.version {
		svc.writeError(w, errNoSuchVersion(v))
		return
	}
	resp, aerr := h(s, &request{action: action, params: params, region: reg, caller: caller})
	if aerr != nil {
		svc.writeError(w, aerr)
		return
	}
	svc.writeResponse(w, action, resp)
}

// before counts the call, runs the hook and the injected latency, all
// without holding the lock so that a hook may change the state.
func (s *Server) before(action string) {
	s.mu.Lock()
	s.calls[action]++
	hook, latency := s.hook, s.latency
	s.mu.Unlock()
	if hook != nil {
		hook(action)
	}
	if latency > 0 {
		time.Sleep(latency)
	}
}

// Calls returns how many calls of action the emulator received, including
// those that failed.
func (s *Server) Calls(action string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[action]
}

// TotalCalls returns how many calls the emulator received.
func (s *Server) TotalCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		n += c
	}
	return n
}

// CallCounts returns the number of calls received per action.
func (s *Server) CallCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.calls)
}

// ResetCalls sets every call counter back to zero.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = map[string]int{}
}

// OnCall sets a function called at the start of every call with its action,
// before authentication; nil removes it. It may use the Server's methods.
func (s *Server) OnCall(hook func(action string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = hook
}

// SetLatency makes every call wait d before it is served.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}
