package ranking

import (
	"math"
	"math/bits"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/podresources"
)

// The oom_score_adj values at the ends of the kubelet's scale (upstream: pkg/kubelet/qos).
const (
	// GuaranteedOOMScoreAdj is the oom_score_adj of every container of a Guaranteed or
	// node-critical pod: the last the kernel's OOM killer picks, after the kubelet and
	// kube-proxy (-999).
	GuaranteedOOMScoreAdj = -997
	// BestEffortOOMScoreAdj is the oom_score_adj of every container of a BestEffort pod: the
	// first the OOM killer picks.
	BestEffortOOMScoreAdj = 1000
)

// NodeCriticalPriorityClass is the priority class that, on a critical pod, earns the
// Guaranteed score whatever the pod's QoS class (upstream: scheduling.SystemNodeCritical).
const NodeCriticalPriorityClass = "system-node-critical"

// OOMScoreAdjust returns the oom_score_adj the kubelet gives the processes of container, a
// container of pod, on a node with memoryCapacity bytes of memory (upstream: pkg/kubelet/qos
// GetContainerOOMScoreAdjust). The kernel adds it to a process's share of memory in
// thousandths to choose whom the OOM killer ends first; QoS steers the OOM killer as it steers
// eviction:
//
//   - a node-critical pod ([IsCritical] with priority class system-node-critical) and a
//     Guaranteed pod ([QOSClass]): [GuaranteedOOMScoreAdj] (-997);
//   - a BestEffort pod: [BestEffortOOMScoreAdj] (1000);
//   - a Burstable pod: 1000 - 1000*request/memoryCapacity in integer arithmetic, from the
//     container's memory request as API defaulting leaves it (a limit stands in for a missing
//     request). With pod-level resources in use (the gate on and a pod-level request for cpu,
//     memory or hugepages) the part of the pod-level memory request that the containers'
//     effective aggregate (the sidecar-aware sum of [Request]) leaves unrequested is shared equally
//     among all init and regular containers and added to each request. A sidecar (a
//     restartable init container of pod, matched by name) scores no higher than the regular
//     container with the smallest request would. The result is then raised to 3 (so that it
//     stays above a Guaranteed container at full use), and 1000 becomes 999 (below
//     BestEffort).
//
// opts selects the feature gates (the zero value is v1.37.2's defaults). pod and container are
// not modified. It does not check that container belongs to pod.
//
// Differences from upstream, on inputs the kubelet never sees: a memoryCapacity below 1
// counts as 1 byte (upstream divides by zero at 0); a sidecar in a pod without regular
// containers keeps its own score (upstream indexes an empty list and panics); requests large
// enough for 1000*request to overflow int64 (about 8 PiB) are computed exactly (upstream's
// product wraps). A nil pod or container scores as BestEffort. The alpha gate
// DRANodeAllocatableResources (off by default), which adds memory allocated through DRA
// claims to the requests, is not supported.
func OOMScoreAdjust(pod *v1.Pod, container *v1.Container, memoryCapacity int64, opts Options) int {
	if pod == nil || container == nil {
		return BestEffortOOMScoreAdj
	}
	if IsCritical(pod) && pod.Spec.PriorityClassName == NodeCriticalPriorityClass {
		return GuaranteedOOMScoreAdj
	}
	switch QOSClass(pod, opts) {
	case v1.PodQOSGuaranteed:
		return GuaranteedOOMScoreAdj
	case v1.PodQOSBestEffort:
		return BestEffortOOMScoreAdj
	}
	capacity := max(memoryCapacity, 1)
	var extra int64 // each container's share of the unrequested pod-level memory request
	if res := opts.defaultedPodResources(pod); !opts.DisablePodLevelResources && res != nil && podLevelRequestsSet(res) {
		extra = unrequestedShare(pod, res)
	}
	adj := burstableScore(satAdd(memoryRequest(container), extra), capacity)
	if isSidecarOf(pod, container) && len(pod.Spec.Containers) > 0 {
		least := memoryRequest(&pod.Spec.Containers[0])
		for i := 1; i < len(pod.Spec.Containers); i++ {
			least = min(least, memoryRequest(&pod.Spec.Containers[i]))
		}
		adj = min(adj, burstableScore(satAdd(least, extra), capacity))
	}
	if adj < 1000+GuaranteedOOMScoreAdj {
		return 1000 + GuaranteedOOMScoreAdj
	}
	if adj == BestEffortOOMScoreAdj {
		return BestEffortOOMScoreAdj - 1
	}
	return int(adj)
}

// memoryRequest is a container's memory request in bytes, rounded up, as defaulting leaves
// it (a limit stands in for a missing request).
func memoryRequest(c *v1.Container) int64 {
	q, _ := defaultedRequest(c, v1.ResourceMemory)
	return q.Value()
}

// podLevelRequestsSet reports whether pod-level requests name cpu, memory or hugepages
// (upstream: component-helpers IsPodLevelRequestsSet).
func podLevelRequestsSet(r *v1.ResourceRequirements) bool {
	for name := range r.Requests {
		if podresources.IsPodLevelResource(name) {
			return true
		}
	}
	return false
}

// unrequestedShare is the pod-level memory request beyond the containers' effective
// aggregate, divided by the number of init and regular containers (upstream:
// remainingPodMemReqPerContainer).
func unrequestedShare(pod *v1.Pod, res *v1.ResourceRequirements) int64 {
	podReq, ok := res.Requests[v1.ResourceMemory]
	if !ok || podReq.IsZero() {
		return 0
	}
	var ctrs resource.Quantity
	if q, ok := podresources.Aggregate(pod, v1.ResourceMemory, defaultedRequest); ok {
		ctrs = q
	}
	rest := max(satSub(podReq.Value(), ctrs.Value()), 0)
	return rest / int64(len(pod.Spec.Containers)+len(pod.Spec.InitContainers))
}

// isSidecarOf reports whether c is restartable and named like one of pod's init containers
// (upstream: isSidecarContainer).
func isSidecarOf(pod *v1.Pod, c *v1.Container) bool {
	if !podresources.IsSidecar(c) {
		return false
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == c.Name {
			return true
		}
	}
	return false
}

// burstableScore is 1000 - 1000*request/capacity with Go's truncating division, as upstream
// computes it for requests below about 8 PiB; beyond, where upstream's product overflows, the
// exact value, saturated to int64. capacity is positive.
func burstableScore(request, capacity int64) int64 {
	const exact = math.MaxInt64 / 1000
	if request >= -exact && request <= exact {
		return 1000 - 1000*request/capacity
	}
	mag := uint64(request)
	if request < 0 {
		mag = -mag
	}
	hi, lo := bits.Mul64(mag, 1000)
	share := uint64(math.MaxInt64 - 1000)
	if hi < uint64(capacity) {
		if q, _ := bits.Div64(hi, lo, uint64(capacity)); q < share {
			share = q
		}
	}
	if request < 0 {
		return 1000 + int64(share)
	}
	return 1000 - int64(share)
}

// satAdd and satSub add and subtract without wrapping.
func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

func satSub(a, b int64) int64 {
	if b == math.MinInt64 {
		if a >= 0 {
			return math.MaxInt64
		}
		return a - b
	}
	return satAdd(a, -b)
}
