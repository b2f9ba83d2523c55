#!/usr/bin/env bash
# `make demo`: starts a federated 3-cluster sandbox and shows failover and a federated Service resolved by DNS.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
antreaplus="$repo/bin/antreaplus"
kubectl="$(hack/tools.sh dir)/kubectl"
FEDERATION_ID=sandbox
hack/ensure-packages.sh bind9-dnsutils jq  # dig, for the DNS answers; jq, for the tenancy section
# As root the cloud's agented VMs are network namespaces whose agents program nftables.
[ "$(id -u)" = 0 ] && hack/ensure-packages.sh nftables iproute2
dig=$(command -v dig)

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "Starting three real clusters (etcd, kube-apiserver, controller-manager, scheduler, kwok each),"
say "a local cloud (an AWS and Azure emulator, not the real clouds): AWS imported into member-1, Azure into member-2,"
say "federated with member-1 and member-2 as supervisors, each running a federation manager,"
say "and in every member a member controller and a DNS server (our CoreDNS build);"
say "in member-1 three tenants, each with an AWS account of its own, and their cloud controllers;"
say "outside the members, ExternalDNS publishing the federation's names to a DNS server of its own"
start=$SECONDS
vm_agents=()
[ "$(id -u)" = 0 ] && vm_agents=(--vm-agents)   # agented VMs as network namespaces: needs root
# DEMO_AS_INSTALLED=1: the chart installed in every cluster, each component run as its Pod (needs root)
[ "${DEMO_AS_INSTALLED:-}" = 1 ] && vm_agents+=(--as-installed)
tenancy=(--tenancy) # tenants in member-1 with a controller instance of their own or shared by two replicas
[ "${DEMO_AS_INSTALLED:-}" = 1 ] && tenancy=() # (the controllers as local processes only)
ext_dns=(--external-dns) # etcd, ExternalDNS and a DNS server publishing member-1's DNSEndpoints
[ "${DEMO_AS_INSTALLED:-}" = 1 ] && ext_dns=() # (local processes only)
# Every sandbox up of the demo: a member no supervisor reaches for 15 s is
# marked unreachable (the default is 60 s), so that the demo shows it soon.
up=(--clusters "${DEMO_CLUSTERS:-3}" --supervisors "${DEMO_SUPERVISORS:-2}" --manager-arg=--unreachable-grace=15s)
"$antreaplus" sandbox up "${up[@]}" --cloud --networks "${tenancy[@]}" "${vm_agents[@]}" "${ext_dns[@]}"
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

say "A federated Service: 'web' exported as a NodePort from member-1 and as a LoadBalancer from member-2"
for ctx in member-1 member-2 member-3; do
  "$kubectl" --context "$ctx" create namespace shop >/dev/null 2>&1 || true
done
web() { # type [nodePort]
  printf 'apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec:\n  type: %s\n  selector: {app: web}\n  ports:\n  - {name: http, protocol: TCP, port: 80, targetPort: 8080%s}\n' \
    "$1" "${2:+, nodePort: $2}"
}
web NodePort 31080 | "$kubectl" --context member-1 apply -f - >/dev/null
web LoadBalancer | "$kubectl" --context member-2 apply -f - >/dev/null
# No cloud load balancer here: give member-2's Service the ingress IP one would.
"$kubectl" --context member-2 -n shop patch service web --subresource=status --type=merge \
  -p '{"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.20"}]}}}' >/dev/null
echo "  antreaplus service export web -n shop --context member-1"
"$antreaplus" service export web -n shop --context member-1 | sed 's/^/  /'
echo "  antreaplus service export web -n shop --context member-2"
"$antreaplus" service export web -n shop --context member-2 | sed 's/^/  /'

dns3=$("$antreaplus" sandbox status -o json | sed -n 's/.*"address": "\(127\.0\.53\.3:[0-9]*\)".*/\1/p' | head -1)
dig3() { "$dig" @"${dns3%:*}" -p "${dns3#*:}" +short "$@"; }
for _ in $(seq 1 100); do [ -n "$(dig3 web.shop.svc.clusterset.local)" ] && break; sleep 0.2; done

say "antreaplus service list"
"$antreaplus" service list

say "member-3 exports nothing, yet its DNS server ($dns3) resolves the federated Service"
for q in "web.shop.svc.clusterset.local" \
         "web.shop.${FEDERATION_ID}.svc.cluster.local" \
         "web.shop.member-1.${FEDERATION_ID}.svc.cluster.local" \
         "web.shop.member-2.${FEDERATION_ID}.svc.cluster.local"; do
  printf '  dig %-50s -> %s\n' "$q" "$(dig3 "$q" | tr '\n' ' ')"
done
printf '  dig %-50s -> %s\n' "SRV _http._tcp.web.shop.member-1.${FEDERATION_ID}.svc.cluster.local" \
  "$(dig3 SRV "_http._tcp.web.shop.member-1.${FEDERATION_ID}.svc.cluster.local" | head -1)"
echo "  (clusterset.local: the ServiceImport's cluster-set IP; the federation names: what each"
echo "   exporter offers from outside: member-1's nodes on NodePort 31080, member-2's load balancer)"
printf '  dig %-50s -> %s\n' "kubernetes.default.svc.cluster.local" "$(dig3 kubernetes.default.svc.cluster.local | tr '\n' ' ')"
echo "  (the same server is member-3's whole resolver: its own Services under cluster.local too)"

