package azureemu

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"antreaplus.io/antreaplus/test/infrastructure/pollstats"
)

// Client is a service principal the token endpoint accepts.
type Client struct {
	ClientID string
	Secret   string
}

// Options configure a Server.
type Options struct {
	// TenantID is the Microsoft Entra tenant; default
	// 00000000-0000-0000-0000-000000000001.
	TenantID string
	// SubscriptionID is the one subscription served; default
	// 00000000-0000-0000-0000-000000000002.
	SubscriptionID string
	// Clients the token endpoint accepts.
	Clients []Client
	// StaticTokens are bearer tokens ARM accepts without a token request,
	// for clients with their own azcore.TokenCredential.
	StaticTokens []string
	// Locations served; default eastus, westus2, westeurope.
	Locations []string
	// PageSize of every list; default 1000.
	PageSize int
	// TokenLifetime of issued tokens; default one hour.
	TokenLifetime time.Duration
	// MaxRulesPerNSG is the quota of security rules per network security
	// group; default 1000, as in Azure.
	MaxRulesPerNSG int
	// MaxASGsPerIPConfig is the quota of application security groups per
	// IP configuration of a NIC; default 20, as in Azure.
	MaxASGsPerIPConfig int
	// PollGap is the longest pause between two list calls of one poll
	// window in PollStats; default pollstats.DefaultGap (2s).
	PollGap time.Duration
	// PollClock, if set, is the clock of PollStats, for tests; default
	// time.Now.
	PollClock func() time.Time
}

// Server is an in-memory Azure Resource Manager endpoint with a Microsoft
// Entra token endpoint, for the track-2 Azure SDK. Serve it over TLS
// (httptest.NewTLSServer): the SDK sends bearer tokens only over HTTPS.
type Server struct {
	opts Options

	mu        sync.Mutex
	vnets     map[string]*vnet
	vms       map[string]*vm
	nics      map[string]*nic
	publicIPs map[string]*publicIP
	// natGateways by lowercased id (routing.go).
	natGateways map[string]*natGateway
	nsgs        map[string]*nsg
	asgs        map[string]*asg
	lbs         map[string]*loadBalancer
	operations  map[string]bool        // ids of long-running operations issued
	tokens      map[string]issuedToken // by access token
	seq         uint64
	calls       map[string]int
	faults      []*Fault
	hook        func(op string)
	latency     time.Duration
	hideNewFor  int
	// polls counts calls per account and replica (pollcount.go); it has
	// its own lock.
	polls *pollstats.Tracker
}

// New returns an emulator with no resources.
func New(opts Options) *Server {
	if opts.TenantID == "" {
		opts.TenantID = "00000000-0000-0000-0000-000000000001"
	}
	if opts.SubscriptionID == "" {
		opts.SubscriptionID = "00000000-0000-0000-0000-000000000002"
	}
	if len(opts.Locations) == 0 {
		opts.Locations = []string{"eastus", "westus2", "westeurope"}
	}
	if opts.PageSize == 0 {
		opts.PageSize = 1000
	}
	if opts.TokenLifetime == 0 {
		opts.TokenLifetime = time.Hour
	}
	if opts.MaxRulesPerNSG == 0 {
		opts.MaxRulesPerNSG = 1000
	}
	if opts.MaxASGsPerIPConfig == 0 {
		opts.MaxASGsPerIPConfig = 20
	}
	return &Server{
		opts: opts, vnets: map[string]*vnet{}, vms: map[string]*vm{}, nics: map[string]*nic{},
		publicIPs: map[string]*publicIP{}, natGateways: map[string]*natGateway{}, tokens: map[string]issuedToken{}, calls: map[string]int{},
		nsgs: map[string]*nsg{}, asgs: map[string]*asg{}, operations: map[string]bool{},
		lbs: map[string]*loadBalancer{}, polls: pollstats.NewTracker(opts.PollGap, opts.PollClock),
	}
}

// SubscriptionID is the subscription the emulator serves.
func (s *Server) SubscriptionID() string { return s.opts.SubscriptionID }

// TenantID is the tenant of the token endpoint.
func (s *Server) TenantID() string { return s.opts.TenantID }

// route is one ARM list operation.
type route struct {
	op   string
	list func(s *Server) []listItem
}

