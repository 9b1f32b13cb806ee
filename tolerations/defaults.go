package tolerations

import (
	"slices"

	"github.com/evictkit/eviction/taints"
	v1 "k8s.io/api/core/v1"
)

// DefaultTolerationSeconds is the default of kube-apiserver's
// --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds.
const DefaultTolerationSeconds int64 = 300

// DefaultSecondsOptions holds the two kube-apiserver flags of the DefaultTolerationSeconds
// admission plugin. The zero value is upstream's default (300 s each).
type DefaultSecondsOptions struct {
	// NotReady is --default-not-ready-toleration-seconds; nil means 300.
	NotReady *int64
	// Unreachable is --default-unreachable-toleration-seconds; nil means 300.
	Unreachable *int64
}

// WithDefaultSeconds returns tols plus the tolerations the DefaultTolerationSeconds admission
// plugin adds, and whether it added any. The result is a fresh slice; tols is not modified.
//
// A list already "covers" not-ready when some toleration has key not-ready or empty, and
// effect NoExecute or empty; operator, value and seconds are not looked at (so
// "not-ready Equal x NoExecute" covers it, although it tolerates no real not-ready taint).
// Likewise for unreachable. For each uncovered one, not-ready first, it appends
// {Key, Operator: Exists, Effect: NoExecute, TolerationSeconds: flag value}.
//
// Every call gives each appended toleration its own TolerationSeconds pointer, where upstream
// hands every pod a pointer to the same variable.
func WithDefaultSeconds(tols []v1.Toleration, opts DefaultSecondsOptions) ([]v1.Toleration, bool) {
	notReady, unreachable := false, false
	for i := range tols {
		t := &tols[i]
		if t.Effect != "" && t.Effect != v1.TaintEffectNoExecute {
			continue
		}
		notReady = notReady || t.Key == "" || t.Key == taints.KeyNotReady
		unreachable = unreachable || t.Key == "" || t.Key == taints.KeyUnreachable
	}
	if notReady && unreachable {
		return slices.Clone(tols), false
	}
	out := make([]v1.Toleration, len(tols), len(tols)+2)
	copy(out, tols)
	if !notReady {
		out = append(out, defaultToleration(taints.KeyNotReady, opts.NotReady))
	}
	if !unreachable {
		out = append(out, defaultToleration(taints.KeyUnreachable, opts.Unreachable))
	}
	return out, true
}

func defaultToleration(key string, seconds *int64) v1.Toleration {
	s := new(int64)
	*s = DefaultTolerationSeconds
	if seconds != nil {
		*s = *seconds
	}
	return v1.Toleration{Key: key, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: s}
}

// PodSpecWithDefaultSeconds returns a deep copy of spec with [WithDefaultSeconds] applied to
// its tolerations, as the admission plugin leaves a pod on create and update. spec is not
// modified; a nil spec yields nil.
func PodSpecWithDefaultSeconds(spec *v1.PodSpec, opts DefaultSecondsOptions) *v1.PodSpec {
	if spec == nil {
		return nil
	}
	out := spec.DeepCopy()
	if tols, changed := WithDefaultSeconds(out.Tolerations, opts); changed {
		out.Tolerations = tols
	}
	return out
}

// DaemonSetOptions describes the daemon pod for [DaemonSet] and [WithDaemonSet]. The zero
// value is a pod on the pod network.
type DaemonSetOptions struct {
	// HostNetwork is the pod's spec.hostNetwork: such a pod also tolerates
	// network-unavailable.
	HostNetwork bool
}

// DaemonSet returns the tolerations the DaemonSet controller adds to every daemon pod, in
// upstream's order: not-ready and unreachable NoExecute (no seconds: forever), then
// disk-pressure, memory-pressure, pid-pressure and unschedulable NoSchedule, then
// network-unavailable NoSchedule when opts.HostNetwork. All use operator Exists. The slice
// is fresh on every call.
func DaemonSet(opts DaemonSetOptions) []v1.Toleration {
	out := []v1.Toleration{
		{Key: taints.KeyNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		{Key: taints.KeyUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		{Key: taints.KeyDiskPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: taints.KeyMemoryPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: taints.KeyPIDPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: taints.KeyUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	}
	if opts.HostNetwork {
		out = append(out, v1.Toleration{Key: taints.KeyNetworkUnavailable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
	}
	return out
}

// WithDaemonSet returns tols with each of [DaemonSet](opts) added or updated by
// [AddOrUpdate], as the DaemonSet controller prepares a daemon pod's spec: an existing
// "not-ready Exists NoExecute 300s" toleration loses its seconds, for instance. The result is
// a fresh slice; tols is not modified.
func WithDaemonSet(tols []v1.Toleration, opts DaemonSetOptions) []v1.Toleration {
	out := slices.Clone(tols)
	for _, t := range DaemonSet(opts) {
		out, _ = AddOrUpdate(out, &t)
	}
	return out
}

// Match reports whether a and b have the same identity, (Key, Effect, Operator, Value);
// TolerationSeconds is not part of it.
func Match(a, b *v1.Toleration) bool {
	return a.Key == b.Key && a.Effect == b.Effect && a.Operator == b.Operator && a.Value == b.Value
}

// Equal reports whether a and b are semantically equal: [Match] and TolerationSeconds both
// nil or both pointing at the same number.
func Equal(a, b *v1.Toleration) bool {
	if !Match(a, b) {
		return false
	}
	if a.TolerationSeconds == nil || b.TolerationSeconds == nil {
		return a.TolerationSeconds == nil && b.TolerationSeconds == nil
	}
	return *a.TolerationSeconds == *b.TolerationSeconds
}

// AddOrUpdate returns a fresh copy of tols with tol in it, and whether that changed anything:
// every element that [Match]es tol is replaced in place by tol; with no match tol is
// appended. The result is false only when every match was already [Equal] to tol.
//
// The list content is upstream's (AddOrUpdateTolerationInPodSpec). Upstream's report differs:
// it compares a pointer with a value, so it says "updated" even when an identical toleration
// is present; AddOrUpdate says false then.
func AddOrUpdate(tols []v1.Toleration, tol *v1.Toleration) ([]v1.Toleration, bool) {
	out := make([]v1.Toleration, 0, len(tols)+1)
	matched, changed := false, false
	for i := range tols {
		if !Match(&tols[i], tol) {
			out = append(out, tols[i])
			continue
		}
		matched = true
		changed = changed || !Equal(&tols[i], tol)
		out = append(out, *tol)
	}
	if !matched {
		out = append(out, *tol)
		changed = true
	}
	return out, changed
}
