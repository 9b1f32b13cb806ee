package taints

import v1 "k8s.io/api/core/v1"

// Well-known taint keys. The node keys equal k8s.io/api's v1.TaintNode* constants; they are
// untyped so that they assign to [v1.Taint.Key] and [v1.Toleration.Key] directly.
const (
	// KeyNotReady marks a node whose Ready condition is False.
	KeyNotReady = v1.TaintNodeNotReady
	// KeyUnreachable marks a node whose Ready condition is Unknown (no heartbeat).
	KeyUnreachable = v1.TaintNodeUnreachable
	// KeyUnschedulable marks a node with spec.unschedulable (cordoned).
	KeyUnschedulable = v1.TaintNodeUnschedulable
	// KeyMemoryPressure marks a node whose MemoryPressure condition is True.
	KeyMemoryPressure = v1.TaintNodeMemoryPressure
	// KeyDiskPressure marks a node whose DiskPressure condition is True.
	KeyDiskPressure = v1.TaintNodeDiskPressure
	// KeyNetworkUnavailable marks a node whose NetworkUnavailable condition is True.
	KeyNetworkUnavailable = v1.TaintNodeNetworkUnavailable
	// KeyPIDPressure marks a node whose PIDPressure condition is True.
	KeyPIDPressure = v1.TaintNodePIDPressure
	// KeyOutOfService is set by an administrator after a non-graceful node shutdown.
	KeyOutOfService = v1.TaintNodeOutOfService
	// KeyCloudUninitialized is set by the kubelet (value "true", NoSchedule) when an external
	// cloud provider still has to initialise the node.
	KeyCloudUninitialized = "node.cloudprovider.kubernetes.io/uninitialized"
	// KeyCloudShutdown is set by the cloud node lifecycle controller on a node whose instance
	// is shut down.
	KeyCloudShutdown = "node.cloudprovider.kubernetes.io/shutdown"
)

// ForCondition returns the NoSchedule taint that the node lifecycle controller keeps on a node
// while condition cond has the given status, and false when that status calls for no taint.
//
//	Ready=False              → not-ready
//	Ready=Unknown            → unreachable
//	MemoryPressure=True      → memory-pressure
//	DiskPressure=True        → disk-pressure
//	PIDPressure=True         → pid-pressure
//	NetworkUnavailable=True  → network-unavailable
//
// The taint has an empty value and a nil TimeAdded (the controller stamps the time when it
// writes the node). Any other pair, including Ready=True, pressure False or Unknown and unknown
// condition types or status strings, yields false.
func ForCondition(cond v1.NodeConditionType, status v1.ConditionStatus) (v1.Taint, bool) {
	key := ""
	switch {
	case cond == v1.NodeReady:
		switch status {
		case v1.ConditionFalse:
			key = KeyNotReady
		case v1.ConditionUnknown:
			key = KeyUnreachable
		}
	case status == v1.ConditionTrue:
		switch cond {
		case v1.NodeMemoryPressure:
			key = KeyMemoryPressure
		case v1.NodeDiskPressure:
			key = KeyDiskPressure
		case v1.NodePIDPressure:
			key = KeyPIDPressure
		case v1.NodeNetworkUnavailable:
			key = KeyNetworkUnavailable
		}
	}
	if key == "" {
		return v1.Taint{}, false
	}
	return v1.Taint{Key: key, Effect: v1.TaintEffectNoSchedule}, true
}

// ConditionForKey returns the node condition whose status drives the taint key, and false for
// keys the node lifecycle controller does not derive from a condition (unschedulable included).
// Both not-ready and unreachable map to Ready.
func ConditionForKey(key string) (v1.NodeConditionType, bool) {
	switch key {
	case KeyNotReady, KeyUnreachable:
		return v1.NodeReady, true
	case KeyMemoryPressure:
		return v1.NodeMemoryPressure, true
	case KeyDiskPressure:
		return v1.NodeDiskPressure, true
	case KeyPIDPressure:
		return v1.NodePIDPressure, true
	case KeyNetworkUnavailable:
		return v1.NodeNetworkUnavailable, true
	}
	return "", false
}

// ConditionTaints returns the NoSchedule taints the node lifecycle controller wants on node:
// one per condition that [ForCondition] maps to a taint, in the order of
// node.Status.Conditions, then the unschedulable taint if node.Spec.Unschedulable. The result
// is nil when none applies. A nil node yields nil.
func ConditionTaints(node *v1.Node) []v1.Taint {
	if node == nil {
		return nil
	}
	var out []v1.Taint
	for i := range node.Status.Conditions {
		c := &node.Status.Conditions[i]
		if t, ok := ForCondition(c.Type, c.Status); ok {
			out = append(out, t)
		}
	}
	if node.Spec.Unschedulable {
		out = append(out, v1.Taint{Key: KeyUnschedulable, Effect: v1.TaintEffectNoSchedule})
	}
	return out
}

// IsConditionTaint reports whether t is one of the NoSchedule taints the node lifecycle
// controller manages: effect NoSchedule and a key that [ConditionForKey] knows, or the
// unschedulable key. The controller never touches any other taint.
func IsConditionTaint(t *v1.Taint) bool {
	if t == nil || t.Effect != v1.TaintEffectNoSchedule {
		return false
	}
	if t.Key == KeyUnschedulable {
		return true
	}
	_, ok := ConditionForKey(t.Key)
	return ok
}

// NotReadyNoExecute returns the not-ready NoExecute taint the node lifecycle controller adds
// (rate-limited per zone) to a node whose Ready condition is False. TimeAdded is nil.
func NotReadyNoExecute() v1.Taint {
	return v1.Taint{Key: KeyNotReady, Effect: v1.TaintEffectNoExecute}
}

// UnreachableNoExecute returns the unreachable NoExecute taint the node lifecycle controller
// adds (rate-limited per zone) to a node whose Ready condition is Unknown. TimeAdded is nil.
func UnreachableNoExecute() v1.Taint {
	return v1.Taint{Key: KeyUnreachable, Effect: v1.TaintEffectNoExecute}
}

// ValidEffect reports whether e is one of the three effects the API accepts: NoSchedule,
// PreferNoSchedule or NoExecute (byte-exact).
func ValidEffect(e v1.TaintEffect) bool {
	switch e {
	case v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute:
		return true
	}
	return false
}
