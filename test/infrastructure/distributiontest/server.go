package distributiontest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// AgentlessNode is the agentless externalNode of test servers.
const AgentlessNode = "cloud-controller"

// Server is a distribution server on a TLS test server.
type Server struct {
	Hub     *policydistribution.Hub
	Tokens  *policydistribution.Tokens
	Server  *policydistribution.Server
	Metrics *policydistribution.Metrics
	HTTP    *httptest.Server

	t       testing.TB
	mu      sync.Mutex
	denied  map[types.NamespacedName]bool
	updates []policydistribution.Update
	opts    []func(*policydistribution.ServerOptions)
}

// New starts a ready server with no rules; it stops with the test. opts
// change the server's options (heartbeat 100 ms by default).
func New(t testing.TB, opts ...func(*policydistribution.ServerOptions)) *Server {
	t.Helper()
	s := &Server{t: t, Tokens: policydistribution.NewTokens("system"), denied: map[types.NamespacedName]bool{}, opts: opts}
	s.start("127.0.0.1:0")
	t.Cleanup(s.Down)
	return s
}

func (s *Server) start(addr string) {
	s.Hub = policydistribution.NewHub()
	s.Metrics = policydistribution.NewMetrics()
	o := policydistribution.ServerOptions{
		Authenticator: s.Tokens, AgentlessNode: AgentlessNode, Heartbeat: 100 * time.Millisecond,
		Metrics: s.Metrics, CheckAgent: s.check,
	}
	for _, f := range s.opts {
		f(&o)
	}
	s.Server = policydistribution.NewServer(s.Hub, o)
	var l net.Listener
	var err error
	for range 50 { // the old instance's port may take a moment to free
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatalf("listening on %s: %v", addr, err)
	}
	// Every httptest server has the same certificate: clients of the old
	// instance trust the new one.
	s.HTTP = &httptest.Server{Listener: l, Config: &http.Server{Handler: s.Server.Handler()}, EnableHTTP2: true}
	s.HTTP.StartTLS()
	s.Hub.Publish(s.updates)
	s.Hub.SetReady()
}

func (s *Server) check(_ context.Context, vm types.NamespacedName) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.denied[vm] {
		return fmt.Errorf("VirtualMachine %s is not agented", vm)
	}
	return nil
}

// Deny makes the server refuse the agent of vm (as if the VM were gone).
func (s *Server) Deny(namespace, vm string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denied[types.NamespacedName{Namespace: namespace, Name: vm}] = true
}

// URL is the server's base URL.
func (s *Server) URL() string { return s.HTTP.URL }

// Down stops the server: clients see connections refused.
func (s *Server) Down() {
	if s.HTTP != nil && s.HTTP.Listener != nil {
		s.HTTP.CloseClientConnections()
		s.HTTP.Close()
	}
}

// Up starts the server again on the same address, as a new instance: a new
// hub (a new epoch) holding every update published so far.
func (s *Server) Up() {
	addr := s.HTTP.Listener.Addr().String()
	s.start(addr)
}

// Publish publishes updates and remembers them for Up.
func (s *Server) Publish(updates ...policydistribution.Update) uint64 {
	s.updates = append(s.updates, updates...)
	return s.Hub.Publish(updates)
}

// AgentToken mints a token for the agent of VM namespace/vm.
func (s *Server) AgentToken(namespace, vm string) string {
	token := policydistribution.NewToken()
	s.Tokens.SetSecret(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "vm-agent-token-" + vm,
			Annotations: map[string]string{policyv1alpha1.AnnotationTokenVirtualMachine: vm}},
		Type: policyv1alpha1.SecretTypeAgentToken, Data: map[string][]byte{policyv1alpha1.TokenSecretKey: []byte(token)},
	})
	return token
}

// AgentlessToken mints a token for the agentless consumer.
func (s *Server) AgentlessToken() string {
	token := policydistribution.NewToken()
	s.Tokens.SetSecret(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "system", Name: "agentless"},
		Type: policyv1alpha1.SecretTypeAgentlessToken, Data: map[string][]byte{policyv1alpha1.TokenSecretKey: []byte(token)}})
	return token
}

// Revoke forgets the token of namespace/vm.
func (s *Server) Revoke(namespace, vm string) {
	s.Tokens.DeleteSecret(types.NamespacedName{Namespace: namespace, Name: "vm-agent-token-" + vm})
}

// ClientOptions are consumer options for token, with short waits.
func (s *Server) ClientOptions(token string) consumer.Options {
	return consumer.Options{Server: s.URL(), Token: token,
		TLS:        s.HTTP.Client().Transport.(*http.Transport).TLSClientConfig.Clone(),
		MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, HeartbeatTimeout: time.Second}
}

// DropPorts is the update of an endpoint at address on node whose rules
// drop TCP traffic to each port, in order.
func DropPorts(endpoint, node, address string, ports ...int32) policydistribution.Update {
	rules := policyrules.EndpointRules{Endpoint: endpoint, ExternalNode: node, Hash: fmt.Sprint(ports)}
	for _, p := range ports {
		rules.Rules = append(rules.Rules, policyrules.CompiledRule{Direction: policyrules.DirectionIngress,
			Action: policyrules.ActionDrop, Tier: "application", AnyPeer: true,
			Priority: policyrules.Priority{Tier: 250, RuleIndex: p},
			Ports:    []policyrules.Port{{Protocol: policyrules.ProtocolTCP, Port: p, EndPort: p}}})
	}
	ep := wire.NewEndpoint(rules, []netip.Addr{netip.MustParseAddr(address)})
	return policydistribution.Update{Endpoint: endpoint, Node: node, Rules: &ep}
}

// Delete is the update that deletes an endpoint.
func Delete(endpoint string) policydistribution.Update {
	return policydistribution.Update{Endpoint: endpoint}
}
