package services

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

const (
	valid       = mcsv1beta1.ServiceExportConditionValid
	ready       = mcsv1beta1.ServiceExportConditionReady
	conflict    = mcsv1beta1.ServiceExportConditionConflict
	importLimit = 60 * time.Second
)

// checkClusterSetImport checks the parts every ClusterSetIP import shares:
// type, ports, the derived Service's IP as the import's IP, the exporting clusters.
func checkClusterSetImport(i imported, ports string, exporters ...string) error {
	if i.imp == nil {
		return fmt.Errorf("no ServiceImport")
	}
	var got []string
	for _, p := range i.imp.Spec.Ports {
		got = append(got, fmt.Sprintf("%s %d/%s", p.Name, p.Port, p.Protocol))
	}
	if i.imp.Spec.Type != mcsv1beta1.ClusterSetIP || strings.Join(got, ",") != ports {
		return fmt.Errorf("import type %s ports %v, want ClusterSetIP %s", i.imp.Spec.Type, got, ports)
	}
	if i.derived == nil || len(i.imp.Spec.IPs) == 0 || !slices.Equal(i.imp.Spec.IPs, i.derived.Spec.ClusterIPs) || len(i.derived.Spec.Selector) != 0 {
		return fmt.Errorf("import IPs %v, want the ClusterIPs of a selector-less derived Service (%v)", i.imp.Spec.IPs, i.derived)
	}
	var clusters []string
	for _, c := range i.imp.Status.Clusters {
		clusters = append(clusters, c.Cluster)
	}
	if !slices.Equal(clusters, exporters) || !slices.Equal(i.sources(), exporters) {
		return fmt.Errorf("exporters %v, slices from %v, want %v", clusters, i.sources(), exporters)
	}
	return nil
}

func TestDifferentServiceTypesImportedEverywhere(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	// member-3's API server is stopped and restarted by another test, and
	// kwok no longer runs its Pods nor renews its nodes after that: member-3
	// exports a LoadBalancer, which depends on neither.
	np := createService(t, "member-1", ns, "web", nodePort())
	createService(t, "member-2", ns, "web")
	createPod(t, "member-2", ns, "web")
	lb := createService(t, exporter3, ns, "web", loadBalancer())
	setIngress(t, exporter3, lb, "203.0.113.10")
	exportService(t, "member-1", ns, "web", false)
	exportService(t, "member-2", ns, "web", true)
	exportService(t, exporter3, ns, "web", false)

	wantNodePort := nodeEndpoints(t, "member-1", np.Spec.Ports[0].NodePort)
	if len(wantNodePort) == 0 {
		t.Fatal("member-1's nodes report no address")
	}
	var podIP string
	waitImported(t, importLimit, ns, "web", clusters.Names, func(c string, i imported) error {
		if err := checkClusterSetImport(i, "http 80/TCP", "member-1", "member-2", exporter3); err != nil {
			return err
		}
		if got := i.endpoints(exporter3); !slices.Equal(got, []string{"203.0.113.10:80"}) {
			return fmt.Errorf("member-3 (LoadBalancer) endpoints %v", got)
		}
		if got := i.endpoints("member-1"); !slices.Equal(got, wantNodePort) {
			return fmt.Errorf("member-1 (NodePort) endpoints %v, want %v", got, wantNodePort)
		}
		pods := &corev1.PodList{}
		if err := cl(t, "member-2").List(bg, pods, client.InNamespace(ns)); err != nil {
			return err
		}
		if len(pods.Items) != 1 || pods.Items[0].Status.PodIP == "" {
			return fmt.Errorf("member-2's Pod has no IP yet (%d Pods)", len(pods.Items))
		}
		podIP = pods.Items[0].Status.PodIP
		if got := i.endpoints("member-2"); !slices.Equal(got, []string{podIP + ":80"}) {
			return fmt.Errorf("member-2 (flat network) endpoints %v, want its Pod %s", got, podIP)
		}
		for src, want := range map[string]string{"member-1": "NodePort", "member-2": "PodIP", exporter3: "LoadBalancer"} {
			if got := i.slices[src][0].Annotations[federationv1alpha1.AnnotationAddressType]; got != want {
				return fmt.Errorf("slice from %s has address type %q, want %q", src, got, want)
			}
		}
		return nil
	})
	t.Logf("imported everywhere: NodePort %v, Pod %s, LoadBalancer 203.0.113.10", wantNodePort, podIP)
	for c, says := range map[string]string{"member-1": "exported as NodePort", "member-2": "flat network", exporter3: "exported as LoadBalancer"} {
		waitCondition(t, c, ns, "web", valid, "True/Valid")
		if msg := waitCondition(t, c, ns, "web", ready, "True/Ready"); !strings.Contains(msg, says) {
			t.Errorf("%s: Ready says %q, want it to say %q", c, msg, says)
		}
		waitCondition(t, c, ns, "web", conflict, "False/NoConflicts")
	}

	// Unexport: exactly member-1's endpoints go, everywhere.
	unexport(t, "member-1", ns, "web")
	waitImported(t, importLimit, ns, "web", clusters.Names, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 80/TCP", "member-2", exporter3)
	})
	// Service deletion: the export is no longer valid and is withdrawn.
	deleteObject(t, exporter3, lb)
	waitCondition(t, exporter3, ns, "web", valid, "False/NoService")
	waitImported(t, importLimit, ns, "web", clusters.Names, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 80/TCP", "member-2")
	})
	// The last export goes: so does the import, everywhere.
	unexport(t, "member-2", ns, "web")
	waitImported(t, importLimit, ns, "web", clusters.Names, gone)
}
