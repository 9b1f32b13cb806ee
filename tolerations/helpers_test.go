package tolerations

import (
	v1 "k8s.io/api/core/v1"
)

const (
	noSched = v1.TaintEffectNoSchedule
	prefer  = v1.TaintEffectPreferNoSchedule
	noExec  = v1.TaintEffectNoExecute
	exists  = v1.TolerationOpExists
	equal   = v1.TolerationOpEqual
	lt      = v1.TolerationOpLt
	gt      = v1.TolerationOpGt
)

func secs(s int64) *int64 { return &s }

// tol builds a toleration; seconds is nil unless given.
func tol(key string, op v1.TolerationOperator, value string, effect v1.TaintEffect, seconds ...int64) v1.Toleration {
	t := v1.Toleration{Key: key, Operator: op, Value: value, Effect: effect}
	if len(seconds) > 0 {
		t.TolerationSeconds = secs(seconds[0])
	}
	return t
}

func taint(key, value string, effect v1.TaintEffect) v1.Taint {
	return v1.Taint{Key: key, Value: value, Effect: effect}
}

// deepClone returns a deep copy of list (nil stays nil), so that comparing with it later also
// catches a change made through a pointer field (TolerationSeconds, TimeAdded).
func deepClone[T any, PT interface {
	*T
	DeepCopyInto(*T)
}](list []T) []T {
	if list == nil {
		return nil
	}
	out := make([]T, len(list))
	for i := range list {
		PT(&list[i]).DeepCopyInto(&out[i])
	}
	return out
}

// upstreamTolerates calls k8s.io/api's own (*Toleration).ToleratesTaint with a zero (discard)
// logger, as a reference. The logger's type is inferred, so this package needs no klog import.
func upstreamTolerates(tol *v1.Toleration, taint *v1.Taint, gate bool) bool {
	return callWithZeroLogger((*v1.Toleration).ToleratesTaint, tol, taint, gate)
}

func callWithZeroLogger[L any](f func(*v1.Toleration, L, *v1.Taint, bool) bool, tol *v1.Toleration, taint *v1.Taint, gate bool) bool {
	var logger L
	return f(tol, logger, taint, gate)
}
