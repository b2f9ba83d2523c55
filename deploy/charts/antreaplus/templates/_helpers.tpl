{{/*
Helpers of the AntreaPlus chart. Only standard Helm and sprig functions, no
lookup: the chart renders the same offline (helm template, antreaplus
install) as against a cluster.
*/}}

{{/* The namespace every program and `antreaplus federation join` use (internal/names.Namespace). */}}
{{- define "antreaplus.namespace" -}}antreaplus-system{{- end }}

{{/* Ports every controller serves: --metrics-bind-address and --health-probe-bind-address. */}}
{{- define "antreaplus.metricsPort" -}}8080{{- end }}
{{- define "antreaplus.healthPort" -}}8081{{- end }}

{{/* Checks the values; renders nothing. */}}
{{- define "antreaplus.validate" -}}
{{- if ne .Release.Namespace (include "antreaplus.namespace" .) }}
{{- fail (printf "the release's namespace must be %s (the programs and 'antreaplus federation join' use it): install with -n %s" (include "antreaplus.namespace" .) (include "antreaplus.namespace" .)) }}
{{- end }}
{{- if not (has .Values.dns.mode (list "deployment" "corefile" "none")) }}
{{- fail (printf "dns.mode %q: want deployment, corefile or none" .Values.dns.mode) }}
{{- end }}
{{- if and (or .Values.supervisor.enabled .Values.cloud.enabled) (not .Values.member.enabled) }}
{{- fail "supervisor.enabled and cloud.enabled need member.enabled: supervisors and cloud members are members" }}
{{- end }}
{{- if and .Values.supervisor.enabled (ne (int .Values.federationManager.replicas) 1) }}
{{- fail "federationManager.replicas must be 1: the federation manager has no leader election of its own; more supervisors, not replicas, make the federation available" }}
{{- end }}
{{- if and .Values.cloud.enabled .Values.cloud.agentless (not .Values.policyController.tls.secretName) }}
{{- fail "cloud.agentless needs policyController.tls.secretName: the cloud controller trusts its ca.crt" }}
{{- end }}
{{- end }}

{{/* Labels of every object; .component names the component, if any. */}}
{{- define "antreaplus.labels" -}}
app.kubernetes.io/name: antreaplus
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: antreaplus
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end }}

{{/* Labels selecting a component's Pods. */}}
{{- define "antreaplus.selectorLabels" -}}
app.kubernetes.io/name: antreaplus
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* A component's image: repository:tag, the tag defaulting to the chart's appVersion. */}}
{{- define "antreaplus.image" -}}
{{- printf "%s:%s" .image.repository (.image.tag | default .root.Chart.AppVersion) }}
{{- end }}

{{/*
The RBAC of a ServiceAccount from files/rbac/<file>.yaml (written by `make
generate` from the code's +kubebuilder:rbac markers): each ClusterRole and
Role of the file with its rules, and a binding to the account. Roles go into
the release's namespace.
  root, file, serviceAccount, saNamespace (default: the release's), component
*/}}
{{- define "antreaplus.rbac" -}}
{{- $root := .root }}
{{- $path := printf "files/rbac/%s.yaml" .file }}
{{- $content := $root.Files.Get $path }}
{{- if not $content }}
{{- fail (printf "%s is missing: run make generate" $path) }}
{{- end }}
{{- $saNamespace := .saNamespace | default $root.Release.Namespace }}
{{- $labels := include "antreaplus.labels" (dict "root" $root "component" .component) }}
{{- range $doc := regexSplit "(?m)^---\\s*$" $content -1 }}
{{- $obj := fromYaml $doc }}
{{- if hasKey $obj "Error" }}
{{- fail (printf "%s: %s" $path $obj.Error) }}
{{- end }}
{{- if $obj.kind }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ $obj.kind }}
metadata:
  name: {{ $obj.metadata.name }}
  {{- if eq $obj.kind "Role" }}
  namespace: {{ $root.Release.Namespace }}
  {{- end }}
  labels:
    {{- $labels | nindent 4 }}
