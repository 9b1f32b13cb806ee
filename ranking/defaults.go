package ranking

import (
	"maps"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/podresources"
)

// DefaultedRequests returns a deep copy of pod with its requests (and pod-level limits)
// defaulted the way the API server does before it stores a new pod; pod itself is not
// modified. A nil pod gives nil.
//
// Container level (upstream: pkg/apis/core/v1 SetDefaults_Pod): for every regular and init
// container that has a limits map, each limit missing from requests is copied into requests.
//
// Pod level, only when spec.resources has some entry and the PodLevelResources gate is on
// (upstream: pkg/api/pod DefaultPodLevelResources, run from the pod strategy's
// PrepareForCreate):
//
//  1. each hugepages-* resource limited by the containers but neither requested nor limited
//     at pod level gets the aggregated container limit as its pod-level limit;
//  2. missing pod-level cpu and memory requests become the aggregated container requests
//     (the formula of [Request]); then every cpu, memory or hugepages-* resource with a
//     pod-level limit but no pod-level request gets the limit as its request;
//  3. every cpu, memory or hugepages-* resource with a pod-level request but no pod-level limit
//     gets the limit max(pod-level request, aggregated container limits), provided that every
//     container (init, sidecar, regular and ephemeral) sets a limit for it.
//
// With [Options].DisablePodLevelResourcesFixDefaulting the older rules of SetDefaults_Pod
// apply instead: step 1, then step 2 only if pod-level limits exist, and no step 3.
// Defaulting is idempotent.
func DefaultedRequests(pod *v1.Pod, opts Options) *v1.Pod {
	if pod == nil {
		return nil
	}
	out := pod.DeepCopy()
	for i := range out.Spec.InitContainers {
		defaultContainer(&out.Spec.InitContainers[i])
	}
	for i := range out.Spec.Containers {
		defaultContainer(&out.Spec.Containers[i])
	}
	out.Spec.Resources = opts.defaultedPodResources(out)
	return out
}

// defaultContainer copies each limit missing from c's requests into them.
func defaultContainer(c *v1.Container) {
	if c.Resources.Limits == nil {
		return
	}
	if c.Resources.Requests == nil {
		c.Resources.Requests = make(v1.ResourceList, len(c.Resources.Limits))
	}
	for name, q := range c.Resources.Limits {
		if _, ok := c.Resources.Requests[name]; !ok {
			c.Resources.Requests[name] = q.DeepCopy()
		}
	}
}

// defaultedPodResources returns pod's spec.resources as pod-level defaulting leaves it, reading
// container requests as container-level defaulting leaves them. When no pod-level defaulting
// applies it returns pod.Spec.Resources itself; otherwise a fresh value whose maps are new
// (their quantities are shared with pod and must not be modified in place).
func (o Options) defaultedPodResources(pod *v1.Pod) *v1.ResourceRequirements {
	r := pod.Spec.Resources
	if o.DisablePodLevelResources || r == nil || len(r.Requests)+len(r.Limits) == 0 {
		return r
	}
	reqs := maps.Clone(r.Requests)
	lims := maps.Clone(r.Limits)
	ctrLimits := aggregateAll(pod, podresources.SpecLimit, limitNames)

	// Step 1: hugepage limits from the containers.
	for name, q := range ctrLimits {
		if !strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) {
			continue
		}
		if _, ok := r.Requests[name]; ok {
			continue
		}
		if _, ok := lims[name]; !ok {
			if lims == nil {
				lims = v1.ResourceList{}
			}
			lims[name] = q
		}
	}
	legacy := o.DisablePodLevelResourcesFixDefaulting
	if legacy && len(lims) == 0 {
		return &v1.ResourceRequirements{Requests: reqs, Limits: lims, Claims: r.Claims}
	}

	// Step 2: requests from the containers (cpu and memory), then from pod-level limits.
	if reqs == nil {
		reqs = v1.ResourceList{}
	}
	for name, q := range aggregateAll(pod, defaultedRequest, requestNames) {
		if _, ok := reqs[name]; !ok && (name == v1.ResourceCPU || name == v1.ResourceMemory) {
			reqs[name] = q
		}
	}
	for name, q := range lims {
		if _, ok := reqs[name]; !ok && podresources.IsPodLevelResource(name) {
			reqs[name] = q.DeepCopy()
		}
	}
	if len(reqs) == 0 {
		reqs = r.Requests // upstream only stores a non-empty map
	}
	if legacy {
		return &v1.ResourceRequirements{Requests: reqs, Limits: lims, Claims: r.Claims}
	}

	// Step 3: limits for requested resources that every container limits.
	for name, req := range reqs {
		if !podresources.IsPodLevelResource(name) {
			continue
		}
		if _, ok := lims[name]; ok || !everyContainerLimits(pod, name) {
			continue
		}
		val, ok := ctrLimits[name]
		if !ok {
			continue
		}
		if req.Cmp(val) > 0 {
			val = req.DeepCopy()
		}
		if lims == nil {
			lims = v1.ResourceList{}
		}
		lims[name] = val
	}
	return &v1.ResourceRequirements{Requests: reqs, Limits: lims, Claims: r.Claims}
}

// everyContainerLimits reports whether every init, regular and ephemeral container of pod sets
// a limit for name (upstream includes ephemeral containers in this check).
func everyContainerLimits(pod *v1.Pod, name v1.ResourceName) bool {
	for i := range pod.Spec.InitContainers {
		if _, ok := pod.Spec.InitContainers[i].Resources.Limits[name]; !ok {
			return false
		}
	}
	for i := range pod.Spec.Containers {
		if _, ok := pod.Spec.Containers[i].Resources.Limits[name]; !ok {
			return false
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		if _, ok := pod.Spec.EphemeralContainers[i].Resources.Limits[name]; !ok {
			return false
		}
	}
	return true
}

// namesFunc adds the resource names one container contributes to set.
type namesFunc func(c *v1.Container, set map[v1.ResourceName]struct{})

func limitNames(c *v1.Container, set map[v1.ResourceName]struct{}) {
	for name := range c.Resources.Limits {
		set[name] = struct{}{}
	}
}

func requestNames(c *v1.Container, set map[v1.ResourceName]struct{}) {
	for name := range c.Resources.Requests {
		set[name] = struct{}{}
	}
	limitNames(c, set)
}

// aggregateAll is [podresources.Aggregate] for every resource the init and regular containers name.
func aggregateAll(pod *v1.Pod, amount podresources.AmountFunc, names namesFunc) v1.ResourceList {
	set := map[v1.ResourceName]struct{}{}
	for i := range pod.Spec.InitContainers {
		names(&pod.Spec.InitContainers[i], set)
	}
	for i := range pod.Spec.Containers {
		names(&pod.Spec.Containers[i], set)
	}
	out := make(v1.ResourceList, len(set))
	for name := range set {
		if q, ok := podresources.Aggregate(pod, name, amount); ok {
			out[name] = q
		}
	}
	return out
}
