package ranking

import (
	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/podresources"
)

// QOSClass returns pod's QoS class as the API server stores it and the kubelet reads it
// (upstream: qos.GetPodQOS): status.qosClass when it is set, else the class computed
// ([ComputeQOSClass]) on pod as API defaulting leaves it ([DefaultedRequests]),
// so a container with limits but no requests counts as requesting its limits. pod is not
// modified. A nil pod is BestEffort.
func QOSClass(pod *v1.Pod, opts Options) v1.PodQOSClass {
	if pod == nil {
		return v1.PodQOSBestEffort
	}
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	return opts.computeQOS(pod, true)
}

// ComputeQOSClass computes pod's QoS class from its spec exactly as given, ignoring
// status.qosClass and applying no defaulting (upstream: qos.ComputePodQOS):
//
//   - with pod-level resources in use (gate on and [podresources.HasPodLevelResources]; with the
//     QOS-class fix gate off, any non-nil spec.resources) the class is that of
//     spec.resources alone;
//   - otherwise each init (plain or sidecar) and regular container has a class; any
//     Burstable container, or a mix of Guaranteed and BestEffort, makes the pod Burstable,
//     else the pod has the containers' common class. Ephemeral containers do not count; a
//     pod without containers is BestEffort.
//
// One set of requirements is BestEffort when it has no requests and no limits at all;
// otherwise only cpu and memory count: a resource whose request differs from its limit
// (absent = 0, compared by value) is Burstable, equal and zero is BestEffort, equal and
// non-zero is Guaranteed, and cpu and memory must agree for the set to be Guaranteed or
// BestEffort. A nil pod is BestEffort.
func ComputeQOSClass(pod *v1.Pod, opts Options) v1.PodQOSClass {
	if pod == nil {
		return v1.PodQOSBestEffort
	}
	return opts.computeQOS(pod, false)
}

// computeQOS is ComputeQOSClass on pod, or on pod as defaulting would leave it when defaulted
// is set. Container-level defaulting is applied on the fly (a limit stands in for a missing
// request); pod-level defaulting builds fresh maps only when spec.resources has entries.
func (o Options) computeQOS(pod *v1.Pod, defaulted bool) v1.PodQOSClass {
	res := pod.Spec.Resources
	if defaulted {
		res = o.defaultedPodResources(pod)
	}
	if !o.DisablePodLevelResources && res != nil &&
		(o.DisablePodLevelResourcesFixKubeletQOSClass || podresources.HasPodLevelSet(res)) {
		return requirementsQOS(res.Requests, res.Limits, false)
	}
	var class v1.PodQOSClass
	visit := func(c *v1.Container) bool {
		cc := requirementsQOS(c.Resources.Requests, c.Resources.Limits, defaulted)
		switch {
		case cc == v1.PodQOSBurstable:
			class = cc
			return false
		case class == "":
			class = cc
		case class != cc:
			class = v1.PodQOSBurstable
			return false
		}
		return true
	}
	for i := range pod.Spec.InitContainers {
		if !visit(&pod.Spec.InitContainers[i]) {
			return class
		}
	}
	for i := range pod.Spec.Containers {
		if !visit(&pod.Spec.Containers[i]) {
			return class
		}
	}
	if class == "" {
		return v1.PodQOSBestEffort
	}
	return class
}

// requirementsQOS is the class of one set of requirements. With defaulted set a missing
// request reads as the limit, as API defaulting would have filled it in; defaulting never
// changes whether both maps are empty.
func requirementsQOS(requests, limits v1.ResourceList, defaulted bool) v1.PodQOSClass {
	if len(requests) == 0 && len(limits) == 0 {
		return v1.PodQOSBestEffort
	}
	cpu := resourceQOS(requests, limits, v1.ResourceCPU, defaulted)
	if cpu == v1.PodQOSBurstable {
		return cpu
	}
	if mem := resourceQOS(requests, limits, v1.ResourceMemory, defaulted); mem != cpu {
		return v1.PodQOSBurstable
	}
	return cpu
}

// resourceQOS is the class one resource gives a set of requirements.
func resourceQOS(requests, limits v1.ResourceList, name v1.ResourceName, defaulted bool) v1.PodQOSClass {
	lim := limits[name]
	req, ok := requests[name]
	if !ok && defaulted {
		req = lim
	}
	switch {
	case req.Cmp(lim) != 0:
		return v1.PodQOSBurstable
	case req.IsZero():
		return v1.PodQOSBestEffort
	default:
		return v1.PodQOSGuaranteed
	}
}

// qosRank orders QoS classes from the first to be evicted to the last: BestEffort 0,
// Burstable 1, Guaranteed 2 (anything else ranks as Burstable).
func qosRank(c v1.PodQOSClass) int {
	switch c {
	case v1.PodQOSBestEffort:
		return 0
	case v1.PodQOSGuaranteed:
		return 2
	default:
		return 1
	}
}
