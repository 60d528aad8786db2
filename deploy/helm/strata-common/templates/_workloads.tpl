{{/*
The Deployment of a service whose instances are interchangeable and keep nothing on disk (the writer and the indexers
on Kafka, MongoDB and Elasticsearch): `replicaCount` pods sharing the partitions of the service's consumer group.
*/}}
{{- define "strata-common.deployment" -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "strata-common.fullname" . }}
  labels:
    {{- include "strata-common.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      {{- include "strata-common.selectorLabels" . | nindent 6 }}
  template:
    {{- include "strata-common.podTemplate" . | nindent 4 }}
{{- end -}}

{{/* The Service in front of a service's pods, on the port the service listens on (`env.PORT`). */}}
{{- define "strata-common.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "strata-common.fullname" . }}
  labels:
    {{- include "strata-common.labels" . | nindent 4 }}
spec:
  type: {{ .Values.service.type }}
  selector:
    {{- include "strata-common.selectorLabels" . | nindent 4 }}
  ports:
    - name: http
      port: {{ .Values.env.PORT }}
      targetPort: http
      protocol: TCP
{{- end -}}
