package main

import (
	"fmt"
	"regexp"
	"strings"

	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

// maxTenants bounds --tenants: tenant i's VPC is 10.(50+i).0.0/16.
const maxTenants = 50

// tenantTag is the tag of a tenant's VPC and VMs naming the tenant: its
// selector picks its VPC by it.
const tenantTag = "tenant"

// awsTenant is an AWS account of its own for one tenant (a Namespace):
// distinct credentials and a VPC named after the tenant.
type awsTenant struct {
	namespace string
	// accessKeyID and secretAccessKey are made up, like the others.
	accessKeyID, secretAccessKey string
	// vpc is the tenant's VPC: named after it, tagged tenant=<namespace>.
	vpc network
}

var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// planTenants gives each Namespace of --tenants its credentials and VPC,
// in order: tenant i (from 1) gets 10.(50+i).0.0/16, distinct from the
// seeded networks.
func planTenants(namespaces []string) ([]awsTenant, error) {
	if len(namespaces) > maxTenants {
		return nil, fmt.Errorf("--tenants: %d tenants, at most %d", len(namespaces), maxTenants)
	}
	seen := map[string]bool{}
	out := make([]awsTenant, 0, len(namespaces))
	for i, ns := range namespaces {
		if len(ns) > 63 || !dns1123Label.MatchString(ns) {
			return nil, fmt.Errorf("--tenants: %q is not a Namespace name", ns)
		}
		if seen[ns] {
			return nil, fmt.Errorf("--tenants: %s is listed twice", ns)
		}
		seen[ns] = true
		key := "AKIAEMU" + strings.ToUpper(strings.ReplaceAll(ns, "-", ""))
		out = append(out, awsTenant{
			namespace: ns, accessKeyID: key, secretAccessKey: "emulator-secret-of-" + ns,
			vpc: network{name: ns, cidr: fmt.Sprintf("10.%d.0.0/16", 50+i+1), env: "tenant", role: "app"},
		})
	}
	return out, nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// awsTenantCredentials are the credentials of the tenants' accounts.
func awsTenantCredentials(tenants []awsTenant) []awsemu.Credential {
	out := make([]awsemu.Credential, 0, len(tenants))
	for _, t := range tenants {
		out = append(out, awsemu.Credential{AccessKeyID: t.accessKeyID, SecretAccessKey: t.secretAccessKey})
	}
	return out
}

// seedAWSTenants adds each tenant's VPC and perVPC VMs, all tagged
// tenant=<namespace>. The emulator serves one inventory to every
// credential: a tenant's selector picks its VPC by the tag.
func seedAWSTenants(emu *awsemu.Server, tenants []awsTenant, perVPC int) error {
	for _, t := range tenants {
		vpc, err := emu.AddVPC(awsemu.VPCSpec{Region: awsRegion, CIDR: t.vpc.cidr, Name: t.vpc.name,
			Tags: map[string]string{tenantTag: t.namespace}})
		if err != nil {
			return err
		}
		for n := range perVPC {
			spec := awsemu.InstanceSpec{Region: awsRegion, VPCID: vpc, Name: fmt.Sprintf("%s-vm-%d", t.namespace, n+1),
				Tags: map[string]string{tenantTag: t.namespace, "env": t.vpc.env, "role": t.vpc.role}}
			if _, err := emu.AddInstance(spec); err != nil {
				return err
			}
		}
	}
	return nil
}

// tenantManifestFile is the file of a tenant's manifests.
func tenantManifestFile(namespace string) string { return "tenant-" + namespace + ".yaml" }

// tenantManifests are a tenant's Secret, account and selector (all named
// aws) in its Namespace, which they do not create: the Namespace is the
// tenant, labelled by whoever makes it one (`antreaplus tenant create`,
// the sandbox).
func tenantManifests(e endpoints, f flags, t awsTenant) string {
	return fmt.Sprintf(`# Written by cloud-emulator (development only): the AWS account of tenant %[1]s, pointing at the local emulator.
# The Namespace %[1]s must exist.
apiVersion: v1
kind: Secret
metadata:
  name: aws-credentials
  namespace: %[1]s
stringData:
  accessKeyID: %[2]s
  secretAccessKey: %[3]s
---
apiVersion: cloud.antreaplus.io/v1alpha1
kind: CloudProviderAccount
metadata:
  name: aws
  namespace: %[1]s
spec:
  provider: AWS
  pollIntervalSeconds: %[5]d
  aws:
    regions: [%[6]s]
    endpoint: %[4]s
    credentials:
      secretRef:
        name: aws-credentials
---
apiVersion: cloud.antreaplus.io/v1alpha1
kind: CloudEntitySelector
metadata:
  name: aws
  namespace: %[1]s
spec:
  accountRef:
    name: aws
  virtualMachines:
  - vpcMatch:
      tags: {%[7]s: %[1]s}
`, t.namespace, t.accessKeyID, t.secretAccessKey, e.aws, f.pollSeconds, awsRegion, tenantTag)
}
