package devicetaints

import (
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Tolerates reports whether tol tolerates taint, as the DRA helper
// resourceclaim.ToleratesTaint decides it:
//
//  1. A non-empty toleration effect must equal the taint's effect; an empty
//     one matches every effect, None included.
//  2. A non-empty toleration key must equal the taint's key; an empty one
//     matches every key.
//  3. Operator "" or Equal: the values must be equal (both may be empty).
//     Exists: any value. Any other operator tolerates nothing.
//
// TimeAdded and TolerationSeconds play no part. Whether a taint's effect
// matters at all is the caller's business: eviction looks only at NoExecute
// taints, and only at tolerations whose effect is NoExecute (see
// [Snapshot.Claim]). Tolerates does not allocate.
func Tolerates(tol resourceapi.DeviceToleration, taint resourceapi.DeviceTaint) bool {
	return tolerates(&tol, &taint)
}

func tolerates(tol *resourceapi.DeviceToleration, taint *resourceapi.DeviceTaint) bool {
	if tol.Effect != "" && tol.Effect != taint.Effect {
		return false
	}
	if tol.Key != "" && tol.Key != taint.Key {
		return false
	}
	switch tol.Operator {
	case "", resourceapi.DeviceTolerationOpEqual:
		return tol.Value == taint.Value
	case resourceapi.DeviceTolerationOpExists:
		return true
	}
	return false
}

// DeviceID names a device as an allocation result does: its driver, its
// pool and its name within the pool.
type DeviceID struct {
	Driver, Pool, Device string
}

// String returns "driver/pool/device".
func (id DeviceID) String() string { return id.Driver + "/" + id.Pool + "/" + id.Device }

// Selector is a DeviceTaintRule's spec.deviceSelector: each field that is
// set must equal the device's. Kubernetes v1.37 has no other criteria (the
// deviceClassName and CEL selectors of the alpha API were removed in v1.35).
type Selector struct {
	Driver, Pool, Device *string
}

// Matches reports whether s selects the device id. A nil selector selects
// no device and an empty one every device, as the API documents and the
// controller decides.
func (s *Selector) Matches(id DeviceID) bool {
	if s == nil {
		return false
	}
	return (s.Driver == nil || *s.Driver == id.Driver) &&
		(s.Pool == nil || *s.Pool == id.Pool) &&
		(s.Device == nil || *s.Device == id.Device)
}

// Rule is a DeviceTaintRule, reduced to what the eviction controller reads.
// It is a plain value so that this package builds on k8s.io/api v0.36,
// where the type is resource.k8s.io/v1beta2 (v0.37 serves it as v1); a
// caller fills it from either:
//
//	devicetaints.Rule{Name: r.Name, UID: r.UID, Generation: r.Generation,
//		Selector: (*devicetaints.Selector)(r.Spec.DeviceSelector),
//		Taint: r.Spec.Taint, Conditions: r.Status.Conditions}
//
// (the selector converts as shown from v1 and v1beta2, which have exactly
// these three fields; a v1beta2 taint converts field by field).
type Rule struct {
	// Name, UID and Generation are the rule's metadata.
	Name       string
	UID        types.UID
	Generation int64
	// Selector is spec.deviceSelector; nil selects nothing.
	Selector *Selector
	// Taint is spec.taint.
	Taint resourceapi.DeviceTaint
	// Conditions is status.conditions as the API server holds them: the
	// controller reads its own EvictionInProgress condition back to space
	// its updates ([RuleStatusPeriod]).
	Conditions []metav1.Condition
}

// sameSpec reports whether a and b have semantically equal specs, as
// apimachinery's Semantic.DeepEqual compares them (times by instant).
func sameSpec(a, b *Rule) bool {
	return sameSelector(a.Selector, b.Selector) && sameTaint(&a.Taint, &b.Taint)
}

func sameSelector(a, b *Selector) bool {
	if a == nil || b == nil {
		return a == b
	}
	return sameString(a.Driver, b.Driver) && sameString(a.Pool, b.Pool) && sameString(a.Device, b.Device)
}

func sameString(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// sameTaint compares two taints field by field, TimeAdded by instant.
func sameTaint(a, b *resourceapi.DeviceTaint) bool {
	if a.Key != b.Key || a.Value != b.Value || a.Effect != b.Effect {
		return false
	}
	if a.TimeAdded == nil || b.TimeAdded == nil {
		return a.TimeAdded == nil && b.TimeAdded == nil
	}
	return a.TimeAdded.Round(0).Equal(b.TimeAdded.Round(0))
}
