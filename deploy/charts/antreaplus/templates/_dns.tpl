{{/*
A member's Corefile: docs/dns.md's, which is kubeadm's with the federation
plugin added (test/e2e/chart checks the plugins and their order).
  root, port, comment
*/}}
{{- define "antreaplus.corefile" -}}
{{- $dns := .root.Values.dns -}}
# {{ .comment }}
.:{{ .port }} {
    errors
    health {
        lameduck 5s
    }
    ready
    {{- if $dns.federationID }}
    federation {{ $dns.clusterDomain }} {
        federation_id {{ $dns.federationID }}
    }
    {{- else }}
    federation {{ $dns.clusterDomain }}
    {{- end }}
    kubernetes {{ $dns.clusterDomain }} in-addr.arpa ip6.arpa {
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
        max_concurrent 1000
    }
    cache 30 {
        disable success {{ $dns.clusterDomain }}
        disable denial {{ $dns.clusterDomain }}
    }
    loop
    reload
    loadbalance
}
{{- end }}

{{/*
The server blocks the cluster's CoreDNS needs to send the federation's zones
to AntreaPlus's DNS server at ip (docs/dns.md, "Keeping the cluster's
CoreDNS"): clusterset.local, and <federationID>.svc.<domain> when the
federation ID is given.
  root, ip
*/}}
{{- define "antreaplus.forwardBlocks" -}}
{{- $dns := .root.Values.dns -}}
clusterset.local:53 {
    errors
    forward . {{ .ip }}
}
{{- if $dns.federationID }}
{{ $dns.federationID }}.svc.{{ $dns.clusterDomain }}:53 {
    errors
    forward . {{ .ip }}
}
{{- end }}
{{- end }}
