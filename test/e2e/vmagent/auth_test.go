package vmagent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution/agenttoken"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/test/framework"
)

// firstEvent opens a watch as token, from inside the VM x, with query, and
// returns the first event, or the HTTP status when the server refuses.
func (l *lab) firstEvent(from *vm, token, query string) (wire.Event, int, error) {
	resp, err := l.httpClient(from.ns, token).Get(l.serverURL() + wire.PathWatch + query)
	if err != nil {
		return wire.Event{}, 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return wire.Event{}, resp.StatusCode, nil
	}
	var ev wire.Event
	err = json.NewDecoder(resp.Body).Decode(&ev)
	return ev, resp.StatusCode, err
}

func endpointNames(ev wire.Event) []string {
	var out []string
	for _, ep := range ev.Endpoints {
		out = append(out, ep.Name)
	}
	return out
}

// TestTokensScopeWhatAConsumerGets checks that a VM's token gets that VM's
// rules and nothing else, whatever it asks; that the agentless consumer's
// token gets only the agentless entities; that other tokens are refused;
// and that a VM that stops being agented loses its token.
func TestTokensScopeWhatAConsumerGets(t *testing.T) {
	l := newLab(t)
	c := clusters.Client(t, cluster)
	ns := clusters.Namespace(t, cluster)
	x := l.addVM(c, ns, "x", map[string]string{"app": "x", "e2e": ns})
	y := l.addVM(c, ns, "y", map[string]string{"app": "y", "e2e": ns})
	agentless := &antreav1alpha2.ExternalEntity{}
	agentless.Namespace, agentless.Name, agentless.Labels = ns, "svc-db", map[string]string{"app": "db", "e2e": ns}
	agentless.Spec = antreav1alpha2.ExternalEntitySpec{Endpoints: []antreav1alpha2.Endpoint{{IP: "192.0.2.10"}}, ExternalNode: "antreaplus-cloud-controller"}
	all := entities("e2e", ns)
	create(t, c, agentless,
		acnp(ns+"-all", "application", 1, all, []antreav1beta1.Rule{rule(drop, from(all), tcp(22))}, nil))

	scope := "?" + wire.ParamScope + "=" + ns + "/y&vm=y&node=y"
	framework.Eventually(t, 30*time.Second, func() error {
		ev, code, err := l.firstEvent(x, x.token(), scope)
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("watch with x's token: %d, %w", code, err)
		}
		if ev.Scope != ns+"/x" || !slices.Equal(endpointNames(ev), []string{ns + "/nic-x"}) || len(ev.Endpoints[0].Order) == 0 {
			return fmt.Errorf("x's token asking for y got scope %s, endpoints %v", ev.Scope, endpointNames(ev))
		}
		return nil
	})

	secret := &corev1.Secret{}
	if err := c.Get(t.Context(), types.NamespacedName{Namespace: federationv1alpha1.SystemNamespace, Name: agenttoken.AgentlessSecretName}, secret); err != nil {
		t.Fatalf("the agentless consumer's token: %v", err)
	}
	ev, code, err := l.firstEvent(x, string(secret.Data[policyv1alpha1.TokenSecretKey]), "")
	if err != nil || code != http.StatusOK || !slices.Contains(endpointNames(ev), ns+"/svc-db") || slices.Contains(endpointNames(ev), ns+"/nic-x") {
		t.Errorf("agentless consumer: %d, %v, endpoints %v", code, err, endpointNames(ev))
	}
	if _, code, err := l.firstEvent(x, "not-a-token-not-a-token-not-a-token", ""); err != nil || code != http.StatusUnauthorized {
		t.Errorf("a made-up token: %d, %v; want 401", code, err)
	}

	// y becomes agentless: its token Secret is deleted and its token refused.
	oldToken := y.token()
	vm := &cloudv1alpha1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "y"}}
	framework.Update(t, c, vm, func() { vm.Spec.EnforcementMode = cloudv1alpha1.EnforcementAgentless })
	framework.Eventually(t, 30*time.Second, func() error {
		if _, code, err := l.firstEvent(y, oldToken, ""); err != nil || (code != http.StatusUnauthorized && code != http.StatusForbidden) {
			return fmt.Errorf("the token of a VM no longer agented: %d, %w", code, err)
		}
		return nil
	})
}
