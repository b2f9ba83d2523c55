#!/usr/bin/env bash
# `make demo`: starts a 3-cluster sandbox and shows what it holds.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
antreaplus="$repo/bin/antreaplus"
kubectl="$(hack/tools.sh dir)/kubectl"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "Starting three real clusters (etcd, kube-apiserver, controller-manager, scheduler, kwok each),"
say "federated with member-1 and member-2 as supervisors, each running a federation manager"
start=$SECONDS
"$antreaplus" sandbox up --clusters "${DEMO_CLUSTERS:-3}" --supervisors "${DEMO_SUPERVISORS:-2}"
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
echo "  kubectl patch clustermembership cluster.clusterset.k8s.io --type merge -p '{\"spec\":{\"clusterID\":\"renamed\"}}'"
"$kubectl" --context member-1 patch clustermembership cluster.clusterset.k8s.io --type merge \
  -p '{"spec":{"clusterID":"renamed"}}' 2>&1 | sed 's/^/  /' || true
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

say "The federation: every member is led by one supervisor (a Lease held in the member)"
leaders() {
  for ctx in $("$kubectl" config get-contexts -o name); do
    printf '  %-10s led by %s\n' "$ctx" "$("$kubectl" --context "$ctx" -n antreaplus-system get lease antreaplus-federation-leader -o jsonpath='{.spec.holderIdentity}' 2>/dev/null)"
  done
}
wait_led() { # until every member is led by someone other than $1
  for _ in $(seq 1 300); do
    local ok=1
    for ctx in $("$kubectl" config get-contexts -o name); do
      h=$("$kubectl" --context "$ctx" -n antreaplus-system get lease antreaplus-federation-leader -o jsonpath='{.spec.holderIdentity}' 2>/dev/null)
      { [ -z "$h" ] || [ "$h" = "$1" ]; } && ok=0
    done
    [ $ok = 1 ] && return 0
    sleep 0.2
  done
  return 1
}
wait_led none
# The preferred supervisors take their share after the hand-over hold-down (10 s).
for _ in $(seq 1 60); do leaders | grep -q "by member-2" && break; sleep 0.5; done
"$antreaplus" federation status || true

victim=$("$kubectl" --context member-1 -n antreaplus-system get lease antreaplus-federation-leader -o jsonpath='{.spec.holderIdentity}')
say "kill -9 the federation manager of $victim, which leads:"
leaders | grep "by $victim" || true
t0=$(date +%s.%N)
kill -9 "$(cat "$("$antreaplus" sandbox kubeconfig | xargs dirname)/managers/$victim.pid")"
wait_led "$victim"
t1=$(date +%s.%N)
printf '\nEvery member %s led was taken over in %.1f s:\n' "$victim" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')"
leaders

say "$victim's manager comes back (sandbox up restarts it) and takes its share back by hand-over"
"$antreaplus" sandbox up --clusters "${DEMO_CLUSTERS:-3}" --supervisors "${DEMO_SUPERVISORS:-2}" >/dev/null 2>&1
sleep 15
leaders

cat <<NEXT

Try it yourself:
  export KUBECONFIG=$KUBECONFIG
  $kubectl --context member-3 get nodes,crd
  $antreaplus sandbox status
  $antreaplus federation status
Manager logs: $(dirname "$KUBECONFIG")/managers/
Stop everything with:
  $antreaplus sandbox down
NEXT
