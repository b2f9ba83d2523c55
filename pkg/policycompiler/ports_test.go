package policycompiler

import (
	"encoding/json"
	"strings"
	"testing"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

func ptr[T any](v T) *T { return &v }

func formatSpecs(specs []portSpec) string {
	parts := make([]string, len(specs))
	for i, s := range specs {
		if s.Name != "" {
			parts[i] = string(s.Protocol) + "/" + s.Name
			continue
		}
		parts[i] = formatPort(s.Port)
	}
	return strings.Join(parts, " ")
}

// portsJSON decodes ports as a policy writes them.
func portsJSON(t *testing.T, text string) []antreav1beta1.NetworkPolicyPort {
	t.Helper()
	var ports []antreav1beta1.NetworkPolicyPort
	if err := json.Unmarshal([]byte(text), &ports); err != nil {
		t.Fatalf("decoding %s: %v", text, err)
	}
	return ports
}

func TestConvertPorts(t *testing.T) {
	tests := []struct {
		name      string
		ports     []antreav1beta1.NetworkPolicyPort
		protocols []antreav1beta1.NetworkPolicyProtocol
		want      string
		wantErr   string
	}{
		{name: "nothing is every port", want: ""},
		{name: "default protocol is TCP", ports: portsJSON(t, `[{"port": 80}]`), want: "TCP/80"},
		{name: "protocol without port", ports: portsJSON(t, `[{"protocol": "UDP"}]`), want: "UDP/any"},
		{name: "endPort range", ports: portsJSON(t, `[{"protocol": "SCTP", "port": 8080, "endPort": 9000}]`), want: "SCTP/8080-9000"},
		{name: "source ports", ports: portsJSON(t, `[{"port": 443, "sourcePort": 1024, "sourceEndPort": 2048}]`), want: "TCP/443<-1024-2048"},
		{name: "named port", ports: portsJSON(t, `[{"protocol": "UDP", "port": "dns"}]`), want: "UDP/dns"},
		{name: "quoted number", ports: portsJSON(t, `[{"port": "22"}]`), want: "TCP/22"},
		{
			name:      "icmp and igmp",
			protocols: []antreav1beta1.NetworkPolicyProtocol{{ICMP: &antreav1beta1.ICMPProtocol{ICMPType: ptr(int32(8))}}, {IGMP: &antreav1beta1.IGMPProtocol{GroupAddress: "224.0.0.1"}}},
			want:      "ICMP/type=8,code=any IGMP/type=any,group=224.0.0.1",
		},
		{name: "endPort below port", ports: portsJSON(t, `[{"port": 90, "endPort": 80}]`), wantErr: "port range 90-80"},
		{name: "endPort with named port", ports: portsJSON(t, `[{"port": "http", "endPort": 80}]`), wantErr: "needs a numerical port"},
		{name: "endPort without port", ports: portsJSON(t, `[{"endPort": 80}]`), wantErr: "needs a numerical port"},
		{name: "port zero", ports: portsJSON(t, `[{"port": 0}]`), wantErr: "not within 1-65535"},
		{name: "icmp as a port protocol", ports: portsJSON(t, `[{"protocol": "ICMP"}]`), wantErr: "is not TCP, UDP or SCTP"},
		{name: "igmp group not multicast", protocols: []antreav1beta1.NetworkPolicyProtocol{{IGMP: &antreav1beta1.IGMPProtocol{GroupAddress: "10.0.0.1"}}}, wantErr: "not a multicast address"},
		{name: "empty protocols entry", protocols: []antreav1beta1.NetworkPolicyProtocol{{}}, wantErr: "neither icmp nor igmp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := convertPorts(tt.ports, tt.protocols)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := formatSpecs(got); s != tt.want {
				t.Errorf("got %q, want %q", s, tt.want)
			}
		})
	}
}

func TestResolvePorts(t *testing.T) {
	specs := []portSpec{
		{Port: policyrules.Port{Protocol: policyrules.ProtocolTCP, Port: 22, EndPort: 22}},
		{Port: anyPortOf(policyrules.ProtocolTCP), Name: "http"},
		{Port: anyPortOf(policyrules.ProtocolUDP), Name: "http"},
	}
	tests := []struct {
		name    string
		exposed []NamedPort
		want    string
	}{
		{name: "no named ports exposed", want: "TCP/22,"},
		{name: "name resolves for its protocol", exposed: []NamedPort{{Name: "http", Protocol: policyrules.ProtocolTCP, Port: 8080}}, want: "TCP/22,TCP/8080,"},
		{name: "both protocols", exposed: []NamedPort{{Name: "http", Protocol: policyrules.ProtocolUDP, Port: 80}, {Name: "http", Protocol: policyrules.ProtocolTCP, Port: 81}}, want: "TCP/22,TCP/81,UDP/80,"},
		{name: "other names ignored", exposed: []NamedPort{{Name: "https", Protocol: policyrules.ProtocolTCP, Port: 443}}, want: "TCP/22,"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := portsKey(resolvePorts(specs, tt.exposed)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if got := resolvePorts([]portSpec{{Port: anyPortOf(policyrules.ProtocolTCP), Name: "web"}}, nil); got == nil || len(got) != 0 {
		t.Errorf("unresolved named ports = %#v, want an empty, non-nil list (no port, not every port)", got)
	}
}
