// Package v1beta1 holds AntreaPlus's copy of Antrea's Traceflow API
// (crd.antrea.io/v1beta1 Traceflow, cluster-scoped): what `antreaplus trace`
// asks of a member that runs Antrea, to have Antrea's own datapath decide a
// Pod's leg of a flow (docs/trace.md, "Pods: Antrea's Traceflow").
//
// The types are wire-compatible with the API Antrea publishes: same group,
// version, kind, scope and JSON field names, with the same meaning. Only what
// a trace writes (the source, destination and packet of an injected or a
// live-traffic Traceflow) and reads back (the phase, the reason, the nodes'
// observations, the captured packet) is typed.
//
// It is apart from the other crd.antrea.io kinds (api/antrea/v1beta1)
// because no CRD is generated from it (+kubebuilder:skip): the
// traceflows.crd.antrea.io CRD is Antrea's own, installed with Antrea, and
// its being served in a member is how a trace knows that Antrea runs there.
// A copy in AntreaPlus's chart or sandbox would claim an Antrea that is not
// there. Deepcopy functions are generated.
//
// +kubebuilder:skip
// +kubebuilder:object:generate=true
// +groupName=crd.antrea.io
package v1beta1
