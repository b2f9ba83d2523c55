package sandbox

import (
	"fmt"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig merges every cluster's admin kubeconfig into one file with
// a context, cluster and user per cluster, all named after the cluster
// (member-1 ... member-N). The current context is member-1.
func (s *Sandbox) writeKubeconfig(plans []ClusterPlan) error {
	merged := clientcmdapi.NewConfig()
	for _, p := range plans {
		one, err := clientcmd.LoadFromFile(s.clusterKubeconfig(p.Name))
		if err != nil {
			return fmt.Errorf("reading kubeconfig of %s: %w", p.Name, err)
		}
		if err := clientcmdapi.FlattenConfig(one); err != nil {
			return fmt.Errorf("inlining certificates of %s: %w", p.Name, err)
		}
		ctx, ok := one.Contexts[one.CurrentContext]
		if !ok {
			return fmt.Errorf("kubeconfig of %s has no current context", p.Name)
		}
		merged.Clusters[p.Name] = one.Clusters[ctx.Cluster]
		merged.AuthInfos[p.Name] = one.AuthInfos[ctx.AuthInfo]
		merged.Contexts[p.Name] = &clientcmdapi.Context{Cluster: p.Name, AuthInfo: p.Name, Namespace: "default"}
	}
	if len(plans) > 0 {
		merged.CurrentContext = plans[0].Name
	}
	if err := clientcmd.WriteToFile(*merged, s.KubeconfigPath()); err != nil {
		return fmt.Errorf("writing %s: %w", s.KubeconfigPath(), err)
	}
	return nil
}
