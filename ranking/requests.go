package ranking

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Priority returns the priority the kubelet ranks pod by: spec.priority, or 0 when it is unset
// (upstream: component-helpers scheduling/corev1 PodPriority). A nil pod has priority 0.
func Priority(pod *v1.Pod) int32 {
	if pod == nil || pod.Spec.Priority == nil {
		return 0
	}
	return *pod.Spec.Priority
}

// Request returns the request for resource name that the kubelet compares usage with when it
// ranks pod, under the default [Options]. See [Options.Request].
func Request(pod *v1.Pod, name v1.ResourceName) resource.Quantity {
	return Options{}.Request(pod, name)
}

// Request returns the request for resource name that the kubelet compares usage with when it
// ranks pod (upstream: pkg/api/v1/resource GetResourceRequestQuantity over component-helpers
// PodRequests):
//
//   - when pod-level resources are in use ([HasPodLevelResources] and the gate on), containers
//     are skipped and the result is the pod-level request for name if name is cpu, memory or
//     hugepages-*, else zero;
//   - otherwise it is the effective container aggregate: the sum over regular and restartable
//     init (sidecar) containers, raised to the largest init-time figure, where a plain init
//     container counts its own request plus the sidecars declared before it and a sidecar
//     counts the sidecars up to and including itself; a pod-level request for a supported
//     resource still replaces that aggregate, as upstream's PodRequests does;
//   - pod overhead for name is added only when the result is non-zero.
//
// Pod status (allocated or actuated resources) is not consulted. The quantity is exact; its
// Format is DecimalSI, or BinarySI for memory, storage and ephemeral-storage, unless a value
// added to it sets another. A nil pod requests nothing.
func (o Options) Request(pod *v1.Pod, name v1.ResourceName) resource.Quantity {
	q := resource.Quantity{Format: formatFor(name)}
	if pod == nil {
		return q
	}
	var v resource.Quantity
	ok := false
	if o.DisablePodLevelResources || !HasPodLevelResources(pod) {
		v, ok = aggregate(pod, name, specRequest)
	}
	if pod.Spec.Resources != nil && isPodLevelResource(name) {
		if pv, found := pod.Spec.Resources.Requests[name]; found {
			v, ok = pv.DeepCopy(), true
		}
	}
	if ok {
		q.Add(v)
	}
	if ov, found := pod.Spec.Overhead[name]; found && !q.IsZero() {
		q.Add(ov)
	}
	return q
}

// Limit returns pod's limit for resource name as the kubelet's local-storage check reads it
// (upstream: component-helpers PodLimits with default options) and whether there is one: the
// effective container aggregate of limits (same formula as [Options.Request]), replaced by the
// pod-level limit when pod-level resources are set and name is cpu, memory or hugepages-*,
// with pod overhead added to a non-zero result. Upstream applies pod-level limits here without
// consulting the PodLevelResources gate, and so does Limit. An explicit zero limit counts as a
// limit. A nil pod has none.
func Limit(pod *v1.Pod, name v1.ResourceName) (resource.Quantity, bool) {
	if pod == nil {
		return resource.Quantity{}, false
	}
	q, ok := aggregate(pod, name, specLimit)
	if HasPodLevelResources(pod) && isPodLevelResource(name) {
		if pv, found := pod.Spec.Resources.Limits[name]; found {
			q, ok = pv.DeepCopy(), true
		}
	}
	if ok && !q.IsZero() {
		if ov, found := pod.Spec.Overhead[name]; found {
			q.Add(ov)
		}
	}
	return q, ok
}

// HasPodLevelResources reports whether pod's spec.resources requests or limits name at least
// one resource that pod-level resources support (cpu, memory, hugepages-*) (upstream:
// component-helpers IsPodLevelResourcesSet).
func HasPodLevelResources(pod *v1.Pod) bool {
	return pod != nil && pod.Spec.Resources != nil && podLevelSet(pod.Spec.Resources)
}

// podLevelSet is [HasPodLevelResources] for one set of pod-level requirements.
func podLevelSet(r *v1.ResourceRequirements) bool {
	for name := range r.Requests {
		if isPodLevelResource(name) {
			return true
		}
	}
	for name := range r.Limits {
		if isPodLevelResource(name) {
			return true
		}
	}
	return false
}

// isPodLevelResource reports whether name may be set at pod level: cpu, memory, hugepages-*.
func isPodLevelResource(name v1.ResourceName) bool {
	return name == v1.ResourceCPU || name == v1.ResourceMemory ||
		strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix)
}

// formatFor is the format upstream gives an empty request of resource name.
func formatFor(name v1.ResourceName) resource.Format {
	switch name {
	case v1.ResourceMemory, v1.ResourceStorage, v1.ResourceEphemeralStorage:
		return resource.BinarySI
	default:
		return resource.DecimalSI
	}
}

// amountFunc reads one resource of one container: the quantity and whether it is set.
type amountFunc func(c *v1.Container, name v1.ResourceName) (resource.Quantity, bool)

func specRequest(c *v1.Container, name v1.ResourceName) (resource.Quantity, bool) {
	q, ok := c.Resources.Requests[name]
	return q, ok
}

func specLimit(c *v1.Container, name v1.ResourceName) (resource.Quantity, bool) {
	q, ok := c.Resources.Limits[name]
	return q, ok
}

// defaultedRequest reads a request as API defaulting leaves it: a limit stands in for a missing
// request (upstream: SetDefaults_Pod).
func defaultedRequest(c *v1.Container, name v1.ResourceName) (resource.Quantity, bool) {
	if q, ok := c.Resources.Requests[name]; ok {
		return q, true
	}
	q, ok := c.Resources.Limits[name]
	return q, ok
}

// isSidecar reports whether an init container is restartable (restartPolicy Always).
func isSidecar(c *v1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
}

// aggregate returns the effective container aggregate of one resource and whether any
// container sets it (upstream: component-helpers aggregateContainerResourcesByFn, for one
// key). Presence follows upstream's maps: a value set only by init containers still makes the
// key present, even when it is zero or negative.
//
// Every quantity read from the pod is copied before it is accumulated into, so the pod's own
// values are never modified (a Quantity copy shares its big-decimal form).
func aggregate(pod *v1.Pod, name v1.ResourceName, amount amountFunc) (resource.Quantity, bool) {
	var sum resource.Quantity
	has := false
	for i := range pod.Spec.Containers {
		if v, ok := amount(&pod.Spec.Containers[i], name); ok {
			sum.Add(v)
			has = true
		}
	}
	var sidecars, initMax resource.Quantity
	hasSidecars, hasInit := false, false
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		v, ok := amount(c, name)
		var cand resource.Quantity
		candOK := false
		if isSidecar(c) {
			if ok {
				sum.Add(v)
				has = true
				sidecars.Add(v)
				hasSidecars = true
			}
			cand, candOK = sidecars.DeepCopy(), hasSidecars
		} else {
			if ok {
				cand.Add(v)
			}
			if hasSidecars {
				cand.Add(sidecars)
			}
			candOK = ok || hasSidecars
		}
		if candOK && (!hasInit || cand.Cmp(initMax) > 0) {
			initMax, hasInit = cand, true
		}
	}
	if hasInit && (!has || initMax.Cmp(sum) > 0) {
		sum, has = initMax, true
	}
	return sum, has
}
