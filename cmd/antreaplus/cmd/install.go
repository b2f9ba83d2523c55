package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/install"
)

// clusterFlags name one cluster of a kubeconfig: the one --context.
type clusterFlags struct {
	*configFlags
	// context is the cluster's context, once config found it.
	context string
}

// config is the admin client configuration of the one --context; verb
// says what is done to it ("install into") when it is missing.
func (f *clusterFlags) config(verb string) (*rest.Config, error) {
	c, _, err := f.cluster(verb)
	if err != nil {
		return nil, err
	}
	f.context = c.Name
	return c.Config, nil
}

// installFlags are those of install and upgrade.
type installFlags struct {
	clusterFlags
	roles   []string
	values  []string
	wait    bool
	timeout time.Duration
}

// options reads the roles and the values files.
func (f *installFlags) options(out io.Writer) (install.Options, error) {
	roles, err := install.ParseRoles(f.roles)
	if err != nil {
		return install.Options{}, fmt.Errorf("--role: %w", err)
	}
	opts := install.Options{Roles: roles, Wait: f.wait, Timeout: f.timeout, Progress: out}
	for _, name := range f.values {
		data, err := os.ReadFile(name)
		if err != nil {
			return install.Options{}, fmt.Errorf("--values: %w", err)
		}
		opts.ValuesFiles = append(opts.ValuesFiles, install.ValuesFile{Name: name, Data: data})
	}
	return opts, nil
}

func newInstallCommand(cfg *configFlags, out io.Writer) *cobra.Command {
	return installCommand(cfg, out, false)
}

func newUpgradeCommand(cfg *configFlags, out io.Writer) *cobra.Command {
	return installCommand(cfg, out, true)
}

