package nodepressure

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/tolerations"
)

// memoryPressureTaint is the taint a BestEffort pod must tolerate to be
// admitted under memory pressure (upstream: v1.TaintNodeMemoryPressure with
// effect NoSchedule, the taint the node lifecycle controller sets for the
// condition).
var memoryPressureTaint = v1.Taint{Key: v1.TaintNodeMemoryPressure, Effect: v1.TaintEffectNoSchedule}

// Admission is the eviction manager's answer to a pod that asks to start on
// the node (upstream: lifecycle.PodAdmitResult).
type Admission struct {
	// Admit reports whether the pod may start.
	Admit bool
	// Reason is [ranking.Reason] ("Evicted") when the pod is rejected, else
	// empty.
	Reason string
	// Message is "The node had condition: [<conditions>]. " when the pod is
	// rejected, listing every condition in the order given, else empty.
	Message string
}

// Admit decides whether pod may start on a node that reports conditions, the
// node conditions of the eviction manager's last cycle (as the thresholds
// package's Evaluator reports them), exactly as the kubelet's eviction
// manager admits pods (upstream: managerImpl.Admit):
//
//   - with no condition every pod is admitted;
//   - a critical pod ([ranking.IsCritical]: static, mirror, or priority at
//     least system-cluster-critical) is always admitted;
//   - under memory pressure alone a pod is admitted unless it is BestEffort
//     ([ranking.QOSClass]) and has no toleration of the
//     node.kubernetes.io/memory-pressure:NoSchedule taint;
//   - under any other condition, or memory pressure with another one (a
//     repeated condition counts as another), every other pod is rejected.
//
// A rejection carries reason "Evicted" and the message
// "The node had condition: [MemoryPressure DiskPressure]. ". opts selects the
// feature gates of the QoS class (the zero value is v1.37.2's defaults). pod
// and conditions are not modified; a nil pod is judged as a pod with an empty
// spec.
//
// The toleration check needs no gate: Lt and Gt tolerations never match the
// taint, which has no value, whether TaintTolerationComparisonOperators is on
// or off.
func Admit(conditions []v1.NodeConditionType, pod *v1.Pod, opts ranking.Options) Admission {
	if len(conditions) == 0 || ranking.IsCritical(pod) {
		return Admission{Admit: true}
	}
	if len(conditions) == 1 && conditions[0] == v1.NodeMemoryPressure {
		if ranking.QOSClass(pod, opts) != v1.PodQOSBestEffort {
			return Admission{Admit: true}
		}
		if pod != nil && tolerations.AnyTolerates(pod.Spec.Tolerations, &memoryPressureTaint, tolerations.Options{}) {
			return Admission{Admit: true}
		}
	}
	return Admission{
		Reason:  ranking.Reason,
		Message: fmt.Sprintf("The node had condition: %v. ", conditions),
	}
}
