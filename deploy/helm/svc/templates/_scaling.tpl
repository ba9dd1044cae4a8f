{{/* A part's PodDisruptionBudget and, when enabled, its HorizontalPodAutoscaler on CPU: (list $ "part" $values). */}}
{{- define "svc.scaling" -}}
{{- $ := index . 0 -}}{{- $part := index . 1 -}}{{- $c := index . 2 }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "svc.fullname" $ }}-{{ $part }}
  labels:
    {{- include "svc.labels" (list $ $part) | nindent 4 }}
spec:
  minAvailable: {{ $c.podDisruptionBudget.minAvailable }}
  selector:
    matchLabels:
      {{- include "svc.selector" (list $ $part) | nindent 6 }}
{{- if and $c.autoscaling $c.autoscaling.enabled }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "svc.fullname" $ }}-{{ $part }}
  labels:
    {{- include "svc.labels" (list $ $part) | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "svc.fullname" $ }}-{{ $part }}
  minReplicas: {{ $c.autoscaling.minReplicas }}
  maxReplicas: {{ $c.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target: { type: Utilization, averageUtilization: {{ $c.autoscaling.targetCPUUtilizationPercentage }} }
{{- end }}
{{- end -}}