say "Federated names outside the federation: ExternalDNS publishes them, a DNS server outside the members answers"
if [ ${#ext_dns[@]} -eq 0 ]; then
  echo "  (skipped: --external-dns runs ExternalDNS, its etcd and DNS server as local processes, not as installed)"
else
  ext=$("$antreaplus" sandbox status -o json 2>/dev/null | jq -r '.externalDNS | "\(.server.addr):\(.server.port)"')
  domain=$("$antreaplus" sandbox status -o json 2>/dev/null | jq -r '.externalDNS.domain')
  fail() { echo "  FAIL: $*" >&2; exit 1; }
  ask() { # NAME: "<rcode> <its A records, sorted>", from the external DNS server
    local out
    out=$("$dig" @"${ext%:*}" -p "${ext#*:}" +noall +comments +answer +time=2 +tries=1 "$1" A 2>/dev/null) || { echo "NO-ANSWER"; return 0; }
    echo "$(sed -n 's/.*status: \([A-Z]*\),.*/\1/p' <<<"$out") $(awk '$4 == "A" {print $5}' <<<"$out" | sort | xargs)" | sed 's/ *$//'
  }
  wait_answer() { # NAME WANT SECONDS: until the server answers NAME with WANT
    local deadline=$((SECONDS + $3)) got
    while :; do
      got=$(ask "$1")
      [ "$got" = "$2" ] && return 0
      [ $SECONDS -ge $deadline ] && fail "$1: '$got' after $3 s, want '$2'"
      sleep 0.5
    done
  }
  show() { # NAME WANT [NOTE]: the answer, which must be WANT
    local got
    got=$(ask "$1")
    printf '  dig %-66s -> %s%s\n' "$1" "$got" "${3:+   ($3)}"
    [ "$got" = "$2" ] || fail "$1 answers '$got', want '$2'"
  }
  echo "  member-1's ClusterMembership asks its leader for the records (antreaplus sandbox up --external-dns set it):"
  "$kubectl" --context member-1 get clustermembership cluster.clusterset.k8s.io -o jsonpath='    spec.externalDNS: {.spec.externalDNS}{"\n"}'
  echo "  ExternalDNS (--source=crd --provider=coredns --registry=txt) publishes member-1's DNSEndpoints into an etcd;"
  echo "  our CoreDNS build (its etcd plugin) answers $domain from it on $ext"
  echo "  'web' in namespace demo-ext: a LoadBalancer Service exported from member-2 (region sandbox, zone member-2)"
  echo "  and from member-3 (region sandbox-2, zone member-3). No load-balancer controller runs here: the demo writes"
  echo "  each Service's status.loadBalancer.ingress itself (kubectl patch --subresource=status), as a cloud's would:"
  for m in member-2:203.0.113.2 member-3:203.0.113.3; do
    ctx=${m%%:*} ip=${m#*:}
    "$kubectl" --context "$ctx" create namespace demo-ext >/dev/null 2>&1 || true
    printf 'apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: demo-ext}\nspec:\n  type: LoadBalancer\n  selector: {app: web}\n  ports:\n  - {name: http, protocol: TCP, port: 80, targetPort: 8080}\n' \
      | "$kubectl" --context "$ctx" apply -f - >/dev/null
    "$kubectl" --context "$ctx" -n demo-ext patch service web --subresource=status --type=merge \
      -p "{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"$ip\"}]}}}" >/dev/null
    echo "    $ctx: ingress $ip; antreaplus service export web -n demo-ext --context $ctx"
    "$antreaplus" service export web -n demo-ext --context "$ctx" | sed 's/^/      /'
  done
  fed="web.demo-ext.${FEDERATION_ID}.svc.$domain"
  r1="web.demo-ext.${FEDERATION_ID}.svc.sandbox.$domain"
  r2="web.demo-ext.${FEDERATION_ID}.svc.sandbox-2.$domain"
  z2="web.demo-ext.${FEDERATION_ID}.svc.member-2.sandbox.$domain"
  z3="web.demo-ext.${FEDERATION_ID}.svc.member-3.sandbox-2.$domain"
  z1="web.demo-ext.${FEDERATION_ID}.svc.member-1.sandbox.$domain"
  t0=$SECONDS
  wait_answer "$fed" "NOERROR 203.0.113.2 203.0.113.3" 60
  wait_answer "$z3" "NOERROR 203.0.113.3" 30
  echo "  published in $((SECONDS - t0)) s after the exports (ExternalDNS syncs on events, at most every 5 s)"
  echo "  the DNSEndpoint member-1's leader wrote (kubectl --context member-1 -n antreaplus-system get dnsendpoints):"
  "$kubectl" --context member-1 -n antreaplus-system get dnsendpoints.externaldns.k8s.io web.demo-ext \
    -o jsonpath='{range .spec.endpoints[*]}{.dnsName}{" "}{.recordType}{" "}{.targets}{" ttl "}{.recordTTL}{"\n"}{end}' | sed 's/^/    /'
  echo "  (the per-cluster names are the SRV records' targets; ExternalDNS's coredns provider publishes A, AAAA and"
  echo "   CNAME records, not SRV: docs/external-dns.md)"
  echo "  dig @${ext%:*} -p ${ext#*:} NAME A:"
  show "$fed" "NOERROR 203.0.113.2 203.0.113.3" "the federation"
  show "$r1" "NOERROR 203.0.113.2" "region sandbox"
  show "$r2" "NOERROR 203.0.113.3" "region sandbox-2"
  show "$z2" "NOERROR 203.0.113.2" "zone member-2 of sandbox"
  show "$z3" "NOERROR 203.0.113.3" "zone member-3 of sandbox-2"
  show "$z1" "NXDOMAIN" "no exporter in zone member-1: no name, no fallback"
  show "web.shop.${FEDERATION_ID}.svc.$domain" "NOERROR 203.0.113.20" \
    "shop/web: member-2's load balancer; member-1's NodePort nodes have no ExternalIP"

  sbdir=$(dirname "$KUBECONFIG")
  say "Cut member-3 off: kill -9 its API server; the federation marks it unreachable after 15 s (--unreachable-grace)"
  t0=$(date +%s.%N)
  kill -9 "$(cat "$sbdir/kwok/clusters/member-3/pids/kube-apiserver.pid")"
  wait_answer "$fed" "NOERROR 203.0.113.2" 90
  t1=$(date +%s.%N)
  wait_answer "$r2" "NXDOMAIN" 15
  printf '  member-3 left the names %.1f s after its API server died:\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')"
  show "$fed" "NOERROR 203.0.113.2" "the federation: member-2 alone"
  show "$r1" "NOERROR 203.0.113.2" "region sandbox, untouched"
  show "$r2" "NXDOMAIN" "region sandbox-2: no exporter left"
  show "$z3" "NXDOMAIN" "zone member-3"

  say "member-3 comes back (sandbox up restarts its API server) and returns to the names"
  t0=$(date +%s.%N)
  "$antreaplus" sandbox up "${up[@]}" >/dev/null 2>&1 || fail "sandbox up did not restart member-3"
  t1=$(date +%s.%N)
  wait_answer "$fed" "NOERROR 203.0.113.2 203.0.113.3" 90
  t2=$(date +%s.%N)
  wait_answer "$r2" "NOERROR 203.0.113.3" 15
  printf '  member-3 was back in the names %.1f s after sandbox up began restarting it (sandbox up itself took %.1f s):\n' \
    "$(awk -v a="$t0" -v b="$t2" 'BEGIN{print b-a}')" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')"
  show "$fed" "NOERROR 203.0.113.2 203.0.113.3" "the federation"
  show "$r2" "NOERROR 203.0.113.3" "region sandbox-2"
  show "$z3" "NOERROR 203.0.113.3" "zone member-3 of sandbox-2"
fi

say "The local cloud: AWS's account and selector in member-1's namespace cloud-demo (Azure's are in member-2's)"
for _ in $(seq 1 100); do
  [ "$("$kubectl" --context member-1 -n cloud-demo get externalentities -o name 2>/dev/null | wc -l)" -ge 8 ] && break; sleep 0.3
done
"$kubectl" --context member-1 -n cloud-demo get cloudprovideraccounts,cloudentityselectors
echo
"$kubectl" --context member-1 -n cloud-demo get virtualmachines -l cloud.antreaplus.io/account-name=aws-emulator
echo
echo "  each VM network interface is an Antrea ExternalEntity, labelled with its cloud tags:"
"$kubectl" --context member-1 -n cloud-demo get externalentities -l tag.cloud.antreaplus.io/role=web \
  -o custom-columns=NAME:.metadata.name,ENDPOINTS:.spec.endpoints[*].ip,ENFORCED-BY:.spec.externalNode

say "An Antrea NetworkPolicy on the agentless web VMs of AWS becomes security groups in the cloud"
policy=$(cat <<'YAML'
apiVersion: crd.antrea.io/v1beta1
kind: NetworkPolicy
metadata: {name: web-ingress, namespace: cloud-demo}
spec:
  priority: 5
  appliedTo:
  - externalEntitySelector:
      matchLabels:
        cloud.antreaplus.io/kind: VirtualMachine
        cloud.antreaplus.io/account-name: aws-emulator
        tag.cloud.antreaplus.io/role: web
  ingress:
  - action: Allow            # HTTPS from the VM dev-build-1 only
    from:
    - externalEntitySelector:
        matchLabels: {cloud.antreaplus.io/account-name: aws-emulator, tag.cloud.antreaplus.io/Name: dev-build-1}
    ports: [{protocol: TCP, port: 443}]
  - action: Drop             # everything else, dev-build-2 included
    from: [{ipBlock: {cidr: 0.0.0.0/0}}, {ipBlock: {cidr: "::/0"}}]
YAML
)
echo "$policy" | sed 's/^/  /'
echo "$policy" | "$kubectl" --context member-1 apply -f - >/dev/null
for _ in $(seq 1 100); do
  st=$("$kubectl" --context member-1 -n cloud-demo get networkpolicies.crd.antrea.io web-ingress -o jsonpath='{.metadata.generation}/{.status.observedGeneration}/{.status.phase}')
  [ "${st%%/*}/${st%%/*}/Realized" = "$st" ] && break; sleep 0.3
done
echo
"$kubectl" --context member-1 -n cloud-demo get networkpolicies.crd.antrea.io web-ingress \
  -o custom-columns='POLICY:.metadata.name,PHASE:.status.phase,REALIZED:.status.currentNodesRealized,DESIRED:.status.desiredNodesRealized,GENERATION:.status.observedGeneration'
aws_ep=$(sed -n 's/^AWS .* endpoint \(http[^ ]*\) .*accessKeyID \([^ ]*\) *secretAccessKey \([^ ]*\).*/\1 \2:\3/p' "$(dirname "$KUBECONFIG")/cloud/cloud-emulator.log" | head -1)
echo
echo "  the emulator's EC2 API (DescribeSecurityGroups, signed with SigV4 by curl) now holds:"
curl -s --aws-sigv4 "aws:amz:us-east-1:ec2" --user "${aws_ep#* }" -d "Action=DescribeSecurityGroups&Version=2016-11-15" "${aws_ep%% *}/" \
  | sed 's#<item><ownerId>#\n#g' | grep '<groupName>antreaplus' | while read -r g; do
    name=$(echo "$g" | sed 's#.*<groupName>\([^<]*\)</groupName>.*#\1#')
    ingress=$(echo "$g" | sed 's#.*<ipPermissions>\(.*\)</ipPermissions>.*#\1#')
    ports=$(echo "$ingress" | grep -o '<ipProtocol>[^<]*</ipProtocol><fromPort>[0-9]*' | sed 's#<ipProtocol>\([^<]*\)</ipProtocol><fromPort>#\1/#' | sort -u | tr '\n' ' ')
    from=$(echo "$ingress" | grep -o '<cidrIp[v6]*>[^<]*' | sed 's#<cidrIp[v6]*>##' | tr '\n' ' ')
    echo "  $name: inbound ${ports}from ${from}only"
  done
ip1=$("$kubectl" --context member-1 -n cloud-demo get externalentities -l tag.cloud.antreaplus.io/Name=dev-build-1,cloud.antreaplus.io/account-name=aws-emulator -o jsonpath='{.items[0].spec.endpoints[0].ip}')
ip2=$("$kubectl" --context member-1 -n cloud-demo get externalentities -l tag.cloud.antreaplus.io/Name=dev-build-2,cloud.antreaplus.io/account-name=aws-emulator -o jsonpath='{.items[0].spec.endpoints[0].ip}')
echo "  -> dev-build-1 ($ip1) may reach the web VMs on 443; dev-build-2 ($ip2) and everyone else are blocked"

say "Agented VMs: each runs the VM agent (nftables); a policy allows dev-build-1 and blocks dev-build-3"
if [ ${#vm_agents[@]} -eq 0 ]; then
  echo "  (skipped: the agented VMs are network namespaces, which need root)"
else
  policy2=$(cat <<'YAML'
apiVersion: crd.antrea.io/v1beta1
kind: NetworkPolicy
metadata: {name: build-2-ingress, namespace: cloud-demo}
spec:
  priority: 5
  appliedTo:
  - externalEntitySelector:
      matchLabels: {cloud.antreaplus.io/account-name: aws-emulator, tag.cloud.antreaplus.io/Name: dev-build-2}
  ingress:
  - action: Allow            # port 8080 from dev-build-1 only
    from:
    - externalEntitySelector:
        matchLabels: {cloud.antreaplus.io/account-name: aws-emulator, tag.cloud.antreaplus.io/Name: dev-build-1}
    ports: [{protocol: TCP, port: 8080}]
  - action: Drop
    from: [{ipBlock: {cidr: 0.0.0.0/0}}]
YAML
)
  echo "  before any policy, real TCP connections from the VMs' namespaces:"
  for from in dev-build-1 dev-build-3; do "$antreaplus" sandbox probe --from "$from" --to dev-build-2:8080 | sed 's/^/    /'; done
  echo "$policy2" | sed 's/^/  /'
  echo "$policy2" | "$kubectl" --context member-1 apply -f - >/dev/null
  for _ in $(seq 1 30); do
    "$antreaplus" sandbox probe --from dev-build-3 --to dev-build-2:8080 --expect blocked --timeout 1s >/dev/null 2>&1 && break; sleep 1
  done
  echo "  after (enforced by dev-build-2's agent in nftables):"
  for from in dev-build-1 dev-build-3; do "$antreaplus" sandbox probe --from "$from" --to dev-build-2:8080 | sed 's/^/    /'; done
  "$kubectl" --context member-1 -n cloud-demo get networkpolicies.crd.antrea.io build-2-ingress \
    -o custom-columns='POLICY:.metadata.name,PHASE:.status.phase,REALIZED:.status.currentNodesRealized,DESIRED:.status.desiredNodesRealized' | sed 's/^/  /'
fi

# The two federated sections: probes from a VM, indented; a wait until a
# probe has the outcome wanted (connected or blocked); the Antrea policy a
# federated policy of member-2 became, with its Groups.
probes() { # from to...
  local from=$1
  shift
  for to in "$@"; do "$antreaplus" sandbox probe --from "$from" --to "$to" | sed 's/^/    /'; done
}
wait_probe() { # from to expect
  for _ in $(seq 1 30); do
    "$antreaplus" sandbox probe --from "$1" --to "$2" --expect "$3" --timeout 1s >/dev/null 2>&1 && return 0
    sleep 1
  done
  return 1
}
vm_netns() { # VM: the network namespace that plays it
  { "$antreaplus" sandbox status -o json 2>/dev/null || true; } | grep -o "\"netns\": *\"ap-[0-9a-f]*-$1\"" | head -1 | sed 's/.*"\([^"]*\)"$/\1/' || true
}
vm_dig() { # VM NAME: dig NAME from the VM's namespace with its own resolver, until it answers (60 s)
  local ns answer=""
  ns=$(vm_netns "$1")
  echo "    ip netns exec $ns dig +short $2"
  for _ in $(seq 1 60); do
    answer=$(ip netns exec "$ns" "$dig" +short +time=2 +tries=1 "$2" 2>/dev/null | head -1 || true)
    [ -n "$answer" ] && break
    sleep 1
  done
  echo "    ${answer:-(no answer in 60s)}"
}
derived() { # federated policy name
  echo "  the Antrea NetworkPolicy fnp-$1 the member controller derived from it (remote peers as ipBlocks of Groups):"
  "$kubectl" --context member-2 -n cloud-demo get networkpolicies.crd.antrea.io "fnp-$1" -o yaml \
    | sed -n '/^spec:/,/^status:/{/^status:/!p}' | sed 's/^/    /'
  "$kubectl" --context member-2 -n cloud-demo get groups.crd.antrea.io -l "policy.antreaplus.io/federated-policy=$1" \
    -o custom-columns='GROUP:.metadata.name,IPBLOCKS:.spec.ipBlocks[*].cidr' | sed 's/^/    /'
}
policy_cli() { # antreaplus policy ARGS..., without its progress line
  echo "  antreaplus policy $*"
  "$antreaplus" policy "$@" 2>&1 | grep -v '^reading the policies' | sed 's/^/  /'
}

say "Federated NetworkPolicy: egress"
if [ ${#vm_agents[@]} -eq 0 ]; then
  echo "  (skipped: the agented VMs are network namespaces, which need root)"
else
  dev3=$("$kubectl" --context member-1 -n cloud-demo get externalentities -l tag.cloud.antreaplus.io/Name=dev-build-3,cloud.antreaplus.io/account-name=aws-emulator -o jsonpath='{.items[0].spec.endpoints[0].ip}')
  echo "  member-1 puts a Service in front of its VM dev-build-3 (no selector: its owner writes the EndpointSlice)"
  echo "  and exports it over the flat network (the VMs of both clouds share one network):"
  echo_svc=$(cat <<YAML
apiVersion: v1
kind: Service
metadata: {name: vm-echo, namespace: cloud-demo}
spec:
  ports: [{name: echo, protocol: TCP, port: 8080, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: vm-echo-dev-build-3
  namespace: cloud-demo
  labels: {kubernetes.io/service-name: vm-echo, endpointslice.kubernetes.io/managed-by: cloud-demo-admin}
addressType: IPv4
ports: [{name: echo, protocol: TCP, port: 8080}]
endpoints: [{addresses: [$dev3], conditions: {ready: true}}]
YAML
)
  echo "$echo_svc" | sed 's/^/  /'
  echo "$echo_svc" | "$kubectl" --context member-1 apply -f - >/dev/null
  echo "  antreaplus service export vm-echo -n cloud-demo --context member-1 --flat-network"
  "$antreaplus" service export vm-echo -n cloud-demo --context member-1 --flat-network 2>&1 | sed 's/^/  /'
  echo "  azure-dev-build-3 finds it by name with its own resolver, which its agent pointed at its DNS forwarder"
  echo "  (127.0.0.153): clusterset.local goes to member-2's DNS server, whose address member-2's policy controller gave:"
  vm_dig azure-dev-build-3 vm-echo.cloud-demo.svc.clusterset.local
  echo "  before any policy, real TCP connections from azure-dev-build-3 (an Azure VM of member-2):"
  probes azure-dev-build-3 dev-build-3:8080 dev-build-1:8080
  policy3=$(cat <<'YAML'
apiVersion: policy.antreaplus.io/v1alpha1
kind: FederatedNetworkPolicy
metadata: {name: build-3-egress, namespace: cloud-demo}
spec:
  priority: 5
  appliedTo:
  - externalEntitySelector:
      matchLabels: {cloud.antreaplus.io/account-name: azure-emulator, tag.cloud.antreaplus.io/Name: dev-build-3}
  egress:
  - action: Allow            # the federated Service vm-echo, whoever exports it
    toServices: [{name: vm-echo, namespace: cloud-demo, scope: ClusterSet}]
  - action: Drop             # and nothing else of the VMs' networks
    to: [{ipBlock: {cidr: 10.0.0.0/8}}]
YAML
)
  echo "$policy3" | sed 's/^/  /'
  echo "$policy3" | "$kubectl" --context member-2 apply -f - >/dev/null
  wait_probe azure-dev-build-3 dev-build-1:8080 blocked || true
  echo "  after (enforced by azure-dev-build-3's agent, through member-2's policy controller):"
  probes azure-dev-build-3 dev-build-3:8080 dev-build-1:8080
  derived build-3-egress
  policy_cli status build-3-egress -n cloud-demo --context member-2
fi

say "Federated NetworkPolicy: ingress"
if [ ${#vm_agents[@]} -eq 0 ]; then
  echo "  (skipped: the agented VMs are network namespaces, which need root)"
else
  export_yaml=$(cat <<'YAML'
apiVersion: federation.antreaplus.io/v1alpha1
kind: EntityExport
metadata: {name: dev-vms, namespace: cloud-demo}
spec:
  externalEntitySelector:    # member-1's dev VMs, for the other members' federated policies
    matchLabels: {cloud.antreaplus.io/kind: VirtualMachine, tag.cloud.antreaplus.io/env: dev}
YAML
)
  echo "  member-1 exports its dev VMs:"
  echo "$export_yaml" | sed 's/^/  /'
  echo "$export_yaml" | "$kubectl" --context member-1 apply -f - >/dev/null
  for _ in $(seq 1 100); do
    [ "$("$kubectl" --context member-2 -n cloud-demo get remoteentities -l federation.antreaplus.io/source-cluster=member-1 -o name | wc -l)" -ge 3 ] && break
    sleep 0.3
  done
  echo "  member-2's leader imports them (kubectl --context member-2 -n cloud-demo get remoteentities):"
  "$kubectl" --context member-2 -n cloud-demo get remoteentities \
    -o custom-columns='NAME:.metadata.name,SOURCE:.spec.sourceCluster,VM:.metadata.labels.tag\.cloud\.antreaplus\.io/Name,ENDPOINTS:.spec.endpoints[*].ip' | sed 's/^/    /'
  echo "  before any policy, real TCP connections to azure-dev-build-2 (an Azure VM of member-2):"
  for from in dev-build-1 dev-build-3; do probes "$from" azure-dev-build-2:8080; done
  policy4=$(cat <<'YAML'
apiVersion: policy.antreaplus.io/v1alpha1
kind: FederatedNetworkPolicy
metadata: {name: build-2-from-aws, namespace: cloud-demo}
spec:
  priority: 5
  appliedTo:
  - externalEntitySelector:
      matchLabels: {cloud.antreaplus.io/account-name: azure-emulator, tag.cloud.antreaplus.io/Name: dev-build-2}
  ingress:
  - action: Allow            # port 8080 from member-1's VM dev-build-1 only
    from:
    - scope: ClusterSet
      externalEntitySelector:
        matchLabels: {federation.antreaplus.io/source-cluster: member-1, tag.cloud.antreaplus.io/Name: dev-build-1}
    ports: [{protocol: TCP, port: 8080}]
  - action: Drop
    from: [{ipBlock: {cidr: 0.0.0.0/0}}]
YAML
)
  echo "$policy4" | sed 's/^/  /'
  echo "$policy4" | "$kubectl" --context member-2 apply -f - >/dev/null
  wait_probe dev-build-3 azure-dev-build-2:8080 blocked || true
  echo "  after (enforced by azure-dev-build-2's agent):"
  for from in dev-build-1 dev-build-3; do probes "$from" azure-dev-build-2:8080; done
  derived build-2-from-aws
  policy_cli list
  policy5=$(cat <<'YAML'
apiVersion: policy.antreaplus.io/v1alpha1
kind: FederatedNetworkPolicy
metadata: {name: remote-pods, namespace: cloud-demo}
spec:
  priority: 6
  appliedTo:
  - externalEntitySelector:
      matchLabels: {cloud.antreaplus.io/account-name: azure-emulator, tag.cloud.antreaplus.io/Name: dev-build-1}
  ingress:
  - action: Allow
    from:
    - scope: ClusterSet      # Pods of other members: refused, matches nothing
      podSelector: {matchLabels: {app: builder}}
    - scope: ClusterSet      # the rest of the rule is realised
      externalEntitySelector:
        matchLabels: {federation.antreaplus.io/source-cluster: member-1, tag.cloud.antreaplus.io/Name: dev-build-2}
YAML
)
  echo "  A federated policy never names remote Pods: such a peer is refused, and says why:"
  echo "$policy5" | sed 's/^/  /'
  echo "$policy5" | "$kubectl" --context member-2 apply -f - >/dev/null
  for _ in $(seq 1 50); do
    [ "$("$kubectl" --context member-2 -n cloud-demo get fnp remote-pods -o jsonpath='{.status.phase}/{.status.refusedPeers[0].reason}')" = Realized/RemotePodsRefused ] && break
    sleep 0.2
  done
  echo "  antreaplus policy status remote-pods -n cloud-demo --context member-2 (the federated policy)"
  "$antreaplus" policy status remote-pods -n cloud-demo --context member-2 2>/dev/null | sed -n '1,/^$/p' | sed 's/^/  /'
fi

say "Networks: overlapping and NAT"
if [ ${#vm_agents[@]} -eq 0 ]; then
  echo "  (skipped: the agented VMs are network namespaces, which need root)"
else
  echo "  member-1's AWS VPC edge and member-2's Azure VNet edge are both 10.0.0.0/16, not connected: AWS's edge-web-1"
  echo "  and Azure's edge-twin-1 are both 10.0.1.5. edge-web-1 leaves through its VPC's NAT gateway; edge-db-1 has a"
  echo "  public IP. The Networks each member holds (its cloud controller wrote them; the sandbox declared the rest flat):"
  for ctx in member-1 member-2; do
    echo "    kubectl --context $ctx get networks.federation.antreaplus.io"
    "$kubectl" --context "$ctx" get networks.federation.antreaplus.io \
      -o custom-columns='NAME:.metadata.name,CIDRS:.spec.cidrs,FLAT:.spec.flat[*].network' | sed 's/^/      /'
  done
  echo "  member-1's import of edge-web-1, classified (kubectl --context member-1 -n cloud-demo get networkinterfaces):"
  "$kubectl" --context member-1 -n cloud-demo get networkinterfaces \
    -o custom-columns='VM:.spec.virtualMachine,PRIVATE:.spec.privateIPs,PUBLIC:.spec.publicIPs,EGRESS:.spec.egressIPs,NAT:.spec.natGatewayID' \
    | grep -E '^VM|10\.0\.' | sed 's/^/    /'
  "$kubectl" --context member-1 apply -f - >/dev/null <<'YAML'
apiVersion: federation.antreaplus.io/v1alpha1
kind: EntityExport
metadata: {name: edge-vms, namespace: cloud-demo}
spec:
  externalEntitySelector: {matchLabels: {tag.cloud.antreaplus.io/env: edge}}
YAML
  db_public=$("$kubectl" --context member-2 -n cloud-demo get networkinterfaces -o json \
    | jq -r '.items[] | select(.spec.privateIPs[0]=="10.0.1.10") | .spec.publicIPs[0]')
  policy6=$(cat <<'YAML'
apiVersion: policy.antreaplus.io/v1alpha1
kind: FederatedNetworkPolicy
metadata: {name: edge-db, namespace: cloud-demo}
spec:
  priority: 5
  appliedTo:
  - externalEntitySelector: {matchLabels: {tag.cloud.antreaplus.io/role: edge-db}}
  ingress:
  - action: Allow            # 8080 from the edge web VMs of other members, however they arrive
    from: [{scope: ClusterSet, externalEntitySelector: {matchLabels: {tag.cloud.antreaplus.io/role: edge-web}}}]
    ports: [{protocol: TCP, port: 8080}]
  - action: Drop
    from: [{ipBlock: {cidr: 0.0.0.0/0}}]
  egress:
  - action: Allow            # and edge-db-1 may call them back on 8080
    to: [{scope: ClusterSet, externalEntitySelector: {matchLabels: {tag.cloud.antreaplus.io/role: edge-web}}}]
    ports: [{protocol: TCP, port: 8080}]
YAML
)
  echo "  member-1 exports its edge VMs; member-2 applies to edge-db-1:"
  echo "$policy6" | sed 's/^/  /'
  echo "$policy6" | "$kubectl" --context member-2 apply -f - >/dev/null
  wait_probe edge-twin-1 edge-db-1:8080 blocked || true
  echo "  real TCP: the remote VM through its NAT address, the local VM with the same private address, the flat pair:"
  probes edge-web-1 "$db_public:8080"
  probes edge-twin-1 edge-db-1:8080
  probes dev-build-1 azure-dev-build-2:8080
  echo "  what edge-db-1's agent admits (the NAT gateway's address, never 10.0.1.5):"
  "$kubectl" --context member-2 -n cloud-demo get groups.crd.antrea.io -l policy.antreaplus.io/federated-policy=edge-db \
    -o custom-columns='GROUP:.metadata.name,IPBLOCKS:.spec.ipBlocks[*].cidr' | sed 's/^/    /'
  echo "  and why: the status of each remote peer (the NAT gateway shared; edge-web-1 unreachable from edge-db-1):"
  "$kubectl" --context member-2 -n cloud-demo get fnp edge-db -o json \
    | jq -r '.status.remoteSources[] | "    \(.rule): resolved=\(.resolved) addresses=\(.addresses)", (.sharedEgress // [] | .[] | "      shared egress: \(.)"), (.unusable // [] | .[] | "      unusable: \(.)")'
fi

say "Tenancy: three tenants in member-1, each with an AWS account of its own, and who manages which"
if [ ${#tenancy[@]} -eq 0 ]; then
  echo "  (skipped: --tenancy runs the cloud controllers as local processes, not as installed)"
else
  k1() { "$kubectl" --context member-1 "$@"; }
  holder() { k1 -n antreaplus-system get lease "tenant-$1" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null || true; }
  tenant_list() {
    echo "  antreaplus tenant list --context member-1"
    "$antreaplus" tenant list --context member-1 2>/dev/null | sed 's/^/    /' || true
  }
  vm_uids() { # tenant...: namespace/name=uid of their VMs
    for t in "$@"; do
      k1 -n "$t" get virtualmachines -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name}={.metadata.uid}{"\n"}{end}'
    done | sort
  }
  exclusive() { # namespace/account: the account's TenantExclusive status/reason
    k1 -n "${1%/*}" get cloudprovideraccount "${1#*/}" \
      -o jsonpath='{.status.conditions[?(@.type=="TenantExclusive")].status}/{.status.conditions[?(@.type=="TenantExclusive")].reason}' 2>/dev/null || true
  }
  accounts=(tenant-hard/aws tenant-soft-1/aws tenant-soft-2/aws cloud-demo/aws-emulator)
  sbdir=$(dirname "$KUBECONFIG")
  aws_url="http://127.0.0.1:$("$antreaplus" sandbox status -o json 2>/dev/null | jq -r '.cloud.ports.aws')"
  # The emulator's poll stats count from here (the demo's own EC2 calls above are not the controllers').
  curl -s -X POST "$aws_url/admin/pollstats/reset"
  for _ in $(seq 1 100); do
    n=0
    for t in tenant-hard tenant-soft-1 tenant-soft-2; do
      [ "$(k1 -n "$t" get virtualmachines -o name 2>/dev/null | wc -l)" -ge 2 ] && n=$((n + 1))
    done
    [ $n = 3 ] && break
    sleep 0.3
  done
  echo "  tenant-hard (labelled tenancy.antreaplus.io/controller=tenant-hard) has a cloud controller instance of its own;"
  echo "  the shared instance (--tenant-selector '!tenancy.antreaplus.io/controller') runs two replicas, which share"
  echo "  tenant-soft-1, tenant-soft-2 and cloud-demo (antreaplus sandbox status):"
  { "$antreaplus" sandbox status 2>/dev/null || true; } | awk '$1 == "member-1" && $2 == "cloud-controller"' | sed 's/^/    /'
  echo "  tenant-soft-1's admin applies a policy there (it applies to tenant-soft-1's VMs only):"
  tpolicy=$(cat <<'YAML'
apiVersion: crd.antrea.io/v1beta1
kind: NetworkPolicy
metadata: {name: app-ingress, namespace: tenant-soft-1}
spec:
  priority: 5
  appliedTo: [{externalEntitySelector: {matchLabels: {cloud.antreaplus.io/kind: VirtualMachine}}}]
  ingress: [{action: Allow, from: [{ipBlock: {cidr: 10.52.0.0/16}}], ports: [{protocol: TCP, port: 443}]}]
YAML
)
  echo "$tpolicy" | sed 's/^/    /'
  echo "$tpolicy" | k1 apply -f - >/dev/null
  tenant_list

  victim=$(holder tenant-soft-1)
  victim_tenants=$(k1 -n antreaplus-system get leases -l tenancy.antreaplus.io/lease=claim -o json \
    | jq -r --arg h "$victim" '.items[] | select(.spec.holderIdentity == $h) | .metadata.labels["tenancy.antreaplus.io/tenant"]' | sort | xargs)
  victim_pid=$("$antreaplus" sandbox status -o json 2>/dev/null | jq -r --arg r "$victim" '.services[] | select(.replica == $r) | .pid')
  before=$(vm_uids $victim_tenants)
  say "kill -9 the shared replica $victim (pid $victim_pid), which holds $victim_tenants"
  t0=$(date +%s.%N)
  kill -9 "$victim_pid"
  for _ in $(seq 1 200); do # its claims expire 15 s after their last renewal; the other replica takes them
    moved=1
    for t in $victim_tenants; do
      h=$(holder "$t")
      { [ -z "$h" ] || [ "$h" = "$victim" ]; } && moved=0
    done
    [ $moved = 1 ] && break
    sleep 0.2
  done
  t1=$(date +%s.%N)
  printf '  taken over in %.1f s (a claim lasts 15 s unrenewed):\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')"
  for t in $victim_tenants; do printf '    %-14s %s -> %s\n' "$t" "$victim" "$(holder "$t")"; done
  after=$(vm_uids $victim_tenants)
  if [ "$before" = "$after" ]; then
    echo "  their $(echo "$after" | grep -c .) VirtualMachines are still there, the same objects (same UIDs): nothing was re-created"
  else
    echo "  their VirtualMachines changed (namespace/name=uid, before and after):"
    diff <(echo "$before") <(echo "$after") | sed 's/^/    /' || true
  fi
  tenant_list

  say "A rogue controller instance that selects every Namespace (--tenancy-instance rogue, no --tenant-selector)"
  echo "  cloud-controller --context member-1 --tenancy-instance rogue --tenancy-replica rogue-0"
  "$repo/bin/cloud-controller" --kubeconfig "$KUBECONFIG" --context member-1 --tenancy-instance rogue --tenancy-replica rogue-0 \
    >"$sbdir/cloud/member-1.cloud-controller-rogue.log" 2>&1 &
  rogue=$!
  echo "$rogue" >"$sbdir/cloud/member-1.cloud-controller-rogue.pid" # 'sandbox down' stops it, should the demo not
  for _ in $(seq 1 100); do
    n=0
    for a in "${accounts[@]}"; do [ "$(exclusive "$a")" = False/Contended ] && n=$((n + 1)); done
    [ $n = ${#accounts[@]} ] && break
    sleep 0.3
  done
  echo "  it takes nothing (every claim is held) and says so, a Warning event on each Namespace it selects:"
  { echo "NAMESPACE TYPE REASON"; k1 get events -A --field-selector reason=TenantClaimedByOtherController --no-headers \
    -o custom-columns='NAMESPACE:.involvedObject.name,TYPE:.type,REASON:.reason' | sort -u; } | column -t | sed 's/^/    /'
  echo "    $(k1 get events -A --field-selector reason=TenantClaimedByOtherController,involvedObject.name=tenant-hard -o jsonpath='{.items[0].message}')"
  echo "  the owners mark their tenants' accounts TenantExclusive=False, reason Contended:"
  for a in "${accounts[@]}"; do printf '    %-24s %s\n' "$a" "$(exclusive "$a")"; done
  echo "    $(k1 -n tenant-soft-2 get cloudprovideraccount aws -o jsonpath='{.status.conditions[?(@.type=="TenantExclusive")].message}')"
  tenant_list
  kill "$rogue"
  wait "$rogue" 2>/dev/null || true
  rm -f "$sbdir/cloud/member-1.cloud-controller-rogue.pid"
  echo "  the rogue is stopped: it held nothing, nothing moved (the accounts are TenantExclusive=True again 30 s after its last word)"

  say "The emulator's poll stats (GET $aws_url/admin/pollstats), since this section began"
  names='{}'
  for s in cloud-demo/aws-emulator-credentials tenant-hard/aws-credentials tenant-soft-1/aws-credentials tenant-soft-2/aws-credentials; do
    key=$(k1 -n "${s%/*}" get secret "${s#*/}" -o jsonpath='{.data.accessKeyID}' | base64 -d)
    names=$(jq -c --arg k "$key" --arg v "${s%/*}" '. + {($k): $v}' <<<"$names")
  done
  curl -s "$aws_url/admin/pollstats" | jq -r --argjson names "$names" '
      ["ACCOUNT", "NAMESPACE", "POLL WINDOWS BY REPLICA", "CALLS", "OVERLAPS"],
      (.accounts | to_entries[] | [.key, ($names[.key] // "-"),
        (.value.windows | to_entries | map("\(.key)=\(.value)") | join(" ")), (.value.calls | add), .value.overlapCount])
      | @tsv' | column -t -s $'\t' | sed 's/^/  /'
  echo "  (a poll window: a replica's describes of one account; an overlap: a call for an account while another"
  echo "   replica's window for it is open: none, the handover included)"

  say "sandbox up restarts $victim: the plan gives it back its share, and only that"
  "$antreaplus" sandbox up "${up[@]}" --cloud "${tenancy[@]}" >/dev/null 2>&1
  for _ in $(seq 1 100); do
    back=1
    for t in $victim_tenants; do [ "$(holder "$t")" = "$victim" ] || back=0; done
    [ $back = 1 ] && break
    sleep 0.2
  done
  for t in cloud-demo tenant-hard tenant-soft-1 tenant-soft-2; do printf '  %-14s held by %s\n' "$t" "$(holder "$t")"; done
fi

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
"$antreaplus" sandbox up "${up[@]}" >/dev/null 2>&1
sleep 15
leaders

cat <<NEXT

Try it yourself:
  export KUBECONFIG=$KUBECONFIG
  $kubectl --context member-3 get nodes,crd
  $antreaplus sandbox status
  $antreaplus federation status
  dig @${dns3%:*} -p ${dns3#*:} web.shop.svc.clusterset.local
${ext:+  dig @${ext%:*} -p ${ext#*:} web.demo-ext.${FEDERATION_ID}.svc.sandbox-2.$domain
}  $kubectl --context member-1 -n cloud-demo get virtualmachines,externalentities,networkpolicies.crd.antrea.io
  $antreaplus policy list
  $antreaplus tenant list --context member-1
Manager logs: $(dirname "$KUBECONFIG")/managers/; cloud emulator and controllers: $(dirname "$KUBECONFIG")/cloud/; member controllers and DNS servers: $(dirname "$KUBECONFIG")/members/${ext:+; ExternalDNS, its etcd and DNS server: $(dirname "$KUBECONFIG")/external-dns/}
Stop everything with:
  $antreaplus sandbox down
NEXT
