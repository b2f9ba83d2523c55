package membership

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Kubeconfig is the set of clusters a kubeconfig names, one per context.
type Kubeconfig struct {
	// Paths are the files it was loaded from (merged as kubectl does).
	Paths []string
	// Clusters holds a Cluster per context, sorted by name.
	Clusters []Cluster
}

// LoadKubeconfig reads one or more kubeconfig files, merged in the order
// given as kubectl merges $KUBECONFIG.
func LoadKubeconfig(paths ...string) (*Kubeconfig, error) {
	if !slices.ContainsFunc(paths, fileExists) {
		return nil, fmt.Errorf("kubeconfig %s not found: pass one with --kubeconfig, or start a sandbox with 'antreaplus sandbox up'", strings.Join(paths, ":"))
	}
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: paths}
	raw, err := rules.Load()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", strings.Join(paths, ":"), err)
	}
	if len(raw.Contexts) == 0 {
		return nil, fmt.Errorf("kubeconfig %s has no contexts: pass another with --kubeconfig, or start a sandbox with 'antreaplus sandbox up'", strings.Join(paths, ":"))
	}
	kc := &Kubeconfig{Paths: paths}
	for _, name := range slices.Sorted(maps.Keys(raw.Contexts)) {
		c, err := contextCluster(*raw, name)
		if err != nil {
			return nil, err
		}
		kc.Clusters = append(kc.Clusters, c)
	}
	return kc, nil
}

func contextCluster(raw clientcmdapi.Config, name string) (Cluster, error) {
	cfg, err := clientcmd.NewNonInteractiveClientConfig(raw, name, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		return Cluster{}, fmt.Errorf("kubeconfig context %s: %w", name, err)
	}
	return Cluster{Name: name, Config: cfg}, nil
}

// Cluster returns the cluster of a context.
func (k *Kubeconfig) Cluster(context string) (Cluster, error) {
	for _, c := range k.Clusters {
		if c.Name == context {
			return c, nil
		}
	}
	return Cluster{}, fmt.Errorf("no context %q in kubeconfig %s: its contexts are %s", context, strings.Join(k.Paths, ":"), strings.Join(k.Names(), ", "))
}

// Names are the context names.
func (k *Kubeconfig) Names() []string {
	out := make([]string, 0, len(k.Clusters))
	for _, c := range k.Clusters {
		out = append(out, c.Name)
	}
	return out
}

// ByServer returns the context whose API server is server.
func (k *Kubeconfig) ByServer(server string) (Cluster, bool) {
	return clusterByServer(k.Clusters, server)
}

func clusterByServer(clusters []Cluster, server string) (Cluster, bool) {
	for _, c := range clusters {
		if sameServer(c.Config.Host, server) {
			return c, true
		}
	}
	return Cluster{}, false
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
