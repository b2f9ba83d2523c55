package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/sandbox"
)

// configFlags are the kubeconfig and the contexts of every command that
// talks to clusters: declared once, on the root, as kubectl's
// genericclioptions.ConfigFlags are. A command acting on one cluster takes
// one --context (oneContext, currentContext); one that reads members takes
// it repeated (chosen), and every context when none is given.
type configFlags struct {
	kubeconfig string
	contexts   []string
}

// addTo declares --kubeconfig and --context on fs (the root's persistent flags).
func (f *configFlags) addTo(fs *pflag.FlagSet) {
	fs.StringVar(&f.kubeconfig, "kubeconfig", defaultKubeconfig(),
		"kubeconfig file(s), ':'-separated; defaults to $KUBECONFIG, else the sandbox's kubeconfig if there is one, else ~/.kube/config")
	fs.StringArrayVar(&f.contexts, "context", nil,
		"kubeconfig context of the cluster to act on; the commands that read several members take it repeated (default: every context)")
	docDefault(fs, "kubeconfig", "") // the usage says it
}

// docDefaultAnnotation holds, on a flag whose default depends on the
// environment, what the CLI reference says instead of this machine's value.
const docDefaultAnnotation = "antreaplus.io/doc-default"

// docDefault sets the default the CLI reference shows for the flag name of fs.
func docDefault(fs *pflag.FlagSet, name, text string) {
	_ = fs.SetAnnotation(name, docDefaultAnnotation, []string{text})
}

// complete registers the completion of --context: the contexts of the
// kubeconfig the command line names.
func (f *configFlags) complete(root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("context", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		raw, err := (&clientcmd.ClientConfigLoadingRules{Precedence: filepath.SplitList(f.kubeconfig)}).Load()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var names []string
		for name := range raw.Contexts {
			names = append(names, name)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	})
}

// load reads the kubeconfig.
func (f *configFlags) load() (*membership.Kubeconfig, error) {
	if f.kubeconfig == "" {
		return nil, errors.New("no kubeconfig: pass one with --kubeconfig or start a sandbox with 'antreaplus sandbox up'")
	}
	return membership.LoadKubeconfig(filepath.SplitList(f.kubeconfig)...)
}

// oneContext is the one --context given, required: what the command does
// to it ("join", "remove") says so when it is missing.
func (f *configFlags) oneContext(what string) (string, error) {
	switch len(f.contexts) {
	case 0:
		return "", fmt.Errorf("name the cluster to %s with --context CONTEXT", what)
	case 1:
		return f.contexts[0], nil
	}
	return "", fmt.Errorf("--context given %d times (%s): this command acts on one cluster", len(f.contexts), strings.Join(f.contexts, ", "))
}

// cluster is the cluster of the one --context given.
func (f *configFlags) cluster(what string) (membership.Cluster, *membership.Kubeconfig, error) {
	name, err := f.oneContext(what)
	if err != nil {
		return membership.Cluster{}, nil, err
	}
	kc, err := f.load()
	if err != nil {
		return membership.Cluster{}, nil, err
	}
	c, err := kc.Cluster(name)
	return c, kc, err
}

// currentContext is the client configuration of the one --context given,
// else of the kubeconfig's current context, and its name.
func (f *configFlags) currentContext() (*rest.Config, string, error) {
	if f.kubeconfig == "" {
		return nil, "", errors.New("no kubeconfig: pass one with --kubeconfig")
	}
	if len(f.contexts) > 1 {
		return nil, "", fmt.Errorf("--context given %d times (%s): this command acts on one cluster", len(f.contexts), strings.Join(f.contexts, ", "))
	}
	paths := filepath.SplitList(f.kubeconfig)
	if !slices.ContainsFunc(paths, fileExists) {
		return nil, "", fmt.Errorf("kubeconfig %s: no such file: pass one with --kubeconfig or $KUBECONFIG", f.kubeconfig)
	}
	var name string
	if len(f.contexts) == 1 {
		name = f.contexts[0]
	} else {
		raw, err := (&clientcmd.ClientConfigLoadingRules{Precedence: paths}).Load()
		if err != nil {
			return nil, "", fmt.Errorf("loading kubeconfig %s: %w", f.kubeconfig, err)
		}
		if name = raw.CurrentContext; name == "" {
			return nil, "", fmt.Errorf("kubeconfig %s has no current context: name the cluster with --context CONTEXT", f.kubeconfig)
		}
	}
	kc, err := membership.LoadKubeconfig(paths...)
	if err != nil {
		return nil, "", err
	}
	c, err := kc.Cluster(name)
	if err != nil {
		return nil, "", err
	}
	return c.Config, name, nil
}

// chosen are the clusters of the contexts given, else every context.
func (f *configFlags) chosen(kc *membership.Kubeconfig) ([]membership.Cluster, error) {
	return chosenContexts(kc, f.contexts)
}

// chosenContexts are the named contexts, else every context.
func chosenContexts(kc *membership.Kubeconfig, names []string) ([]membership.Cluster, error) {
	if len(names) == 0 {
		return kc.Clusters, nil
	}
	var out []membership.Cluster
	for _, n := range names {
		c, err := kc.Cluster(n)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// defaultKubeconfig is $KUBECONFIG, else the sandbox's kubeconfig if it
// exists, else ~/.kube/config.
func defaultKubeconfig() string {
	if env := os.Getenv("KUBECONFIG"); env != "" {
		return env
	}
	if sb := sandboxKubeconfigPath(); fileExists(sb) {
		return sb
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".kube", "config")
}

// sandboxKubeconfigPath is the path of the local sandbox's kubeconfig.
func sandboxKubeconfigPath() string {
	return sandbox.New(sandbox.Options{Progress: io.Discard}).KubeconfigPath()
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// listCurrent is the whole of a command that lists what one cluster holds
// (the one --context, else the current context): -o checked first, then
// what is read (what) printed as p says, table the table form.
func listCurrent[T any](ctx context.Context, f *configFlags, p *printFlags, out, errOut io.Writer, what string,
	read func(context.Context, *rest.Config) (T, error), table func(io.Writer, T) error) error {
	if err := p.validate(); err != nil {
		return err
	}
	cfg, name, err := f.currentContext()
	if err != nil {
		return err
	}
	fmt.Fprintf(errOut, "reading the %s of %s ...\n", what, name)
	v, err := read(ctx, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return p.print(out, v, func(w io.Writer) error { return table(w, v) })
}
