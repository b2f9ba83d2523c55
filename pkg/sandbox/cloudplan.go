package sandbox

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// CloudPorts are the loopback ports of the local cloud's emulator: its AWS
// (plain HTTP) and Azure (HTTPS) endpoints. They follow the DNS ports.
type CloudPorts struct {
	AWS   int `json:"aws"`
	Azure int `json:"azure"`
}

// CloudControllerPorts are the ports of the controllers one cloud member
// runs: the cloud controller's metrics and health endpoints and the policy
// controller's distribution API (HTTPS).
type CloudControllerPorts struct {
	Metrics int `json:"metrics"`
	Health  int `json:"health"`
	Policy  int `json:"policy"`
}

// cloudPortOffset puts the cloud's ports above the DNS ports.
const cloudPortOffset = dnsPortOffset + 3

// maxCloudMembers is how many members may import a cloud: one per cloud.
const maxCloudMembers = 2

// cloudPorts is how many ports the local cloud takes: the emulator's two,
// three per cloud member, then the tenancy processes' (PlanTenancy).
const cloudPorts = 2 + 3*maxCloudMembers + tenancyPorts

// PlanCloud lays out the emulator's ports of a sandbox whose member-1 API
// server listens on apiPortBase: base+303 (AWS) and base+304 (Azure).
func PlanCloud(apiPortBase int) CloudPorts {
	b := apiPortBase + cloudPortOffset
	return CloudPorts{AWS: b, Azure: b + 1}
}

// PlanCloudControllers lays out the controller ports of the slot-th member
// (from 0, in cluster order) that imports a cloud: base+305..307 for the
// first, base+308..310 for the second.
func PlanCloudControllers(apiPortBase, slot int) CloudControllerPorts {
	b := apiPortBase + cloudPortOffset + 2 + 3*slot
	return CloudControllerPorts{Metrics: b, Health: b + 1, Policy: b + 2}
}

// emulatorClouds are the clouds the emulator serves, in the order their
// VMs keep their plain names when names collide (see planVMs).
var emulatorClouds = []cloudv1alpha1.CloudProvider{cloudv1alpha1.ProviderAWS, cloudv1alpha1.ProviderAzure}

// emulatorAccount is the CloudProviderAccount the emulator's manifests
// create for a cloud, e.g. aws-emulator.
func emulatorAccount(cloud cloudv1alpha1.CloudProvider) string {
	return strings.ToLower(string(cloud)) + "-emulator"
}

// CloudPlacement says which cluster imports which cloud. Empty fields take
// the defaults of PlanCloudMembers.
type CloudPlacement struct {
	// Cluster imports both clouds, unless AWS or Azure says otherwise.
	Cluster string `json:"-"`
	AWS     string `json:"aws"`
	Azure   string `json:"azure"`
}

// IsZero is true when nothing was asked for.
func (p CloudPlacement) IsZero() bool { return p == CloudPlacement{} }

// String is e.g. "AWS into member-1, Azure into member-2".
func (p CloudPlacement) String() string {
	return fmt.Sprintf("AWS into %s, Azure into %s", p.AWS, p.Azure)
}

// CloudMember is a cluster that imports clouds of the emulator: its
// accounts, selectors, policy controller and cloud controller.
type CloudMember struct {
	// Cluster is the member's name (kubeconfig context).
	Cluster string `json:"cluster"`
	// Clouds it imports, e.g. [AWS]; Accounts their CloudProviderAccounts
	// in the cloud's namespace, e.g. [aws-emulator].
	Clouds   []cloudv1alpha1.CloudProvider `json:"clouds"`
	Accounts []string                      `json:"accounts"`
	// Ports of its controllers.
	Ports CloudControllerPorts `json:"ports"`
	// PolicyServer is its policy controller's distribution API, the
	// address its VM agents connect to, e.g. https://127.0.0.1:16750.
	PolicyServer string `json:"policyServer"`
}

// Imports reports whether the member imports cloud.
func (m CloudMember) Imports(cloud cloudv1alpha1.CloudProvider) bool {
	return slices.Contains(m.Clouds, cloud)
}

// resolve fills in the defaults: AWS into the first cluster, Azure into
// the second (the first when there is one), unless Cluster names one for
// both.
func (p CloudPlacement) resolve(clusters []string) CloudPlacement {
	if len(clusters) == 0 {
		return p
	}
	azure := clusters[0]
	if len(clusters) > 1 {
		azure = clusters[1]
	}
	return CloudPlacement{AWS: cmp.Or(p.AWS, p.Cluster, clusters[0]), Azure: cmp.Or(p.Azure, p.Cluster, azure)}
}

// PlanCloudMembers places the emulator's clouds on clusters (the sandbox's,
// in order) and lays out the controllers of each member that imports one,
// in cluster order, whose first member-1's API server listens on
// apiPortBase.
func PlanCloudMembers(clusters []string, p CloudPlacement, apiPortBase int) (CloudPlacement, []CloudMember, error) {
	if len(clusters) == 0 {
		return CloudPlacement{}, nil, fmt.Errorf("the sandbox has no cluster to import the cloud into")
	}
	p = p.resolve(clusters)
	byCluster := map[string][]cloudv1alpha1.CloudProvider{}
	for _, c := range []struct {
		cloud   cloudv1alpha1.CloudProvider
		cluster string
	}{{cloudv1alpha1.ProviderAWS, p.AWS}, {cloudv1alpha1.ProviderAzure, p.Azure}} {
		if !slices.Contains(clusters, c.cluster) {
			return p, nil, fmt.Errorf("the sandbox has no cluster %q to import %s into (it has %s)", c.cluster, c.cloud, strings.Join(clusters, ", "))
		}
		byCluster[c.cluster] = append(byCluster[c.cluster], c.cloud)
	}
	var members []CloudMember
	for _, name := range clusters {
		clouds, ok := byCluster[name]
		if !ok {
			continue
		}
		ports := PlanCloudControllers(apiPortBase, len(members))
		m := CloudMember{Cluster: name, Clouds: clouds, Ports: ports, PolicyServer: "https://" + loopback(ports.Policy)}
		for _, c := range clouds {
			m.Accounts = append(m.Accounts, emulatorAccount(c))
		}
		members = append(members, m)
	}
	return p, members, nil
}

// placementOf is where recorded members import each cloud.
func placementOf(members []CloudMember) CloudPlacement {
	var p CloudPlacement
	for _, m := range members {
		if m.Imports(cloudv1alpha1.ProviderAWS) {
			p.AWS = m.Cluster
		}
		if m.Imports(cloudv1alpha1.ProviderAzure) {
			p.Azure = m.Cluster
		}
	}
	return p
}

// choosePlacement is what StartCloud places: what was asked for, else what
// the sandbox recorded (a re-run keeps the clouds where they are, even
// when the sandbox grew), else the defaults. It fails when the ask moves a
// cloud that is imported already.
func choosePlacement(asked CloudPlacement, recorded []CloudMember, clusters []string) (CloudPlacement, error) {
	prev := placementOf(recorded)
	if prev.AWS == "" || prev.Azure == "" {
		return asked.resolve(clusters), nil
	}
	if asked.IsZero() {
		return prev, nil
	}
	if want := asked.resolve(clusters); want != prev {
		return asked, fmt.Errorf("the local cloud is imported already (%s), not %s: run 'antreaplus sandbox down' first to place it elsewhere", prev, want)
	}
	return prev, nil
}
