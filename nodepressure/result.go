package nodepressure

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/thresholds"
)

// Result is what one eviction-manager cycle decided. The caller acts on it in
// this order: report Conditions on the node; kill every pod of LocalStorage
// (then the cycle is over); otherwise, if NodeReclaim is not empty, run those
// garbage collections, read the stats again and skip the Victim when
// [Manager.ReclaimSatisfied] says so; kill the Victim.
type Result struct {
	// Time is the time of the cycle, the now given to Synchronize.
	Time time.Time
	// Warnings are the non-fatal findings of the containerfs step (each
	// wraps [thresholds.ErrContainerFsOverride]); only the first cycle has
	// them.
	Warnings []error
	// Observations are the signals observed in the stats.
	Observations thresholds.Observations
	// Evaluation is the threshold pipeline's decision: the thresholds met,
	// past their grace period and on fresh statistics, the node conditions,
	// and, when Evaluation.Reclaim is set, the threshold, signal and resource
	// to reclaim and whether the threshold is soft.
	Evaluation thresholds.Result
	// Conditions are the node conditions to report (Evaluation.Conditions):
	// MemoryPressure, DiskPressure, PIDPressure, each while observed within
	// the pressure transition period.
	Conditions []v1.NodeConditionType
	// LocalStorage are the pods to evict for exceeding a local-storage limit,
	// in the order of the active pods. When there is any, the kubelet evicts
	// them all and nothing else this cycle: NodeReclaim, Ranked and Victim are
	// empty.
	LocalStorage []Eviction
	// NodeReclaim are the node-level garbage collections the kubelet runs
	// before evicting a pod for the starved resource, in order (only disk
	// signals have any). The caller owns them; see [Manager.ReclaimSatisfied].
	NodeReclaim []thresholds.ReclaimAction
	// Ranked are the active pods in the order the kubelet evicts them for the
	// starved signal, first = evicted first; nil when no resource is starved
	// or no pod is active.
	Ranked []*v1.Pod
	// Victim is the pod to evict: the first evictable pod of Ranked (static,
	// mirror and system-critical pods are skipped); nil when there is none.
	// The kubelet evicts at most one pod per cycle for pressure.
	Victim *Eviction
}

// Eviction is one pod the kubelet kills, with what it writes about it.
type Eviction struct {
	// Pod is the pod to kill (one of the active pods, not a copy).
	Pod *v1.Pod
	// GracePeriodSeconds is the kill grace period: 1 for a hard threshold and
	// for a local-storage limit; for a soft threshold
	// MaxPodGracePeriodSeconds, lowered to the pod's
	// terminationGracePeriodSeconds when that is smaller.
	GracePeriodSeconds int64
	// Message is the eviction message of the pod's status and event.
	Message string
	// Annotations are the event's annotations (offending containers and their
	// usage, the starved resource); nil for a local-storage eviction.
	Annotations map[string]string
	// Status is the pod status the kubelet writes: phase Failed, reason
	// Evicted, Message, and for pressure evictions a DisruptionTarget
	// condition.
	Status v1.PodStatus
}
