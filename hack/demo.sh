#!/usr/bin/env bash
# `make demo`: starts a 3-cluster sandbox and shows what it holds.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
antreaplus="$repo/bin/antreaplus"
kubectl="$(hack/tools.sh dir)/kubectl"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "Starting three real clusters (etcd, kube-apiserver, controller-manager, scheduler, kwok each)"
start=$SECONDS
"$antreaplus" sandbox up --clusters "${DEMO_CLUSTERS:-3}"
echo "(took $((SECONDS - start))s)"
export KUBECONFIG=$("$antreaplus" sandbox kubeconfig)

say "antreaplus sandbox status"
"$antreaplus" sandbox status

say "kubectl --context member-2 get nodes -o wide"
"$kubectl" --context member-2 get nodes -o wide

say "Each cluster has its own Pod and Service CIDRs"
for ctx in $("$kubectl" config get-contexts -o name); do
  "$kubectl" --context "$ctx" create service clusterip demo --tcp=80:80 >/dev/null 2>&1 || true
  printf '%-10s node Pod CIDRs: %-40s Service demo ClusterIP: %s\n' "$ctx" \
    "$("$kubectl" --context "$ctx" get nodes -o jsonpath='{.items[*].spec.podCIDR}')" \
    "$("$kubectl" --context "$ctx" get service demo -o jsonpath='{.spec.clusterIP}')"
done

say "The AntreaPlus and Multi-Cluster Services CRDs in member-1"
"$kubectl" --context member-1 get crd -o custom-columns=NAME:.metadata.name,KIND:.spec.names.kind,SCOPE:.spec.scope

say "The API server refuses bad objects with a clear message"
cat <<'YAML' | "$kubectl" --context member-1 apply -f - 2>&1 | sed 's/^/  /' || true
apiVersion: federation.antreaplus.io/v1alpha1
kind: ClusterMembership
metadata:
  name: cluster.clusterset.k8s.io
spec:
  clusterID: ""
  federationID: demo
YAML
cat <<'YAML' | "$kubectl" --context member-1 apply -f - 2>&1 | sed 's/^/  /' || true
apiVersion: crd.antrea.io/v1beta1
kind: ClusterNetworkPolicy
metadata:
  name: bad-cidr
spec:
  priority: 5
  appliedTo:
  - podSelector: {}
  ingress:
  - action: Allow
    from:
    - ipBlock:
        cidr: 10.0.0.0/33
YAML

cat <<NEXT

Try it yourself:
  export KUBECONFIG=$KUBECONFIG
  $kubectl --context member-3 get nodes,crd
  $antreaplus sandbox status
Stop everything with:
  $antreaplus sandbox down
NEXT
