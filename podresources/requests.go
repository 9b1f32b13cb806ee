package podresources

import (
	"iter"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Options are the fields of component-helpers PodResourcesOptions that change
// an answer. The zero value is PodResourcesOptions{} with the feature gates
// at their v1.37 defaults: spec resources only, pod-level resources applied,
// pod overhead added.
type Options struct {
	// UseStatusResources charges a pod already admitted to a node what the
	// kubelet may have given it (InPlacePodVerticalScaling, GA): for each
	// resource the largest of the spec, the allocated resources and the
	// actuated resources of its status, the spec being left out while a
	// resize is Infeasible ([IsResizeInfeasible]). The scheduler charges
	// bound pods this way; a pending pod is measured from its spec.
	UseStatusResources bool

	// IgnorePodLevelStatus, with UseStatusResources, reads the allocated
	// and actuated resources from the container statuses only, never from
	// the pod-level status.allocatedResources and status.resources: the
	// InPlacePodLevelResourcesVerticalScaling gate off (upstream's zero
	// InPlacePodLevelResourcesVerticalScalingEnabled). The gate is beta and
	// on by default in v1.37, so the zero value reads them.
	IgnorePodLevelStatus bool

	// ExcludeOverhead leaves spec.overhead out.
	ExcludeOverhead bool

	// SkipPodLevelResources ignores spec.resources (the PodLevelResources
	// gate off). Otherwise, when spec.resources requests (for [Requests]) or
	// sets (for [Limits]) a cpu, memory or hugepages-* amount, the pod-level
	// amounts replace the container aggregate for those resources.
	SkipPodLevelResources bool

	// SkipContainerLevelResources leaves the containers out of [Requests]
	// and [Request], so only pod-level requests and overhead remain (the
	// kubelet's eviction ranking sets it when pod-level resources are in
	// use). As upstream, limits always aggregate the containers.
	SkipContainerLevelResources bool

	// NonMissingContainerRequests, for requests only, stands in for each
	// resource it names that a container does not request; an explicit
	// request, zero included, is kept. The scheduler uses it to give
	// containers without cpu or memory requests a non-zero default.
	NonMissingContainerRequests v1.ResourceList
}

// Requests returns the requests of pod as component-helpers
// resource.PodRequests computes them under opts: the sidecar-aware container
// aggregate ([Aggregate]), raised to the allocated and actuated status with
// UseStatusResources, replaced by the pod-level requests of cpu, memory and
// hugepages-* when those are set, plus the overhead.
//
// The map is fresh, holds exactly the keys upstream's holds and values equal
// to upstream's; pod is never modified. A nil pod requests nothing.
// Node-allocatable DRA claims (DRANodeAllocatableResources, alpha, off) are
// not counted.
func Requests(pod *v1.Pod, opts Options) v1.ResourceList {
	if pod == nil {
		return v1.ResourceList{}
	}
	var buf [8]v1.ResourceName
	return collect(pod, appendRequestNames(buf[:0], pod, &opts), Request, opts)
}

// AllRequests yields what [Requests] of pod under opts holds, each resource
// once and in no particular order, without building the map: for integer
// quantities it allocates nothing, so it suits a loop over every pod of a
// cluster that folds the requests into its own sums. A nil pod yields
// nothing.
func AllRequests(pod *v1.Pod, opts Options) iter.Seq2[v1.ResourceName, resource.Quantity] {
	return func(yield func(v1.ResourceName, resource.Quantity) bool) {
		if pod == nil {
			return
		}
		var buf [8]v1.ResourceName
		for _, name := range appendRequestNames(buf[:0], pod, &opts) {
			if q, ok := Request(pod, name, opts); ok && !yield(name, q) {
				return
			}
		}
	}
}

// Request is [Requests] for one resource, without building the map: the
// quantity and whether upstream's map has the key. It allocates nothing for
// integer quantities, so it suits a ranking loop.
func Request(pod *v1.Pod, name v1.ResourceName, opts Options) (resource.Quantity, bool) {
	if pod == nil {
		return resource.Quantity{}, false
	}
	var q resource.Quantity
	ok := false
	if !opts.SkipContainerLevelResources {
		q, ok = containerRequest(pod, name, &opts)
	}
	if !opts.SkipPodLevelResources && IsPodLevelResource(name) && HasPodLevelRequests(pod) {
		var status v1.ResourceList
		if pod.Status.Resources != nil {
			status = pod.Status.Resources.Requests
		}
		if v, found := podLevel(pod, &opts, name, pod.Spec.Resources.Requests, status, pod.Status.AllocatedResources); found {
			q, ok = v, true
		}
	}
	if !opts.ExcludeOverhead {
		if ov, found := pod.Spec.Overhead[name]; found {
			accumulate(&q, &ok, ov)
		}
	}
	return q, ok
}

// Limits returns the limits of pod as component-helpers resource.PodLimits
// computes them under opts: the sidecar-aware container aggregate of limits,
// raised to the actuated limits with UseStatusResources, replaced by the
// pod-level limits of cpu, memory and hugepages-* when pod-level resources
// are set ([HasPodLevelResources]), with the overhead added to each non-zero
// limit. SkipContainerLevelResources and NonMissingContainerRequests do not
// apply to limits. An explicit zero limit is a key of the map.
//
// The map is fresh, holds exactly the keys upstream's holds and values equal
// to upstream's; pod is never modified. A nil pod has no limits.
func Limits(pod *v1.Pod, opts Options) v1.ResourceList {
	if pod == nil {
		return v1.ResourceList{}
	}
	var buf [8]v1.ResourceName
	return collect(pod, appendLimitNames(buf[:0], pod, &opts), Limit, opts)
}

// collect builds the map of the names one reports present.
func collect(pod *v1.Pod, names []v1.ResourceName, one func(*v1.Pod, v1.ResourceName, Options) (resource.Quantity, bool), opts Options) v1.ResourceList {
	out := make(v1.ResourceList, len(names))
	for _, name := range names {
		if q, ok := one(pod, name, opts); ok {
			out[name] = q
		}
	}
	return out
}

// Limit is [Limits] for one resource, without building the map: the quantity
// and whether upstream's map has the key. It allocates nothing for integer
// quantities.
func Limit(pod *v1.Pod, name v1.ResourceName, opts Options) (resource.Quantity, bool) {
	if pod == nil {
		return resource.Quantity{}, false
	}
	q, ok := containerLimit(pod, name, &opts)
	if !opts.SkipPodLevelResources && IsPodLevelResource(name) && HasPodLevelResources(pod) {
		var status v1.ResourceList
		if pod.Status.Resources != nil {
			status = pod.Status.Resources.Limits
		}
		if v, found := podLevel(pod, &opts, name, pod.Spec.Resources.Limits, status, nil); found {
			q, ok = v, true
		}
	}
	if !opts.ExcludeOverhead && ok && !q.IsZero() {
		if ov, found := pod.Spec.Overhead[name]; found {
			q.Add(ov)
		}
	}
	return q, ok
}

// podLevel is the effective pod-level amount of name, a copy: the spec's,
// or under UseStatusResources with pod-level status (status.resources set)
// the largest of the spec (left out while a resize is Infeasible) and the
// two status lists.
func podLevel(pod *v1.Pod, opts *Options, name v1.ResourceName, spec, a, b v1.ResourceList) (resource.Quantity, bool) {
	var q resource.Quantity
	ok := false
	if !opts.UseStatusResources || opts.IgnorePodLevelStatus || pod.Status.Resources == nil {
		v, found := spec[name]
		raise(&q, &ok, v, found)
		return q, ok
	}
	if !IsResizeInfeasible(pod) {
		v, found := spec[name]
		raise(&q, &ok, v, found)
	}
	v, found := a[name]
	raise(&q, &ok, v, found)
	v, found = b[name]
	raise(&q, &ok, v, found)
	return q, ok
}

// containerRequest is upstream's AggregateContainerRequests for one key.
func containerRequest(pod *v1.Pod, name v1.ResourceName, opts *Options) (resource.Quantity, bool) {
	r := reader{pod: pod, nonMissing: opts.NonMissingContainerRequests}
	if !opts.UseStatusResources {
		return Aggregate(pod, name, r.specRequest)
	}
	r.infeasible = IsResizeInfeasible(pod)
	var q resource.Quantity
	ok := false
	if !r.infeasible {
		v, found := Aggregate(pod, name, r.specRequest)
		raise(&q, &ok, v, found)
	}
	st := &pod.Status
	if !opts.IgnorePodLevelStatus && st.AllocatedResources != nil && st.Resources != nil && st.Resources.Requests != nil {
		v, found := st.Resources.Requests[name]
		raise(&q, &ok, v, found)
		v, found = st.AllocatedResources[name]
		raise(&q, &ok, v, found)
		return q, ok
	}
	v, found := Aggregate(pod, name, r.actuatedRequest)
	raise(&q, &ok, v, found)
	v, found = Aggregate(pod, name, r.allocatedRequest)
	raise(&q, &ok, v, found)
	return q, ok
}

// containerLimit is upstream's AggregateContainerLimits for one key.
func containerLimit(pod *v1.Pod, name v1.ResourceName, opts *Options) (resource.Quantity, bool) {
	r := reader{pod: pod}
	if !opts.UseStatusResources {
		return Aggregate(pod, name, SpecLimit)
	}
	r.infeasible = IsResizeInfeasible(pod)
	var q resource.Quantity
	ok := false
	if !r.infeasible {
		v, found := Aggregate(pod, name, SpecLimit)
		raise(&q, &ok, v, found)
	}
	if st := pod.Status.Resources; !opts.IgnorePodLevelStatus && st != nil && st.Limits != nil {
		v, found := st.Limits[name]
		raise(&q, &ok, v, found)
		return q, ok
	}
	v, found := Aggregate(pod, name, r.actuatedLimit)
	raise(&q, &ok, v, found)
	return q, ok
}

// reader reads one container's amounts for [Aggregate]: from the spec or,
// under UseStatusResources, from the container's status, falling back as
// upstream's containerAllocatedRequests, containerActuatedRequests and
// containerActuatedLimits do.
type reader struct {
	pod        *v1.Pod
	infeasible bool
	nonMissing v1.ResourceList
}

func (r *reader) specRequest(c *v1.Container, name v1.ResourceName) (resource.Quantity, bool) {
	return r.orDefault(c.Resources.Requests, name)
}

func (r *reader) allocatedRequest(c *v1.Container, name v1.ResourceName) (resource.Quantity, bool) {
	switch st := containerStatus(r.pod, c.Name); {
	case st != nil && st.AllocatedResources != nil:
		return r.orDefault(st.AllocatedResources, name)
	case r.infeasible:
		return r.orDefault(nil, name)
	}
	return r.orDefault(c.Resources.Requests, name)
}

func (r *reader) actuatedRequest(c *v1.Container, name v1.ResourceName) (resource.Quantity, bool) {
	switch st := containerStatus(r.pod, c.Name); {
	case st != nil && st.Resources != nil && st.Resources.Requests != nil:
		return r.orDefault(st.Resources.Requests, name)
	case st != nil && st.AllocatedResources != nil:
		return r.orDefault(st.AllocatedResources, name)
	case r.infeasible:
		return r.orDefault(nil, name)
	}
	return r.orDefault(c.Resources.Requests, name)
}

func (r *reader) actuatedLimit(c *v1.Container, name v1.ResourceName) (resource.Quantity, bool) {
	switch st := containerStatus(r.pod, c.Name); {
	case st != nil && st.Resources != nil && st.Resources.Limits != nil:
		q, ok := st.Resources.Limits[name]
		return q, ok
	case r.infeasible:
		return resource.Quantity{}, false
	}
	q, ok := c.Resources.Limits[name]
	return q, ok
}

// orDefault reads name from one container's list, standing in
// NonMissingContainerRequests for a missing entry (upstream:
// applyNonMissing).
func (r *reader) orDefault(l v1.ResourceList, name v1.ResourceName) (resource.Quantity, bool) {
	if q, ok := l[name]; ok {
		return q, true
	}
	d, ok := r.nonMissing[name]
	if !ok {
		return resource.Quantity{}, false
	}
	var q resource.Quantity
	q.Add(d)
	return q, true
}
