package tolerations

import (
	"math"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
)

// maxSeconds is the largest number of seconds that fits in a time.Duration.
const maxSeconds = math.MaxInt64 / int64(time.Second)

// noSeconds starts a [foldSeconds] minimum: no TolerationSeconds seen yet, which
// [secondsDuration] reads as forever.
const noSeconds int64 = math.MaxInt64

// MinTolerationTime returns how long the given tolerations let a pod stay on a node with
// NoExecute taints, as upstream's taint eviction computes it from the tolerations [Matching]
// used:
//
//   - empty list: (0, false), evict now;
//   - any TolerationSeconds ≤ 0, wherever it is: (0, false);
//   - every TolerationSeconds nil: (0, true), tolerate forever;
//   - otherwise the smallest non-nil TolerationSeconds, nil entries ignored: (min, false).
//
// Seconds too large for a time.Duration (more than 9 223 372 036, about 292 years) mean
// forever: (0, true). This is a deliberate difference: upstream multiplies with int64
// wrap-around, so 9 223 372 037 s wraps negative (which upstream happens to read as forever)
// and 18 446 744 074 s wraps to +290.448384 ms, evicting at once a pod that asked to stay 585
// years. Within the exact range the result equals upstream's. It does not allocate.
func MinTolerationTime(tols []v1.Toleration) (d time.Duration, forever bool) {
	if len(tols) == 0 {
		return 0, false
	}
	m := noSeconds
	for i := range tols {
		m = foldSeconds(m, tols[i].TolerationSeconds)
	}
	return secondsDuration(m)
}

// foldSeconds folds one TolerationSeconds into the running minimum m: nil leaves m as it is,
// a value ≤ 0 makes it 0 for good (no wait, whatever follows).
func foldSeconds(m int64, s *int64) int64 {
	if s == nil {
		return m
	}
	return min(m, max(*s, 0))
}

// secondsDuration turns a [foldSeconds] minimum into [MinTolerationTime]'s result: forever
// when no seconds were seen or the minimum is too large for a time.Duration.
func secondsDuration(m int64) (d time.Duration, forever bool) {
	if m > maxSeconds {
		return 0, true
	}
	return time.Duration(m) * time.Second, false
}

// DecisionKind says whether and when taint eviction evicts a pod.
type DecisionKind uint8

// The decision kinds. The zero value is Never.
const (
	// Never means no NoExecute taint, or every one tolerated forever; any scheduled eviction is
	// cancelled.
	Never DecisionKind = iota
	// EvictNow means some NoExecute taint is not tolerated; the pod is evicted at once, replacing
	// any scheduled eviction.
	EvictNow
	// EvictAfter means every NoExecute taint is tolerated for a while; the pod is evicted after
	// [Decision.Delay] unless an eviction is already scheduled (see tainteviction.Reconcile).
	EvictAfter
)

// String returns "never", "evict now" or "evict after".
func (k DecisionKind) String() string {
	switch k {
	case Never:
		return "never"
	case EvictNow:
		return "evict now"
	case EvictAfter:
		return "evict after"
	}
	return "DecisionKind(" + strconv.Itoa(int(k)) + ")"
}

// Decision is the taint-eviction verdict for one pod on one node. It is 16 bytes: the taint
// index is an int32 so that it fits beside Kind.
type Decision struct {
	// Kind is Never, EvictNow or EvictAfter.
	Kind DecisionKind
	// TaintIndex is the index, in the taints given to [NoExecuteDecision], of the taint that
	// decided:
	//
	//   - EvictNow: the first NoExecute taint that no toleration tolerates;
	//   - EvictAfter: the NoExecute taint whose first tolerating toleration gives Delay, its
	//     TolerationSeconds counted as 0 when negative; when several give it, the first;
	//   - Never: no taint decided, and TaintIndex is 0 (so that the zero Decision is Never).
	//
	// [Decision.DecidingTaint] looks it up.
	TaintIndex int32
	// Delay is how long the pod may stay, for EvictAfter only (≥ 0; 0 is not the same as
	// EvictNow for tainteviction.Reconcile: it does not replace an eviction already scheduled).
	Delay time.Duration
}

// DecidingTaint returns the taint that decided d, taints[d.TaintIndex], with true, where
// taints are the ones given to the [NoExecuteDecision] that returned d; the zero Taint and
// false for Never, or when the index is outside taints.
func (d Decision) DecidingTaint(taints []v1.Taint) (v1.Taint, bool) {
	if d.Kind == Never || d.TaintIndex < 0 || int(d.TaintIndex) >= len(taints) {
		return v1.Taint{}, false
	}
	return taints[d.TaintIndex], true
}

// String returns "never", "evict now" or "evict after <Delay>" (e.g. "evict after 5m0s").
func (d Decision) String() string {
	if d.Kind == EvictAfter {
		return "evict after " + d.Delay.String()
	}
	return d.Kind.String()
}

// NoExecuteDecision decides what taint eviction does with a pod with tolerations tols on a
// node with taints, as upstream's processPodOnNode does:
//
//  1. Only NoExecute taints count, in node order.
//  2. None → Never.
//  3. Some NoExecute taint tolerated by nothing → EvictNow.
//  4. Otherwise take, for each NoExecute taint, the first toleration that tolerates it
//     ([Matching]) and their [MinTolerationTime]: forever → Never, else EvictAfter(d), d ≥ 0.
//
// The result names the taint that decided in [Decision.TaintIndex], an index into taints.
//
// Step 2 differs from upstream only in a case upstream never reaches (both of its callers
// skip nodes without NoExecute taints): given an empty list its code would cancel and then
// evict at once. NoExecuteDecision does not allocate.
func NoExecuteDecision(taints []v1.Taint, tols []v1.Toleration, opts Options) Decision {
	m := noSeconds // no NoExecute taint leaves it there too: Never
	at := 0        // the taint that set m
	for i := range taints {
		t := &taints[i]
		if t.Effect != v1.TaintEffectNoExecute {
			continue
		}
		j := firstTolerating(tols, t, opts)
		if j < 0 {
			return Decision{Kind: EvictNow, TaintIndex: int32(i)}
		}
		// foldSeconds, keeping the first taint that lowers the minimum.
		if s := tols[j].TolerationSeconds; s != nil && max(*s, 0) < m {
			m, at = max(*s, 0), i
		}
	}
	if d, forever := secondsDuration(m); !forever {
		return Decision{Kind: EvictAfter, TaintIndex: int32(at), Delay: d}
	}
	return Decision{Kind: Never}
}
