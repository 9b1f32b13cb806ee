package tolerations

import (
	"math"

	v1 "k8s.io/api/core/v1"
)

// Options configures matching and validation. The zero value is upstream's default.
type Options struct {
	// ComparisonOperators enables the Lt and Gt operators (feature gate
	// TaintTolerationComparisonOperators, alpha since v1.35, off by default). Off, a Lt or Gt
	// toleration tolerates nothing and validation rejects new ones.
	ComparisonOperators bool
}

// Tolerates reports whether tol tolerates taint. Rules, in order:
//  1. A non-empty toleration effect must equal the taint's effect; an empty one matches all.
//  2. A non-empty toleration key must equal the taint's key; an empty one matches all keys,
//     whatever the operator.
//  3. Operator "" or Equal: the values must be equal (both may be empty). Exists: true, the
//     toleration's value is ignored. Lt / Gt: false unless opts.ComparisonOperators; then both
//     values must be canonical int64 decimals ("0", or an optional '-' and a digit 1-9
//     followed by digits, within int64) and the taint's value must be less / greater than
//     the toleration's. Any other operator (including "exists") tolerates nothing.
//
// TimeAdded and TolerationSeconds play no part. A nil argument tolerates nothing.
// Tolerates does not allocate.
func Tolerates(tol *v1.Toleration, taint *v1.Taint, opts Options) bool {
	if tol == nil || taint == nil {
		return false
	}
	if tol.Effect != "" && tol.Effect != taint.Effect {
		return false
	}
	if tol.Key != "" && tol.Key != taint.Key {
		return false
	}
	switch tol.Operator {
	case "", v1.TolerationOpEqual:
		return tol.Value == taint.Value
	case v1.TolerationOpExists:
		return true
	case v1.TolerationOpLt, v1.TolerationOpGt:
		if !opts.ComparisonOperators {
			return false
		}
		bound, ok := parseDecimal(tol.Value)
		if !ok {
			return false
		}
		v, ok := parseDecimal(taint.Value)
		if !ok {
			return false
		}
		if tol.Operator == v1.TolerationOpLt {
			return v < bound
		}
		return v > bound
	default:
		return false
	}
}

// AnyTolerates reports whether at least one toleration in tols tolerates taint; false for an
// empty list. It does not allocate.
func AnyTolerates(tols []v1.Toleration, taint *v1.Taint, opts Options) bool {
	for i := range tols {
		if Tolerates(&tols[i], taint, opts) {
			return true
		}
	}
	return false
}

// FindUntolerated returns the first taint, in list order, that include accepts and that no
// toleration tolerates, with true; the zero Taint and false when every included taint is
// tolerated. A nil include accepts every taint; the scheduler passes "NoSchedule or
// NoExecute" ([NoScheduleOrNoExecute]). It does not allocate.
func FindUntolerated(taints []v1.Taint, tols []v1.Toleration, include func(*v1.Taint) bool, opts Options) (v1.Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if include != nil && !include(t) {
			continue
		}
		if !AnyTolerates(tols, t, opts) {
			return *t, true
		}
	}
	return v1.Taint{}, false
}

// NoScheduleOrNoExecute is the scheduler's filter for [FindUntolerated]: it accepts taints
// with effect NoSchedule or NoExecute (PreferNoSchedule only affects scoring).
func NoScheduleOrNoExecute(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// Matching returns, for each taint in order, the first toleration in list order that
// tolerates it, and whether every taint is tolerated.
//
//   - No taints: (empty non-nil slice, true).
//   - Some taint tolerated by nothing: (empty non-nil slice, false); partial results are
//     dropped.
//   - Otherwise used has exactly one entry per taint, in taint order, and may repeat a
//     toleration.
//
// Only the first tolerating toleration counts, so the order of tols matters: it decides
// which TolerationSeconds [MinTolerationTime] sees (see the package example). The entries of
// used are shallow copies of tols' elements (TolerationSeconds pointers are shared). For up to
// 32 taints Matching allocates the result slice once when every taint is tolerated, and
// nothing otherwise; beyond that it also allocates an index buffer.
func Matching(taints []v1.Taint, tols []v1.Toleration, opts Options) (used []v1.Toleration, all bool) {
	// Remember indices (on the stack for short lists) so that a failed match allocates nothing.
	var buf [maxStackTaints]int
	idx := buf[:0]
	if len(taints) > maxStackTaints {
		idx = make([]int, 0, len(taints))
	}
	for i := range taints {
		j := firstTolerating(tols, &taints[i], opts)
		if j < 0 {
			return []v1.Toleration{}, false
		}
		idx = append(idx, j)
	}
	used = make([]v1.Toleration, len(idx))
	for i, j := range idx {
		used[i] = tols[j]
	}
	return used, true
}

// maxStackTaints bounds the taint count for which Matching keeps its indices on the stack.
const maxStackTaints = 32

// firstTolerating returns the index of the first toleration that tolerates taint, or -1.
func firstTolerating(tols []v1.Toleration, taint *v1.Taint, opts Options) int {
	for j := range tols {
		if Tolerates(&tols[j], taint, opts) {
			return j
		}
	}
	return -1
}

// parseDecimal parses s as the Lt/Gt operators require: a canonical decimal integer ("0", or
// an optional '-' then a digit 1-9 then digits 0-9; no '+', no leading zeros, no "-0", no
// spaces) that fits in an int64. It does not allocate.
func parseDecimal(s string) (int64, bool) {
	n := len(s)
	if n == 0 {
		return 0, false
	}
	i := 0
	neg := s[0] == '-'
	if neg {
		if n == 1 {
			return 0, false
		}
		i = 1
	}
	if s[i] == '0' {
		return 0, n == 1 // "0" only: "-0", "00", "07" are not canonical
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++ // |MinInt64|
	}
	var u uint64
	for ; i < n; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if u > (limit-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	if neg {
		return int64(-u), true // -u wraps to MinInt64 for 1<<63, as wanted
	}
	return int64(u), true
}
