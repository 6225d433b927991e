{{/* Chart name. */}}
{{- define "causeway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Fully qualified app name. */}}
{{- define "causeway.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Common labels; pass (dict "ctx" $ "component" "api"). */}}
{{- define "causeway.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .ctx.Chart.Name .ctx.Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: causeway
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
{{ include "causeway.selectorLabels" . }}
{{- with .ctx.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels; pass (dict "ctx" $ "component" "api"). */}}
{{- define "causeway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "causeway.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Component object name, e.g. release-causeway-api. */}}
{{- define "causeway.componentName" -}}
{{- printf "%s-%s" (include "causeway.fullname" .ctx) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* ServiceAccount name of a component. */}}
{{- define "causeway.serviceAccountName" -}}
{{- include "causeway.componentName" . -}}
{{- end -}}

{{/*
Image reference of a component; pass (dict "ctx" $ "image" .Values.api.image). Each component has its
own repository and digest (the build makes three images); the registry and the default tag are shared.
A digest pins the image and wins over the tag.
*/}}
{{- define "causeway.image" -}}
{{- $global := .ctx.Values.image -}}
{{- $repo := required "every component needs an image repository (api.image.repository, operator.image.repository, runner.image.repository)" .image.repository -}}
{{- $tag := .image.tag | default $global.tag | default .ctx.Chart.AppVersion -}}
{{- $prefix := ternary (printf "%s/" $global.registry) "" (ne ($global.registry | default "") "") -}}
{{- if .image.digest -}}
{{- printf "%s%s@%s" $prefix $repo .image.digest -}}
{{- else -}}
{{- printf "%s%s:%s" $prefix $repo $tag -}}
{{- end -}}
{{- end -}}

{{/* Names of .Values.imagePullSecrets, comma-separated (what the operator puts on runner pods). */}}
{{- define "causeway.imagePullSecretNames" -}}
{{- $names := list -}}
{{- range .Values.imagePullSecrets -}}
{{- $names = append $names .name -}}
{{- end -}}
{{- join "," $names -}}
{{- end -}}

{{/* Name of the Secret with the callback server secret. */}}
{{- define "causeway.callbackSecretName" -}}
{{- default (printf "%s-callbacks" (include "causeway.fullname" .)) .Values.callbacks.existingSecret -}}
{{- end -}}

{{/* Base URL runners post callbacks to (the API adds /internal/v1/jobs/<kind>/<id>/callback). */}}
{{- define "causeway.callbackBaseUrl" -}}
{{- printf "http://%s-callbacks.%s.svc:%v" (include "causeway.componentName" (dict "ctx" . "component" "api")) .Release.Namespace .Values.api.containerPort -}}
{{- end -}}

{{/* Storage env shared by the API and the migration Job. */}}
{{- define "causeway.storageEnv" -}}
- name: CAUSEWAY_STORAGE
  value: s3
- name: S3_BUCKET
  value: {{ .Values.s3.bucket | quote }}
- name: S3_REGION
  value: {{ .Values.s3.region | quote }}
- name: S3_FORCE_PATH_STYLE
  value: {{ .Values.s3.forcePathStyle | quote }}
{{- with .Values.s3.endpoint }}
- name: S3_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- with .Values.s3.publicEndpoint }}
- name: S3_PUBLIC_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- if .Values.s3.existingSecret }}
- name: AWS_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef:
      name: {{ .Values.s3.existingSecret }}
      key: {{ .Values.s3.accessKeyIdKey }}
- name: AWS_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.s3.existingSecret }}
      key: {{ .Values.s3.secretAccessKeyKey }}
{{- end }}
{{- end -}}

{{/* Database env. */}}
{{- define "causeway.databaseEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.externalDatabase.existingSecret }}
      key: {{ .Values.externalDatabase.urlKey }}
{{- end -}}

{{/* Database and Redis env. */}}
{{- define "causeway.serviceEnv" -}}
{{ include "causeway.databaseEnv" . }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.externalRedis.existingSecret }}
      key: {{ .Values.externalRedis.urlKey }}
{{- end -}}
