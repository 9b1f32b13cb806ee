package thresholds

import (
	"math"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Value is an amount of a resource, either absolute or relative to capacity.
// If Quantity is non-nil it is used and Percentage is ignored; otherwise
// Percentage, a fraction of capacity (0.1 means 10%), is used.
type Value struct {
	// Quantity is an absolute amount (bytes, inodes or PIDs).
	Quantity *resource.Quantity
	// Percentage is a fraction of capacity, stored as float32 exactly as the
	// kubelet does.
	Percentage float32
}

// Resolve returns the amount v stands for when the resource has the given
// capacity. A quantity is returned as an independent copy; a percentage
// becomes int64(float64(capacity) * float64(Percentage)), truncated toward
// zero, so the float32 rounding of the percentage shows: 10% of 1000Mi is
// 104857601, one more than the exact value. A nil capacity counts as zero.
// Resolve never modifies v or capacity.
func (v Value) Resolve(capacity *resource.Quantity) resource.Quantity {
	if v.Quantity != nil {
		return v.Quantity.DeepCopy()
	}
	var c int64
	if capacity != nil {
		c = capacity.Value()
	}
	q := resource.Quantity{Format: resource.BinarySI}
	q.Set(percentOf(c, v.Percentage))
	return q
}

// percentOf computes the kubelet's percentage resolution. Out-of-range
// products, which Go converts in a platform-specific way, saturate instead;
// NaN counts as zero. Neither can come out of [ParseConfig].
func percentOf(capacity int64, pct float32) int64 {
	f := float64(capacity) * float64(pct)
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// Equal reports whether v and w are logically the same value, as the kubelet
// compares them: two quantities are equal when they compare equal (1Gi equals
// 1073741824); two percentages when the float32 values are equal; a quantity
// never equals a percentage.
func (v Value) Equal(w Value) bool {
	switch {
	case v.Quantity != nil && w.Quantity != nil:
		a := v.Quantity.DeepCopy() // Cmp may convert its receiver in place
		return a.Cmp(*w.Quantity) == 0
	case v.Quantity != nil || w.Quantity != nil:
		return false
	}
	return v.Percentage == w.Percentage
}

// String formats v in flag syntax: a canonical quantity ("100Mi") or a
// percentage ("10%", "10.5%"). A percentage produced by parsing prints so that
// parsing the text again yields the identical float32. 0% and 100% print as
// "0.0%" and "100.0%", because the literal "0%" and "100%" disable a
// threshold instead of setting one.
func (v Value) String() string {
	if v.Quantity != nil {
		q := v.Quantity.DeepCopy()
		return q.String()
	}
	return formatPercent(v.Percentage) + "%"
}

// formatPercent finds the shortest decimal text whose float32 parse, divided
// by 100 in float32 as the kubelet does, gives back p exactly.
func formatPercent(p float32) string {
	if p == 0 {
		return "0.0"
	}
	if p != p || math.IsInf(float64(p), 0) {
		return strconv.FormatFloat(float64(p), 'g', -1, 32)
	}
	base := float32(float64(p) * 100)
	best := ""
	for k := range 9 {
		y := base
		step := float32(math.Inf(1))
		if k%2 == 1 {
			step = float32(math.Inf(-1))
		}
		for range (k + 1) / 2 {
			y = math.Nextafter32(y, step)
		}
		if parsePercentText(y) != p {
			continue
		}
		s := formatFloat32(y)
		if best == "" || len(s) < len(best) {
			best = s
		}
	}
	if best == "" {
		// No float32 text divides to p: it was not produced by a parser.
		best = formatFloat32(base)
	}
	switch best {
	case "100":
		return "100.0"
	case "0":
		return "0.0"
	}
	return best
}

// parsePercentText mirrors the kubelet's float32(x) / 100.
func parsePercentText(y float32) float32 {
	return float32(y / 100)
}

func formatFloat32(y float32) string {
	if a := math.Abs(float64(y)); a != 0 && (a < 1e-4 || a >= 1e21) {
		return strconv.FormatFloat(float64(y), 'g', -1, 32)
	}
	return strconv.FormatFloat(float64(y), 'f', -1, 32)
}

// Threshold is one eviction threshold: the signal it watches, the value the
// available amount must stay at or above, how long it must be crossed before
// it drives eviction, and how much extra must be reclaimed before it counts
// as resolved. The operator is always "less than" and implied by the signal.
type Threshold struct {
	// Signal is the observed quantity.
	Signal Signal
	// Value is the threshold; it is met when the available amount is strictly
	// less than Value resolved against the signal's capacity.
	Value Value
	// GracePeriod is how long the threshold must stay met before it drives
	// eviction. Zero makes it a hard threshold.
	GracePeriod time.Duration
	// MinReclaim, if non-nil, is the amount that must become available
	// beyond Value before a threshold that drove eviction counts as resolved.
	MinReclaim *Value
}

// IsHard reports whether t is a hard threshold, one with no grace period.
// Hard and soft are decided only by GracePeriod, never by the flag that
// produced the threshold: a soft threshold with a 0s grace period is hard.
func (t Threshold) IsHard() bool { return t.GracePeriod == 0 }

// Equivalent reports whether t and u are the same threshold as the kubelet's
// merge sees it: same signal, same grace period, logically equal values
// ([Value.Equal]). MinReclaim is ignored.
func (t Threshold) Equivalent(u Threshold) bool {
	return t.Signal == u.Signal && t.GracePeriod == u.GracePeriod && t.Value.Equal(u.Value)
}

// Equal reports whether t and u are [Threshold.Equivalent] and have logically
// equal minimum reclaims (both absent, or both present and equal). Equal is
// the identity under which the pipeline tracks thresholds across cycles.
func (t Threshold) Equal(u Threshold) bool {
	if !t.Equivalent(u) {
		return false
	}
	if t.MinReclaim == nil || u.MinReclaim == nil {
		return t.MinReclaim == nil && u.MinReclaim == nil
	}
	return t.MinReclaim.Equal(*u.MinReclaim)
}

// String formats t in --eviction-hard syntax, "signal<value", for example
// "memory.available<100Mi". Grace period and minimum reclaim live in other
// flags and are not part of the text.
func (t Threshold) String() string {
	return string(t.Signal) + "<" + t.Value.String()
}
