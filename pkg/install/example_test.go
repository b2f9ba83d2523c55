package install_test

import (
	"context"
	"fmt"
	"os"

	"k8s.io/client-go/tools/clientcmd"

	"antreaplus.io/antreaplus/pkg/install"
)

// A cluster's life as `antreaplus install`, `upgrade` and `uninstall` drive
// it: installed as a member, made a supervisor (the recorded values kept),
// and uninstalled with the CRDs.
func Example() {
	run := func(ctx context.Context, kubeconfig, context string) error {
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
			&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig},
			&clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
		if err != nil {
			return err
		}
		values := install.ValuesFile{Name: "values.yaml", Data: []byte("logVerbosity: 2\n")}
		res, err := install.Install(ctx, cfg, install.Options{
			Roles: []install.Role{install.RoleMember}, ValuesFiles: []install.ValuesFile{values}, Wait: true, Progress: os.Stdout,
		})
		if err != nil {
			return err
		}
		fmt.Printf("%d created in %s\n\n%s\n", res.Created, res.Duration, res.Rendering.Notes)
		if _, err := install.Upgrade(ctx, cfg, install.Options{Roles: []install.Role{install.RoleSupervisor}, Progress: os.Stdout}); err != nil {
			return err
		}
		u, err := install.Uninstall(ctx, cfg, install.UninstallOptions{CRDs: true, Progress: os.Stdout})
		if err != nil {
			return err
		}
		fmt.Println(u.Deleted, "deleted; left:", u.Left)
		return nil
	}
	_ = run
}

// The chart rendered offline for a supervisor, as Install renders it for
// the cluster's version.
func ExampleRender() {
	roles, err := install.ParseRoles([]string{"supervisor"})
	if err != nil {
		panic(err)
	}
	values, err := install.Values(roles)
	if err != nil {
		panic(err)
	}
	r, err := install.Render(install.RenderOptions{Values: values, KubeVersion: "v1.34.4"})
	if err != nil {
		panic(err)
	}
	fmt.Println(install.RoleList(roles), len(r.CRDs), "CRDs")
	for _, o := range r.Objects {
		if o.GetKind() == "Deployment" {
			fmt.Println(o.GetName())
		}
	}
	// Output:
	// member,supervisor 21 CRDs
	// antreaplus-coredns
	// antreaplus-federation-manager
	// antreaplus-member-controller
	// antreaplus-policy-controller
}