var routes = map[string]route{
	"/locations": {"Subscriptions.ListLocations", (*Server).locationItems},
	"/providers/microsoft.compute/virtualmachines":           {"VirtualMachines.ListAll", (*Server).vmItems},
	"/providers/microsoft.network/networkinterfaces":         {"NetworkInterfaces.ListAll", (*Server).nicItems},
	"/providers/microsoft.network/virtualnetworks":           {"VirtualNetworks.ListAll", (*Server).vnetItems},
	"/providers/microsoft.network/publicipaddresses":         {"PublicIPAddresses.ListAll", (*Server).publicIPItems},
	"/providers/microsoft.network/networksecuritygroups":     {"NetworkSecurityGroups.ListAll", (*Server).nsgItems},
	"/providers/microsoft.network/applicationsecuritygroups": {"ApplicationSecurityGroups.ListAll", (*Server).asgItems},
	"/providers/microsoft.network/loadbalancers":             {"LoadBalancers.ListAll", (*Server).lbItems},
	"/providers/microsoft.network/natgateways":               {"NatGateways.ListAll", (*Server).natGatewayItems},
}

// ServeHTTP serves the token endpoint and the ARM list operations.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.ToLower(strings.TrimSuffix(r.URL.Path, "/"))
	tenant := "/" + strings.ToLower(s.opts.TenantID)
	switch {
	case pollstats.IsAdminPath(r.URL.Path):
		s.polls.ServeHTTP(w, r)
	case strings.HasPrefix(path, "/subscriptions/"):
		s.serveARM(w, r, path)
	case path == tenant+"/v2.0/.well-known/openid-configuration":
		s.serveOpenIDConfiguration(w, r)
	case path == tenant+"/oauth2/v2.0/token":
		s.serveToken(w, r)
	case strings.HasSuffix(path, "/oauth2/v2.0/token") || strings.HasSuffix(path, "/openid-configuration"):
		s.before("Token")
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "AADSTS90002: Tenant not found.")
	default:
		writeARMError(w, http.StatusNotFound, "NotFound", "The requested path "+r.URL.Path+" was not found.")
	}
}

func (s *Server) serveARM(w http.ResponseWriter, r *http.Request, path string) {
	rest, _ := strings.CutPrefix(path, "/subscriptions/")
	sub, rest, _ := strings.Cut(rest, "/")
	rt, isList := routes["/"+rest]
	res, isResource := parseResource(rest)
	var op string
	switch {
	case isList:
		op = rt.op
	case isResource:
		op = res.op(r.Method)
	default:
		op = r.Method + " " + r.URL.Path
	}
	s.before(op)
	account, ok := s.authorized(r)
	if !ok {
		writeARMError(w, http.StatusUnauthorized, "InvalidAuthenticationToken", "The access token is invalid.")
		return
	}
	defer s.countPoll(r, account, sub, op, isList && r.Method == http.MethodGet)()
	switch {
	case sub != strings.ToLower(s.opts.SubscriptionID):
		writeARMError(w, http.StatusNotFound, "SubscriptionNotFound", fmt.Sprintf("The subscription '%s' could not be found.", sub))
	case !isList && !isResource:
		writeARMError(w, http.StatusNotFound, "InvalidResourceType", "The resource type could not be found in the namespace for api version.")
	case isList && r.Method != http.MethodGet:
		writeARMError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "Lists are read with GET.")
	case r.URL.Query().Get("api-version") == "":
		writeARMError(w, http.StatusBadRequest, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.")
	default:
		if f := s.takeFault(op); f != nil {
			f.write(w)
			return
		}
		if isList {
			s.serveList(w, r, rt)
			return
		}
		s.serveResource(w, r, res)
	}
}

// before counts the call, then runs the hook and the latency without the
// lock, so that a hook may change the state.
func (s *Server) before(op string) {
	s.mu.Lock()
	s.calls[op]++
	hook, latency := s.hook, s.latency
	s.mu.Unlock()
	if hook != nil {
		hook(op)
	}
	if latency > 0 {
		time.Sleep(latency)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":{"code":"InternalServerError","message":"encoding failed"}}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("x-ms-request-id", requestID())
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeARMError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, armError{Error: armErrorBody{Code: code, Message: msg}})
}

// Calls returns how many calls of op (e.g. "VirtualMachines.ListAll",
// "Token") the emulator received, failed ones included.
func (s *Server) Calls(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

// CallCounts returns the calls received per operation.
func (s *Server) CallCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.calls)
}

// TotalCalls returns the number of calls received.
func (s *Server) TotalCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		n += c
	}
	return n
}

// ResetCalls sets every call counter back to zero.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = map[string]int{}
}

// OnCall sets a function called at the start of every call with its
// operation; nil removes it. It may use the Server's methods.
func (s *Server) OnCall(hook func(op string)) {
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
