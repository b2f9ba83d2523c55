package services

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"antreaplus.io/antreaplus/cmd/antreaplus/cmd"
	"antreaplus.io/antreaplus/pkg/serviceexport/federatedservice"
	"antreaplus.io/antreaplus/test/framework"
)

// antreaplus runs the CLI in-process against the sandbox's kubeconfig.
func antreaplus(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := cmd.NewRoot(&out, &errOut)
	root.SetArgs(append(args, "--kubeconfig", clusters.Sandbox.KubeconfigPath()))
	err := root.Execute()
	return out.String() + errOut.String(), err
}

func TestServiceCLI(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	lb := createService(t, "member-1", ns, "shop", loadBalancer())
	setIngress(t, "member-1", lb, "203.0.113.80")
	createService(t, "member-2", ns, "shop", nodePort(), servicePort("http", 8080))
	createService(t, "member-3", ns, "shop", externalName())

	out, err := antreaplus(t, "service", "export", "shop", "-n", ns, "--context", "member-1")
	if err != nil || !strings.Contains(out, "Valid     True") || !strings.Contains(out, "exported as LoadBalancer") {
		t.Fatalf("export from member-1: %v\n%s", err, out)
	}
	time.Sleep(1100 * time.Millisecond) // member-1's export is the oldest
	if out, err := antreaplus(t, "service", "export", "shop", "-n", ns, "--context", "member-2"); err != nil {
		t.Fatalf("export from member-2: %v\n%s", err, out)
	}
	// An ExternalName export is refused with the reason and what to do.
	out, err = antreaplus(t, "service", "export", "shop", "-n", ns, "--context", "member-3")
	if err == nil || !strings.Contains(out, "InvalidServiceType") {
		t.Errorf("exporting an ExternalName Service: err %v\n%s", err, out)
	}

	var l federatedservice.Listing
	framework.Eventually(t, importLimit, func() error {
		out, err := antreaplus(t, "service", "list", "-o", "json")
		if err != nil {
			return fmt.Errorf("%w: %s", err, out)
		}
		l = federatedservice.Listing{}
		if err := json.Unmarshal([]byte(out[:strings.LastIndex(out, "}")+1]), &l); err != nil {
			return fmt.Errorf("%w: %s", err, out)
		}
		s := findService(l, ns, "shop")
		if s == nil || len(s.Importers) != 3 || len(s.Exporters) != 3 || len(s.Conflicts) != 1 {
			return fmt.Errorf("listing of %s/shop: %+v", ns, s)
		}
		return nil
	})
	s := findService(l, ns, "shop")
	got := map[string]string{}
	for _, e := range s.Exporters {
		got[e.Cluster] = fmt.Sprintf("%s %s %v valid=%s conflict=%s", e.ServiceType, e.AddressType, e.Addresses, e.Valid, e.Conflict)
	}
	want := map[string]string{
		"member-1": "LoadBalancer LoadBalancer [203.0.113.80] valid=True conflict=True (PortConflict)",
		"member-2": "NodePort NodePort [172.31.2.1 172.31.2.2] valid=True conflict=True (PortConflict)",
		"member-3": "ExternalName  [] valid=False (InvalidServiceType) conflict=False (NoConflicts)",
	}
	for c, w := range want {
		if got[c] != w {
			t.Errorf("exporter %s: %q, want %q", c, got[c], w)
		}
	}
	for _, i := range s.Importers {
		if len(i.IPs) != 1 || !slices.Equal(i.Sources, []string{"member-1", "member-2"}) || i.Endpoints != 3 {
			t.Errorf("importer %+v: want one IP, sources member-1 and member-2, 3 endpoints", i)
		}
	}
	if s.Type != "ClusterSetIP" || !slices.Equal(s.Ports, []string{"http 80/TCP"}) || !strings.Contains(s.Conflicts[0], "8080/TCP in member-2") {
		t.Errorf("service %s %v conflicts %v", s.Type, s.Ports, s.Conflicts)
	}
	table, err := antreaplus(t, "service", "list")
	if err != nil || !strings.Contains(table, ns+"/shop") || !strings.Contains(table, "203.0.113.80 (http 80)") {
		t.Errorf("service list: %v\n%s", err, table)
	}
	t.Logf("service list:\n%s", table)

	for _, c := range []string{"member-1", "member-2", "member-3"} {
		if out, err := antreaplus(t, "service", "unexport", "shop", "-n", ns, "--context", c); err != nil {
			t.Fatalf("unexport from %s: %v\n%s", c, err, out)
		}
	}
	waitImported(t, importLimit, ns, "shop", clusters.Names, gone)
}

func findService(l federatedservice.Listing, ns, name string) *federatedservice.FederatedService {
	for i := range l.Services {
		if l.Services[i].Namespace == ns && l.Services[i].Name == name {
			return &l.Services[i]
		}
	}
	return nil
}
