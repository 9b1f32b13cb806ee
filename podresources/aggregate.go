package podresources

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// AmountFunc reads one resource of one container of a pod: the quantity and
// whether the container sets it. An explicit zero is set.
type AmountFunc func(c *v1.Container, name v1.ResourceName) (resource.Quantity, bool)

// SpecRequest is the [AmountFunc] of a container's spec requests.
func SpecRequest(c *v1.Container, name v1.ResourceName) (resource.Quantity, bool) {
	q, ok := c.Resources.Requests[name]
	return q, ok
}

// SpecLimit is the [AmountFunc] of a container's spec limits.
func SpecLimit(c *v1.Container, name v1.ResourceName) (resource.Quantity, bool) {
	q, ok := c.Resources.Limits[name]
	return q, ok
}

// Aggregate folds resource name over pod's containers with the sidecar-aware
// formula of component-helpers (aggregateContainerResourcesByFn, for one
// key), reading each container through amount, and reports whether any
// container sets it:
//
//   - regular containers and restartable init containers ([IsSidecar]) are
//     summed, since they run together;
//   - an init container that is not a sidecar needs its own amount plus the
//     sidecars declared before it; a sidecar needs the sidecars up to and
//     including itself;
//   - the result is the larger of the sum and the largest of those
//     init-time figures.
//
// Presence follows upstream's maps: an amount set only by init containers
// still makes the resource present, even when it is zero. The pod's own
// quantities are copied before they are accumulated into, so the pod is
// never modified. Aggregate allocates nothing for integer quantities.
func Aggregate(pod *v1.Pod, name v1.ResourceName, amount AmountFunc) (resource.Quantity, bool) {
	var sum resource.Quantity
	has := false
	for i := range pod.Spec.Containers {
		if v, ok := amount(&pod.Spec.Containers[i], name); ok {
			accumulate(&sum, &has, v)
		}
	}
	var sidecars, peak resource.Quantity
	hasSidecars, hasPeak := false, false
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		v, ok := amount(c, name)
		var step resource.Quantity
		stepOK := false
		if IsSidecar(c) {
			if ok {
				accumulate(&sum, &has, v)
				accumulate(&sidecars, &hasSidecars, v)
			}
			step, stepOK = sidecars, hasSidecars
		} else {
			if ok {
				accumulate(&step, &stepOK, v)
			}
			if hasSidecars {
				accumulate(&step, &stepOK, sidecars)
			}
		}
		raise(&peak, &hasPeak, step, stepOK)
	}
	raise(&sum, &has, peak, hasPeak)
	return sum, has
}

// accumulate adds v to *q, as upstream's addResourceList adds one key: the
// first value is copied, later ones added.
func accumulate(q *resource.Quantity, has *bool, v resource.Quantity) {
	if !*has {
		*q, *has = v.DeepCopy(), true
		return
	}
	q.Add(v)
}

// raise sets *q to v when v is present and *q is absent or smaller, as
// upstream's maxResourceList does for one key.
func raise(q *resource.Quantity, has *bool, v resource.Quantity, ok bool) {
	if ok && (!*has || v.Cmp(*q) > 0) {
		*q, *has = v.DeepCopy(), true
	}
}
