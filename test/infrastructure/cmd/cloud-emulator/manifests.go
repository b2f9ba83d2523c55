package main

import (
	"fmt"
	"strings"
)

// endpoints are where the emulator serves, and the Azure identities.
type endpoints struct {
	aws, azure           string
	caFile               string
	tenant, subscription string
}

// manifestFile is one file of manifests the emulator writes.
type manifestFile struct {
	name, content string
}

// renderManifests are the files of manifests that point at the emulator:
// for each served cloud, cloud-aws.yaml and cloud-azure.yaml (a namespace,
// a Secret, an account and a selector importing every seeded VM: the prod
// network agentless, the dev network agented), and last cloud.yaml, every
// cloud's together. Applying a cloud's file to a cluster imports that
// cloud there. Each tenant's file, tenant-<ns>.yaml, comes before
// cloud.yaml.
func renderManifests(e endpoints, f flags, tenants []awsTenant) []manifestFile {
	header := "# Written by cloud-emulator (development only): accounts pointing at the local emulator.\n" +
		fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", f.namespace)
	var files []manifestFile
	all := header
	for _, c := range []struct {
		file, served string
		render       func(endpoints, flags) string
	}{{"cloud-aws.yaml", e.aws, awsManifests}, {"cloud-azure.yaml", e.azure, azureManifests}} {
		if c.served == "" {
			continue
		}
		body := c.render(e, f)
		files = append(files, manifestFile{name: c.file, content: header + body})
		all += body
	}
	for _, t := range tenants {
		files = append(files, manifestFile{name: tenantManifestFile(t.namespace), content: tenantManifests(e, f, t)})
	}
	return append(files, manifestFile{name: "cloud.yaml", content: all})
}

// awsManifests are the AWS account's Secret, account and selector.
func awsManifests(e endpoints, f flags) string {
	var b strings.Builder
	fmt.Fprintf(&b, `---
apiVersion: v1
kind: Secret
metadata:
  name: aws-emulator-credentials
  namespace: %[1]s
stringData:
  accessKeyID: %[2]s
  secretAccessKey: %[3]s
---
apiVersion: cloud.antreaplus.io/v1alpha1
kind: CloudProviderAccount
metadata:
  name: aws-emulator
  namespace: %[1]s
spec:
  provider: AWS
  pollIntervalSeconds: %[5]d
  aws:
    regions: [%[6]s]
    endpoint: %[4]s
    credentials:
      secretRef:
        name: aws-emulator-credentials
`, f.namespace, awsAccessKeyID, awsSecretAccessKey, e.aws, f.pollSeconds, awsRegion)
	b.WriteString(selectorYAML(f.namespace, "aws-emulator", f.edge))
	// And the prod VPC's load balancers and databases.
	b.WriteString("  cloudNativeServices:\n  - vpcMatch:\n      names: [prod]\n")
	return b.String()
}

// azureManifests are the Azure account's Secret, account and selector.
func azureManifests(e endpoints, f flags) string {
	return fmt.Sprintf(`---
apiVersion: v1
kind: Secret
metadata:
  name: azure-emulator-credentials
  namespace: %[1]s
stringData:
  subscriptionID: %[2]s
  tenantID: %[3]s
  clientID: %[4]s
  clientSecret: %[5]s
---
apiVersion: cloud.antreaplus.io/v1alpha1
kind: CloudProviderAccount
metadata:
  name: azure-emulator
  namespace: %[1]s
spec:
  provider: Azure
  pollIntervalSeconds: %[7]d
  azure:
    regions: [%[8]s]
    endpoint: %[6]s
    authorityHost: %[6]s
    credentials:
      secretRef:
        name: azure-emulator-credentials
`, f.namespace, e.subscription, e.tenant, azureClientID, azureClientSecret, e.azure, f.pollSeconds, azureRegion) +
		selectorYAML(f.namespace, "azure-emulator", f.edge)
}

func selectorYAML(ns, account string, edge bool) string {
	edgeVMs := ""
	if edge {
		edgeVMs = "  - vpcMatch:\n      names: [edge]\n    enforcementMode: Agented\n"
	}
	return fmt.Sprintf(`---
apiVersion: cloud.antreaplus.io/v1alpha1
kind: CloudEntitySelector
metadata:
  name: %[2]s
  namespace: %[1]s
spec:
  accountRef:
    name: %[2]s
  virtualMachines:
  - vpcMatch:
      names: [prod]
    enforcementMode: Agentless
  - vpcMatch:
      names: [dev]
    enforcementMode: Agented
`, ns, account) + edgeVMs
}
