{{/*
The pod of a Strata service: the Strata image running the service named like the chart (the image's entry point takes
the service's name as its command), listening on `env.PORT`, with its probes on /health, its environment
(strata-common.env), a writable DATA_DIR (/data: an empty directory, or the chart's persistent volume claim `data` when
the chart has `persistence`), and the custom models when `global.customModels.configMap` names a ConfigMap.
*/}}
{{- define "strata-common.podTemplate" -}}
metadata:
  labels:
    {{- include "strata-common.selectorLabels" . | nindent 4 }}
  {{- with .Values.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  automountServiceAccountToken: false
  {{- with .Values.global.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- include "strata-common.podSecurityContext" . | nindent 4 }}
  terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
  containers:
    - name: {{ .Chart.Name }}
      image: {{ include "strata-common.image" . }}
      imagePullPolicy: {{ .Values.global.image.pullPolicy }}
      args:
        - {{ .Chart.Name }}
      ports:
        - name: http
          containerPort: {{ .Values.env.PORT }}
          protocol: TCP
      env:
        {{- include "strata-common.env" . | trim | nindent 8 }}
      startupProbe:
        {{- toYaml .Values.startupProbe | nindent 8 }}
      livenessProbe:
        {{- toYaml .Values.livenessProbe | nindent 8 }}
      readinessProbe:
        {{- toYaml .Values.readinessProbe | nindent 8 }}
      resources:
        {{- toYaml .Values.resources | nindent 8 }}
      securityContext:
        {{- include "strata-common.containerSecurityContext" . | nindent 8 }}
      volumeMounts:
        - name: data
          mountPath: /data
        - name: tmp
          mountPath: /tmp
        {{- if .Values.global.customModels.configMap }}
        - name: custom-models
          mountPath: /etc/strata/models
          readOnly: true
        {{- end }}
  volumes:
    {{- if not (hasKey .Values "persistence") }}
    - name: data
      emptyDir: {}
    {{- end }}
    - name: tmp
      emptyDir: {}
    {{- if .Values.global.customModels.configMap }}
    - name: custom-models
      configMap:
        name: {{ .Values.global.customModels.configMap }}
    {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