rules:
{{ toYaml $obj.rules }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ $obj.kind }}Binding
metadata:
  name: {{ $obj.metadata.name }}
  {{- if eq $obj.kind "Role" }}
  namespace: {{ $root.Release.Namespace }}
  {{- end }}
  labels:
    {{- $labels | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: {{ $obj.kind }}
  name: {{ $obj.metadata.name }}
subjects:
  - kind: ServiceAccount
    name: {{ $.serviceAccount }}
    namespace: {{ $saNamespace }}
{{- end }}
{{- end }}
{{- end }}

{{/*
A component: its ServiceAccount and RBAC, Deployment, metrics Service,
PodDisruptionBudget (replicas > 1) and NetworkPolicy.
  root
  component       name: the objects are antreaplus-<component>
  values          the component's values (image, replicas, resources, ...)
  args            the container's arguments
  ports           container ports ({name, containerPort, protocol})
  metricsPort     the port the metrics Service exposes
  liveness, readiness  {path, port} of the probes
  ingress         the NetworkPolicy's ingress rules
  volumes, volumeMounts, podSpec (extra fields of the Pod spec)
*/}}
{{- define "antreaplus.component" -}}
{{- $root := .root }}
{{- $name := printf "antreaplus-%s" .component }}
{{- $v := .values }}
{{- $volumes := concat (.volumes | default list) ($v.extraVolumes | default list) }}
{{- $volumeMounts := concat (.volumeMounts | default list) ($v.extraVolumeMounts | default list) }}
{{- $labels := include "antreaplus.labels" (dict "root" $root "component" .component) }}
{{- $selector := include "antreaplus.selectorLabels" (dict "root" $root "component" .component) }}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ $name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- $labels | nindent 4 }}
{{ include "antreaplus.rbac" (dict "root" $root "file" .component "serviceAccount" $name "component" .component) }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- $labels | nindent 4 }}
spec:
  replicas: {{ $v.replicas }}
  selector:
    matchLabels:
      {{- $selector | nindent 6 }}
  template:
    metadata:
      labels:
        {{- $labels | nindent 8 }}
    spec:
      serviceAccountName: {{ $name }}
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      {{- with .podSpec }}
      {{- toYaml . | nindent 6 }}
      {{- end }}
      containers:
        - name: {{ .component }}
          image: {{ include "antreaplus.image" (dict "root" $root "image" $v.image) }}
          imagePullPolicy: {{ $v.image.pullPolicy }}
          args:
            {{- toYaml .args | nindent 12 }}
          ports:
            {{- toYaml .ports | nindent 12 }}
          livenessProbe:
            httpGet:
              path: {{ .liveness.path }}
              port: {{ .liveness.port }}
            initialDelaySeconds: 10
            periodSeconds: 10
            failureThreshold: 6
          readinessProbe:
            httpGet:
              path: {{ .readiness.path }}
              port: {{ .readiness.port }}
            periodSeconds: 5
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          {{- with $volumeMounts }}
          volumeMounts:
            {{- toYaml . | nindent 12 }}
          {{- end }}
      {{- with $volumes }}
      volumes:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}-metrics
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- $labels | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- $selector | nindent 4 }}
  ports:
    - name: metrics
      port: {{ .metricsPort }}
      targetPort: metrics
      protocol: TCP
{{- if gt (int $v.replicas) 1 }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ $name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- $labels | nindent 4 }}
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      {{- $selector | nindent 6 }}
{{- end }}
{{- if $root.Values.networkPolicy.enabled }}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ $name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- $labels | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- $selector | nindent 6 }}
  policyTypes:
    - Ingress
  ingress:
    {{- toYaml .ingress | nindent 4 }}
{{- end }}
{{- end }}

{{/*
The NetworkPolicy ingress rules every controller has: its metrics port from
networkPolicy.metricsFrom (anyone when empty) and its health port from
anyone (the kubelet's probes).
*/}}
{{- define "antreaplus.controllerIngress" -}}
- ports:
    - port: metrics
      protocol: TCP
  {{- with .Values.networkPolicy.metricsFrom }}
  from:
    {{- toYaml . | nindent 4 }}
  {{- end }}
- ports:
    - port: health
      protocol: TCP
{{- end }}

{{/* The arguments every controller has: its endpoints and log verbosity. */}}
{{- define "antreaplus.controllerArgs" -}}
- --metrics-bind-address=:{{ include "antreaplus.metricsPort" . }}
- --health-probe-bind-address=:{{ include "antreaplus.healthPort" . }}
- --v={{ .Values.logVerbosity }}
{{- end }}

{{/* The ports every controller serves. */}}
{{- define "antreaplus.controllerPorts" -}}
- name: metrics
  containerPort: {{ include "antreaplus.metricsPort" . }}
  protocol: TCP
- name: health
  containerPort: {{ include "antreaplus.healthPort" . }}
  protocol: TCP
{{- end }}
