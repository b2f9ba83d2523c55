#!/usr/bin/env bash
# Generates deepcopy functions (api/**/zz_generated.deepcopy.go) and CRD
# manifests (config/crd/bases) from the API types, and what the chart
# (deploy/charts/antreaplus) takes from the code: its CRDs and the RBAC of
# each component. `make verify` checks that the committed output is what
# this script produces.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
controller_gen=$(hack/tools.sh bin controller-gen)
chart=deploy/charts/antreaplus

echo "[generate] deepcopy for ./api/..."
"$controller_gen" object paths=./api/...
echo "[generate] CRDs into config/crd/bases"
rm -f config/crd/bases/*.yaml
# crd.antrea.io uses float64 priorities, as Antrea's published API does.
"$controller_gen" crd:allowDangerousTypes=true paths=./api/... output:crd:artifacts:config=config/crd/bases
echo "[generate] done: $(ls config/crd/bases | wc -l) CRDs"

echo "[generate] the chart's CRDs: config/crd/bases and the MCS CRDs of sigs.k8s.io/mcs-api"
rm -f "$chart"/crds/*.yaml
mkdir -p "$chart/crds"
# go list -m names no directory for a module not downloaded yet (a fresh machine).
go mod download sigs.k8s.io/mcs-api
cp config/crd/bases/*.yaml "$(go list -m -f '{{.Dir}}' sigs.k8s.io/mcs-api)"/config/crd/multicluster.x-k8s.io_*.yaml "$chart/crds/"
chmod 644 "$chart"/crds/*.yaml

# The RBAC of each component: the +kubebuilder:rbac markers of the packages
# whose code runs with the component's ServiceAccount. A package linked by
# several programs grants its rights to the components that list it here
# only. The federation account's rules (what supervisors may do in a member)
# are pkg/federation/membership's, written by its TestChartRBAC (-rewrite).
declare -A rbac_packages=(
  [federation-manager]="cmd/federation-manager pkg/federation/manager pkg/federation/sources"
  [member-controller]="pkg/membercontroller pkg/serviceexport/exportstatus pkg/entityexport/exportstatus pkg/federatedpolicy pkg/networks/networkstatus"
  [policy-controller]="cmd/policy-controller pkg/policydistribution/feeder pkg/policydistribution/agenttoken pkg/policydistribution/agentstatus pkg/policydistribution/policystatus pkg/policydistribution/policystats pkg/policydistribution/livetrace"
  [cloud-controller]="cmd/cloud-controller pkg/cloudcontroller/... pkg/externalentity pkg/tenancy"
  [coredns]="cmd/coredns pkg/dns/importcache"
  [console]="cmd/console"
)
echo "[generate] RBAC of ${!rbac_packages[*]} into $chart/files/rbac"
mkdir -p "$chart/files/rbac"
module=$(go list -m)
pids=()
for c in "${!rbac_packages[@]}"; do
  rm -f "$chart/files/rbac/$c.yaml"
  # Import paths, not ./dirs: controller-gen lists them in one go list (a
  # quarter of the time).
  # shellcheck disable=SC2046 # one paths= per package
  "$controller_gen" "rbac:roleName=antreaplus-$c,fileName=$c.yaml" $(printf "paths=$module/%s " ${rbac_packages[$c]}) \
    "output:rbac:artifacts:config=$chart/files/rbac" &
  pids+=($!)
done
echo "[generate] the CLI reference, docs/cli.md, from antreaplus's commands"
go run ./hack/clidocs docs/cli.md &
pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done
echo "[generate] done"
