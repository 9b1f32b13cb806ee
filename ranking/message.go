package ranking

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/internal/podcondition"
	"github.com/evictkit/eviction/podresources"
	"github.com/evictkit/eviction/thresholds"
)

const (
	// Reason is the reason the kubelet writes into an evicted pod's status and event.
	Reason = "Evicted"
	// OffendingContainersKey is the event annotation listing the containers that used more
	// than they requested, comma-separated.
	OffendingContainersKey = "offending_containers"
	// OffendingContainersUsageKey is the event annotation listing those containers' usage, in
	// the same order.
	OffendingContainersUsageKey = "offending_containers_usage"
	// OffendingPodKey is the event annotation naming the pod when its pod-level memory request
	// is reported.
	OffendingPodKey = "offending_pod"
	// OffendingPodUsageKey is the event annotation with that pod's memory usage.
	OffendingPodUsageKey = "offending_pod_usage"
	// StarvedResourceKey is the event annotation naming the starved resource.
	StarvedResourceKey = "starved_resource"
)

// EvictionMessage returns the message and event annotations the kubelet writes when it evicts
// pod for pressure on resource res (memory, ephemeral-storage, [thresholds.ResourceInodes] or
// [thresholds.ResourcePIDs]) (upstream: evictionMessage and getThresholdMetInfo). met are the
// thresholds that drove the cycle, in the kubelet's order (eviction priority), and obs the
// cycle's observations. Every fragment ends in ". ":
//
//  1. "The node was low on resource: <res>. ";
//  2. for the first threshold of met whose signal starves res ([thresholds.Signal.Resource])
//     and is observed in obs: "Threshold quantity: <quantity>, available: <available>. ",
//     the quantity being the threshold resolved against the observed capacity
//     ([thresholds.Value.Resolve]);
//  3. if pod has no stats the message ends here and the annotations are empty;
//  4. for memory, when pod-level resources are in use and the pod requests memory at pod
//     level: "Pod <name> was using <usage>, request is <request>, has larger consumption of
//     memory. ", even when usage is below the request, with annotations [OffendingPodKey] and
//     [OffendingPodUsageKey];
//  5. for memory and ephemeral-storage, for each container in usage order that matches a
//     regular or init container of the spec by name (ephemeral containers never do), whose
//     usage (working set, or rootfs plus logs bytes) exceeds its own request (absent = 0):
//     "Container <name> was using <usage>, request is <request>, has larger consumption of
//     <res>. ";
//  6. annotations [OffendingContainersKey] and [OffendingContainersUsageKey] (comma-joined,
//     empty when no container exceeded) and [StarvedResourceKey].
//
// Quantities print in canonical form (usage as binary-SI bytes); requests print as stored in
// the spec. pod is not modified. A nil pod is named "".
func EvictionMessage(res v1.ResourceName, pod *v1.Pod, usage UsageFunc, met []thresholds.Threshold, obs thresholds.Observations, opts Options) (string, map[string]string) {
	var b strings.Builder
	fmt.Fprintf(&b, "The node was low on resource: %s. ", res)
	for _, t := range met {
		if r, ok := t.Signal.Resource(); !ok || r != res {
			continue
		}
		if o, ok := obs[t.Signal]; ok && o.Available != nil {
			q, a := t.Value.Resolve(o.Capacity), o.Available.DeepCopy()
			fmt.Fprintf(&b, "Threshold quantity: %s, available: %s. ", q.String(), a.String())
			break
		}
	}
	annotations := map[string]string{}
	u, found := lookup(usage, pod)
	if !found {
		return b.String(), annotations
	}

	if res == v1.ResourceMemory && !opts.DisablePodLevelResources && podresources.HasPodLevelResources(pod) {
		if req, ok := pod.Spec.Resources.Requests[v1.ResourceMemory]; ok {
			use := quantityOf(u.MemoryWorkingSet)
			fmt.Fprintf(&b, "Pod %s was using %s, request is %s, has larger consumption of %s. ",
				pod.Name, use.String(), req.String(), res)
			annotations[OffendingPodKey] = pod.Name
			annotations[OffendingPodUsageKey] = use.String()
		}
	}

	var names, usages []string
	for i := range u.Containers {
		cu := &u.Containers[i]
		c := specContainer(pod, cu.Name)
		if c == nil {
			continue
		}
		var use resource.Quantity
		switch res {
		case v1.ResourceMemory:
			use = quantityOf(cu.MemoryWorkingSet)
		case v1.ResourceEphemeralStorage:
			use = quantityOf(cu.Rootfs.UsedBytes + cu.Logs.UsedBytes)
		default:
			continue
		}
		req := c.Resources.Requests[res]
		if use.Cmp(req) > 0 {
			fmt.Fprintf(&b, "Container %s was using %s, request is %s, has larger consumption of %s. ",
				c.Name, use.String(), req.String(), res)
			names = append(names, c.Name)
			usages = append(usages, use.String())
		}
	}
	annotations[OffendingContainersKey] = strings.Join(names, ",")
	annotations[OffendingContainersUsageKey] = strings.Join(usages, ",")
	annotations[StarvedResourceKey] = string(res)
	return b.String(), annotations
}

// specContainer returns the first regular, then init, container of pod named name.
func specContainer(pod *v1.Pod, name string) *v1.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == name {
			return &pod.Spec.InitContainers[i]
		}
	}
	return nil
}

// EvictedStatus returns a copy of pod's status as the kubelet leaves it after evicting pod for
// node pressure with message (upstream: the status function evictPod passes to killPodFunc):
// phase Failed, reason [Reason], that message, and a DisruptionTarget condition (status True,
// reason TerminationByKubelet, the same message, observedGeneration = pod's generation) added,
// or replacing an existing one. The condition's lastTransitionTime is now, unless an existing
// DisruptionTarget condition already had status True, whose time is kept. pod is not modified;
// a nil pod gives the status of an empty pod.
func EvictedStatus(pod *v1.Pod, message string, now time.Time) v1.PodStatus {
	status := evicted(pod, message)
	var gen int64
	if pod != nil {
		gen = pod.Generation
	}
	cond := v1.PodCondition{
		Type:               v1.DisruptionTarget,
		Status:             v1.ConditionTrue,
		ObservedGeneration: gen,
		LastTransitionTime: metav1.NewTime(now),
		Reason:             v1.PodReasonTerminationByKubelet,
		Message:            message,
	}
	podcondition.Set(&status, cond)
	return status
}

// LocalStorageEvictedStatus returns a copy of pod's status as the kubelet leaves it after
// evicting pod for exceeding a local-storage limit: phase Failed, reason [Reason] and message,
// with no condition added (upstream: evictPod called without a condition). pod is not
// modified.
func LocalStorageEvictedStatus(pod *v1.Pod, message string) v1.PodStatus {
	return evicted(pod, message)
}

func evicted(pod *v1.Pod, message string) v1.PodStatus {
	var status v1.PodStatus
	if pod != nil {
		pod.Status.DeepCopyInto(&status)
	}
	status.Phase = v1.PodFailed
	status.Reason = Reason
	status.Message = message
	return status
}

// IsEvicted reports whether status is that of a pod the kubelet evicted: phase Failed and
// reason [Reason] (upstream: eviction PodIsEvicted).
func IsEvicted(status v1.PodStatus) bool {
	return status.Phase == v1.PodFailed && status.Reason == Reason
}
