package fedpolicy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// testTerminated terminates dev-build-1 in its cloud (EC2's
// TerminateInstances): its RemoteEntity disappears from every member, the
// Group of the policy of member-2 that let it in loses its addresses, and
// so does that VM's agent. The sandbox keeps playing the VM's namespace: a
// connection from its old address is dropped.
func testTerminated(t *testing.T) {
	const name = "build-2-terminated"
	federation(t)
	src := vm(t, "dev-build-1")
	create(t, "member-2", ingressPolicy(name))
	waitFNP(t, "member-2", ns, name, 30*time.Second, allOf(realized, resolved("member-1")))
	waitProbe(t, "dev-build-1", "azure-dev-build-2:8080", connected, 30*time.Second)

	c := ec2Client(t)
	id := aws.ToString(instanceNamed(t, c, "dev-build-1").InstanceId)
	if _, err := c.TerminateInstances(bg, &ec2.TerminateInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatalf("TerminateInstances %s (dev-build-1): %v", id, err)
	}
	start := time.Now()
	for _, cluster := range []string{"member-2", "member-3"} {
		waitRemoteVMs(t, cluster, "member-1", []string{"dev-build-2", "dev-build-3"}, 45*time.Second)
	}
	t.Logf("dev-build-1 terminated: its RemoteEntity gone from every member after %s", time.Since(start).Round(100*time.Millisecond))
	waitFNP(t, "member-2", ns, name, 30*time.Second, allOf(realized, resolved(), func(p *policyv1alpha1.FederatedNetworkPolicy) error {
		return conditionIs(p, policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionFalse, "AwaitingRemoteSources")
	}))
	if cidrs := derivedCIDRs(t, "member-2", ns, name); slices.Contains(cidrs, src.IP+"/32") {
		t.Errorf("the Groups of fnp-%s still hold %s: %v", name, src.IP, cidrs)
	}
	waitRules(t, "azure-dev-build-2", 30*time.Second, func(rules string) error {
		if strings.Contains(rules, src.IP) {
			return fmt.Errorf("still allows %s", src.IP)
		}
		return nil
	})
	waitProbe(t, "dev-build-1", "azure-dev-build-2:8080", dropped, 30*time.Second)
	t.Logf("from the terminated VM's old address: dropped %s after the termination", time.Since(start).Round(100*time.Millisecond))
}