// installCommand is install, or upgrade: the same flags, the same work.
func installCommand(cfg *configFlags, out io.Writer, upgrade bool) *cobra.Command {
	f := &installFlags{clusterFlags: clusterFlags{configFlags: cfg}}
	c := &cobra.Command{
		Use:   "install --context CONTEXT [--role member|supervisor|cloud]... [--values FILE]... [--wait]",
		Short: "Install AntreaPlus into a cluster: the components of its roles, the CRDs",
		Example: `  antreaplus install --context edge-eu
  antreaplus install --context hub-1 --role supervisor --role cloud --values hub.yaml --wait`,
		Long: `install renders the chart built into antreaplus for the cluster's roles and values and
applies it with server-side apply (field manager antreaplus): the namespace antreaplus-system,
the CRDs, then every object in Helm's install order, printing each. The release is recorded in
the ConfigMap antreaplus-system/antreaplus-release. Roles: member (the default; every cluster
is one), supervisor (also the federation manager), cloud (also the cloud controller); repeat
--role or give a list. Values files are the chart's (deploy/charts/antreaplus/values.yaml).
A cluster that has a release is refused: use upgrade.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInstall(cmd.Context(), f, out, upgrade)
		},
	}
	if upgrade {
		c.Example = `  antreaplus upgrade --context edge-eu
  # add the cloud role, keeping the recorded values
  antreaplus upgrade --context hub-1 --role supervisor --role cloud --wait`
		c.Use = "upgrade --context CONTEXT [--role member|supervisor|cloud]... [--values FILE]... [--wait]"
		c.Short = "Upgrade AntreaPlus in a cluster: other roles or values, or this antreaplus's chart"
		c.Long = `upgrade applies the chart built into antreaplus to a cluster that has a release, as install
does, keeping the recorded roles unless --role is given and the recorded values unless
--values is given, and deletes (prunes) the release's objects the new rendering lacks: those
of a role dropped. A cluster without a release is refused: use install.`
	}
	c.Flags().StringArrayVar(&f.roles, "role", nil, "role of the cluster: member, supervisor or cloud (repeatable, or a comma-separated list; member is implied)")
	c.Flags().StringArrayVarP(&f.values, "values", "f", nil, "values file of the chart (repeatable; later files win)")
	c.Flags().BoolVar(&f.wait, "wait", false, "wait until every Deployment is available")
	c.Flags().DurationVar(&f.timeout, "timeout", install.DefaultTimeout, "how long to wait for the CRDs, a namespace being deleted and (--wait) the Deployments")
	return c
}

func runInstall(ctx context.Context, f *installFlags, out io.Writer, upgrade bool) error {
	ctx, cancel := signalContext(ctx)
	defer cancel()
	verb := map[bool]string{false: "install into", true: "upgrade"}[upgrade]
	cfg, err := f.config(verb)
	if err != nil {
		return err
	}
	opts, err := f.options(out)
	if err != nil {
		return err
	}
	apply := install.Install
	if upgrade {
		apply = install.Upgrade
	}
	res, err := apply(ctx, cfg, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", f.context, err)
	}
	fmt.Fprintln(out, summary(f.context, res, upgrade))
	if !upgrade {
		fmt.Fprintf(out, "\n%s\n", res.Rendering.Notes)
	}
	return nil
}

// summary is the line that ends an install or upgrade.
func summary(cluster string, res *install.Result, upgrade bool) string {
	verb := "installed in"
	if upgrade {
		verb = "upgraded in"
	}
	r := res.Release
	return fmt.Sprintf("AntreaPlus %s %s %s as %s (revision %d): %d created, %d configured, %d unchanged, %d pruned in %s.",
		r.AppVersion, verb, cluster, install.RoleList(r.Roles), r.Revision, res.Created, res.Configured, res.Unchanged, res.Pruned,
		res.Duration.Round(10*time.Millisecond))
}

type uninstallFlags struct {
	clusterFlags
	crds, force bool
	timeout     time.Duration
}

func newUninstallCommand(cfg *configFlags, out io.Writer) *cobra.Command {
	f := &uninstallFlags{clusterFlags: clusterFlags{configFlags: cfg}}
	c := &cobra.Command{
		Use:   "uninstall --context CONTEXT [--crds] [--force]",
		Short: "Remove AntreaPlus from a cluster, leaving nothing of it",
		Example: `  antreaplus uninstall --context edge-eu
  # also the CRDs, and with them every object of our kinds
  antreaplus uninstall --context edge-eu --crds`,
		Long: `uninstall deletes every object the release made (labelled app.kubernetes.io/instance=antreaplus
and managed-by antreaplus), the release's record and the namespace antreaplus-system with all it
holds, waits until they are gone and lists what is left. The CRDs stay unless --crds is given:
deleting them deletes every object of their kinds (policies, exports, VMs) in the cluster.
Antrea's own crd.antrea.io CRDs are never deleted. A cluster that is still in a federation is
refused: run 'antreaplus federation leave' first, or --force.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			cfg, err := f.config("uninstall")
			if err != nil {
				return err
			}
			res, err := install.Uninstall(ctx, cfg, install.UninstallOptions{CRDs: f.crds, Force: f.force, Timeout: f.timeout, Progress: out})
			if err != nil {
				return fmt.Errorf("%s: %w", f.context, err)
			}
			fmt.Fprintf(out, "AntreaPlus uninstalled from %s: %d deleted in %s; nothing left.\n", f.context, res.Deleted, res.Duration.Round(10*time.Millisecond))
			return nil
		},
	}
	c.Flags().BoolVar(&f.crds, "crds", false, "delete the chart's CRDs too, and with them every object of their kinds")
	c.Flags().BoolVar(&f.force, "force", false, "uninstall from a cluster that is still in a federation")
	c.Flags().DurationVar(&f.timeout, "timeout", install.DefaultTimeout, "how long to wait until everything deleted is gone")
	return c
}

// ensureInstalled gives a cluster the components of role before federation
// create or join makes it a supervisor or a member: an install, an upgrade
// adding the role to its release, or nothing when its release has it.
func ensureInstalled(ctx context.Context, c membership.Cluster, role install.Role, progress io.Writer) error {
	roles, err := install.ParseRoles([]string{string(role)})
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "%s: making sure AntreaPlus runs its %s components ...\n", c.Name, role)
	had, res, err := install.EnsureRoles(ctx, c.Config, install.Options{Roles: roles, Progress: progress})
	if err != nil {
		return fmt.Errorf("%s: installing AntreaPlus: %w", c.Name, err)
	}
	if res == nil {
		fmt.Fprintf(progress, "%s: AntreaPlus is installed as %s (revision %d); nothing to do\n", c.Name, install.RoleList(had.Roles), had.Revision)
		return nil
	}
	fmt.Fprintln(progress, summary(c.Name, res, had != nil))
	return nil
}
