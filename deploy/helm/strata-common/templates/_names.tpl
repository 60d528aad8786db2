{{/*
Names and labels of a Strata service's objects. A service's objects are named after the release and the chart:
release `strata`, chart `metadata-writer` → `strata-metadata-writer`, which is also its Service's host name.
*/}}

{{- define "strata-common.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "strata-common.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "strata-common.labels" -}}
{{ include "strata-common.selectorLabels" . }}
app.kubernetes.io/part-of: strata
app.kubernetes.io/version: {{ .Values.global.image.tag | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The Strata image; every service and the topic initialisation run it, with a different command. */}}
{{- define "strata-common.image" -}}
{{ printf "%s:%s" .Values.global.image.repository .Values.global.image.tag | quote }}
{{- end -}}

{{/* The image runs as the unprivileged `node` user (uid 1000); nothing else needs more. */}}
{{- define "strata-common.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 1000
runAsGroup: 1000
fsGroup: 1000
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "strata-common.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop:
    - ALL
{{- end -}}

{{/*
A process's environment: the deployment's shared `global.env` and the service's `env` (literal values, the service's
winning; a value may name the release as `.Release.Name` between template braces), then CUSTOM_MODELS_DIR when custom models are mounted, then `fieldEnv`
(from the pod's own fields) and `secretEnv` (keys of the deployment's Secret).
*/}}
{{- define "strata-common.env" -}}
{{- $env := merge (deepCopy (.Values.env | default dict)) (.Values.global.env | default dict) }}
{{- range $name, $value := $env }}
- name: {{ $name }}
  value: {{ tpl (toString $value) $ | quote }}
{{- end }}
{{- if .Values.global.customModels.configMap }}
- name: CUSTOM_MODELS_DIR
  value: /etc/strata/models
{{- end }}
{{- range $name, $fieldPath := .Values.fieldEnv }}
- name: {{ $name }}
  valueFrom:
    fieldRef:
      fieldPath: {{ $fieldPath }}
{{- end }}
{{- range $name, $key := .Values.secretEnv }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $.Values.global.existingSecret }}
      key: {{ $key }}
{{- end }}
{{- end -}}
