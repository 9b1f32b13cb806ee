package podresources

import (
	"strings"

	v1 "k8s.io/api/core/v1"
)

// Priority returns pod's spec.priority, or 0 when it is unset or pod is nil
// (upstream: component-helpers scheduling/corev1 PodPriority). PriorityClass
// names are never resolved: admission sets spec.priority from them.
func Priority(pod *v1.Pod) int32 {
	if pod == nil || pod.Spec.Priority == nil {
		return 0
	}
	return *pod.Spec.Priority
}

// IsSidecar reports whether c is a restartable init container (an init
// container with restartPolicy Always), which runs beside the regular
// containers (upstream: isRestartableInitContainer).
func IsSidecar(c *v1.Container) bool {
	return c != nil && c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
}

// IsPodLevelResource reports whether name may be set in a pod's
// spec.resources: cpu, memory and hugepages-* (upstream:
// IsSupportedPodLevelResource).
func IsPodLevelResource(name v1.ResourceName) bool {
	return name == v1.ResourceCPU || name == v1.ResourceMemory ||
		strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix)
}

// HasPodLevelResources reports whether pod's spec.resources requests or
// limits at least one [IsPodLevelResource] resource (upstream:
// IsPodLevelResourcesSet). A nil pod has none.
func HasPodLevelResources(pod *v1.Pod) bool {
	return HasPodLevelRequests(pod) || HasPodLevelLimits(pod)
}

// HasPodLevelRequests reports whether pod's spec.resources requests at least
// one [IsPodLevelResource] resource (upstream: IsPodLevelRequestsSet).
func HasPodLevelRequests(pod *v1.Pod) bool {
	return pod != nil && pod.Spec.Resources != nil && anyPodLevel(pod.Spec.Resources.Requests)
}

// HasPodLevelLimits reports whether pod's spec.resources limits at least one
// [IsPodLevelResource] resource (upstream: IsPodLevelLimitsSet).
func HasPodLevelLimits(pod *v1.Pod) bool {
	return pod != nil && pod.Spec.Resources != nil && anyPodLevel(pod.Spec.Resources.Limits)
}

// HasPodLevelSet is [HasPodLevelResources] for one set of pod-level
// requirements, such as a defaulted copy of spec.resources. Nil has none.
func HasPodLevelSet(r *v1.ResourceRequirements) bool {
	return r != nil && (anyPodLevel(r.Requests) || anyPodLevel(r.Limits))
}

func anyPodLevel(l v1.ResourceList) bool {
	for name := range l {
		if IsPodLevelResource(name) {
			return true
		}
	}
	return false
}

// IsResizeInfeasible reports whether pod's PodResizePending condition (the
// first one) has reason Infeasible: the kubelet will not apply the resize in
// the spec, so the spec's resources are not charged (upstream:
// IsPodResizeInfeasible). A nil pod has no resize pending: false.
func IsResizeInfeasible(pod *v1.Pod) bool {
	if pod == nil {
		return false
	}
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == v1.PodResizePending {
			return pod.Status.Conditions[i].Reason == v1.PodReasonInfeasible
		}
	}
	return false
}

// containerStatus is pod's status of the container named name, regular
// first, then init; nil when there is none.
func containerStatus(pod *v1.Pod, name string) *v1.ContainerStatus {
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == name {
			return &pod.Status.ContainerStatuses[i]
		}
	}
	for i := range pod.Status.InitContainerStatuses {
		if pod.Status.InitContainerStatuses[i].Name == name {
			return &pod.Status.InitContainerStatuses[i]
		}
	}
	return nil
}
