package ranking

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/podresources"
)

// Priority returns the priority the kubelet ranks pod by: spec.priority, or 0 when it is unset
// or pod is nil. It is [podresources.Priority].
func Priority(pod *v1.Pod) int32 { return podresources.Priority(pod) }

// Request returns the request for resource name that the kubelet compares usage with when it
// ranks pod (upstream: pkg/api/v1/resource GetResourceRequestQuantity, which calls
// component-helpers PodRequests through [podresources.Request]):
//
//   - when pod-level resources are in use ([podresources.HasPodLevelResources] and the gate
//     on), containers are skipped and the result is the pod-level request for name if name is
//     cpu, memory or hugepages-*, else zero;
//   - otherwise it is the sidecar-aware container aggregate ([podresources.Aggregate]); a
//     pod-level request for a supported resource still replaces it, as upstream's PodRequests
//     does;
//   - pod overhead for name is added only when the result is non-zero.
//
// Pod status (allocated or actuated resources) is not consulted. The quantity is exact; its
// Format is DecimalSI, or BinarySI for memory, storage and ephemeral-storage, unless a value
// added to it sets another. A nil pod requests nothing.
func Request(pod *v1.Pod, name v1.ResourceName, opts Options) resource.Quantity {
	q := resource.Quantity{Format: formatFor(name)}
	if pod == nil {
		return q
	}
	skip := !opts.DisablePodLevelResources && podresources.HasPodLevelResources(pod)
	if v, ok := podresources.Request(pod, name, podresources.Options{SkipContainerLevelResources: skip, ExcludeOverhead: true}); ok {
		q.Add(v)
	}
	if ov, found := pod.Spec.Overhead[name]; found && !q.IsZero() {
		q.Add(ov)
	}
	return q
}

// Limit returns pod's limit for resource name as the kubelet's local-storage check reads it
// (upstream: component-helpers PodLimits with default options, [podresources.Limit]) and
// whether there is one. Upstream applies pod-level limits here without consulting the
// PodLevelResources gate, and so does Limit. An explicit zero limit counts as a limit. A nil
// pod has none.
func Limit(pod *v1.Pod, name v1.ResourceName) (resource.Quantity, bool) {
	return podresources.Limit(pod, name, podresources.Options{})
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

// defaultedRequest reads a request as API defaulting leaves it: a limit stands in for a missing
// request (upstream: SetDefaults_Pod).
func defaultedRequest(c *v1.Container, name v1.ResourceName) (resource.Quantity, bool) {
	if q, ok := c.Resources.Requests[name]; ok {
		return q, true
	}
	q, ok := c.Resources.Limits[name]
	return q, ok
}
