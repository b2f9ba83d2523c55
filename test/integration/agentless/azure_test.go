package agentless

import (
	"crypto/x509"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

const (
	azureClient = "antreaplus-agentless-app"
	azureSecret = "azure-agentless-secret"
	azureRegion = "eastus"
)

// azureCloud is the ARM emulator over TLS with one VNet, prod.
type azureCloud struct {
	emu   *azureemu.Server
	url   string
	roots *x509.CertPool
	vnet  string
}

func newAzureCloud(t *testing.T) *azureCloud {
	t.Helper()
	emu := azureemu.New(azureemu.Options{Clients: []azureemu.Client{{ClientID: azureClient, Secret: azureSecret}}})
	srv := httptest.NewTLSServer(emu)
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	vnet, err := emu.AddVNet(azureemu.VNetSpec{Location: azureRegion, Name: "prod", Prefix: "10.40.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	return &azureCloud{emu: emu, url: srv.URL, roots: roots, vnet: vnet}
}

func (c *azureCloud) addVM(t *testing.T, name string) azureemu.VM {
	t.Helper()
	vm, err := c.emu.AddVM(azureemu.VMSpec{VNetID: c.vnet, Name: name, Tags: map[string]string{"Name": name}})
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

func (c *azureCloud) account(ns, name string) (*corev1.Secret, *cloudv1alpha1.CloudProviderAccount) {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-credentials"},
		StringData: map[string]string{"subscriptionID": c.emu.SubscriptionID(), "tenantID": c.emu.TenantID(),
			"clientID": azureClient, "clientSecret": azureSecret}}
	account := &cloudv1alpha1.CloudProviderAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAzure, PollIntervalSeconds: ptr.To[int32](30),
			Azure: &cloudv1alpha1.AzureAccountConfig{Regions: []string{azureRegion}, Endpoint: c.url, AuthorityHost: c.url,
				Credentials: cloudv1alpha1.AzureCredentials{SecretRef: cloudv1alpha1.SecretReference{Name: name + "-credentials"}}}},
	}
	return secret, account
}

// wantNSG waits until the interface carries a managed NSG whose inbound
// allow rules are want (lines of azureemu's SecurityRules without the
// priority and destination), and returns the NSG's id.
func (c *azureCloud) wantNSG(t *testing.T, nic string, want ...string) string {
	t.Helper()
	var id string
	eventually(t, func() error {
		nsg, got, rules, err := c.inbound(nic)
		if err != nil {
			return err
		}
		if strings.Join(got, "|") != strings.Join(want, "|") || !strings.HasPrefix(rules[len(rules)-1], "Outbound 4096 Deny") {
			return fmt.Errorf("NSG rules %v; want inbound %v and the final denies", rules, want)
		}
		id = nsg
		return nil
	})
	return id
}

// inbound returns the interface's managed NSG, its inbound allow rules
// (protocol, ports, sources) and all its rules.
func (c *azureCloud) inbound(nic string) (nsg string, allows, rules []string, err error) {
	nsg, _, err = c.emu.InterfaceSecurity(nic)
	if err != nil {
		return "", nil, nil, err
	}
	if !strings.Contains(nsg, "/"+prefix) {
		return "", nil, nil, fmt.Errorf("interface NSG %q; want a managed one", nsg)
	}
	if rules, err = c.emu.SecurityRules(nsg); err != nil {
		return "", nil, nil, err
	}
	for _, r := range rules {
		if f := strings.Fields(r); f[0] == "Inbound" && f[2] == "Allow" {
			allows = append(allows, strings.Join(f[3:6], " "))
		}
	}
	return nsg, allows, rules, nil
}

func (c *azureCloud) writes() int {
	n := 0
	for op, calls := range c.emu.CallCounts() {
		if strings.HasSuffix(op, ".CreateOrUpdate") || strings.HasSuffix(op, ".Delete") {
			n += calls
		}
	}
	return n
}

func TestAgentlessEnforcementAzure(t *testing.T) {
	ctx := t.Context()
	c := newAzureCloud(t)
	web := c.addVM(t, "web-0")
	kube := clusters.Client(t, "member-1")
	ns := clusters.Namespace(t, "member-1")
	secret, account := c.account(ns, "azure")
	create(t, kube, secret, account, agentlessSelector(ns, "azure"))
	server, caFile, tokenFile := startPolicyController(t)
	startCloudControllerWith(t, server, caFile, tokenFile, accountprovider.Options{RootCAs: c.roots,
		AzureMaxRetries: 2, AzureRetryDelay: time.Millisecond, AzureMaxRetryDelay: time.Second})

	// An allow list: HTTP from 10/8, nothing else.
	webPolicy := policyOn(ns, "web", "web-0",
		rule("http", antreav1beta1.RuleActionAllow, fromCIDR("10.0.0.0/8"), tcp(80)),
		rule("deny-rest", antreav1beta1.RuleActionDrop))
	create(t, kube, webPolicy)
	nsg := c.wantNSG(t, web.NICs[0], "Tcp 80 10.0.0.0/8")
	if st := wantStatus(t, kube, webPolicy, antreav1beta1.NetworkPolicyRealized, ""); st.CurrentNodesRealized != 1 {
		t.Errorf("status = %+v; want realised on 1 of 1", st)
	}

	// A change rewrites the same NSG.
	framework.Update(t, kube, webPolicy, func() {
		webPolicy.Spec.Ingress[0].Ports = nil
		tcp(80, 443)(&webPolicy.Spec.Ingress[0])
	})
	if again := c.wantNSG(t, web.NICs[0], "Tcp 443 10.0.0.0/8", "Tcp 80 10.0.0.0/8"); again != nsg {
		t.Errorf("NSG replaced (%s -> %s); want it changed in place", nsg, again)
	}
	wantStatus(t, kube, webPolicy, antreav1beta1.NetworkPolicyRealized, "")

	// Drift: the NSG and ASG taken off the interface by hand come back.
	if err := c.emu.SetInterfaceSecurity(web.NICs[0], "", nil); err != nil {
		t.Fatal(err)
	}
	c.wantNSG(t, web.NICs[0], "Tcp 443 10.0.0.0/8", "Tcp 80 10.0.0.0/8")

	// Resyncs of an unchanged cloud write nothing.
	c.emu.ResetCalls()
	time.Sleep(2*resync + time.Second)
	if n := c.writes(); n != 0 {
		t.Errorf("%d writes in resyncs where nothing changed (%v); want none", n, c.emu.CallCounts())
	}

	// The policy deleted: the NSG and ASG go.
	if err := kube.Delete(ctx, webPolicy); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() error {
		nsg, asgs, err := c.emu.InterfaceSecurity(web.NICs[0])
		if err != nil {
			return err
		}
		if nsg != "" || len(asgs) > 0 || len(c.emu.SecurityGroups()) > 0 || len(c.emu.ApplicationSecurityGroups()) > 0 {
			return fmt.Errorf("after the policy's deletion: interface NSG %q ASGs %v, NSGs %v, ASGs %v",
				nsg, asgs, c.emu.SecurityGroups(), c.emu.ApplicationSecurityGroups())
		}
		return nil
	})
}
