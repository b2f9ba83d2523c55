// Package controlplane wires the policy distribution into a
// controller-runtime manager, as the policy controller of a member cluster
// runs it: the feeder (API objects to compiled rules), the HTTPS server of
// the distribution API, the reconcilers of agent token Secrets and of the
// VirtualMachines' agent status, and the agentless consumer's token.
//
// # Usage
//
//	cert, err := controlplane.EnsureServingCert("/var/run/antreaplus/certs", []string{"policy-controller.antreaplus-system.svc"})
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Cache: controlplane.CacheOptions(), ...})
//	cp, err := controlplane.Setup(ctx, mgr, controlplane.Options{
//		Namespace: "antreaplus-system", ListenAddress: ":8443", Certificate: cert,
//		AgentlessNode: "antreaplus-cloud-controller", Registry: metrics.Registry,
//	})
//	// cp.Hub.Watch(...) serves a consumer in the same process;
//	// cp.Server.AgentsHandler() shows every agent's status.
//	err = mgr.Start(ctx)
package controlplane
