package tolerations

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/taints"
)

func withSeconds(ss ...*int64) []v1.Toleration {
	out := make([]v1.Toleration, len(ss))
	for i, s := range ss {
		out[i] = v1.Toleration{Key: "k", Operator: exists, Effect: noExec, TolerationSeconds: s}
	}
	return out
}

func TestMinTolerationTime(t *testing.T) {
	tests := []struct {
		name        string
		tols        []v1.Toleration
		want        time.Duration
		wantForever bool
	}{
		{"empty", nil, 0, false},
		{"one nil", withSeconds(nil), 0, true},
		{"min of two", withSeconds(secs(1), secs(2)), time.Second, false},
		{"nil ignored after", withSeconds(secs(1), nil), time.Second, false},
		{"nil ignored before", withSeconds(nil, secs(1)), time.Second, false},
		{"zero anywhere", withSeconds(nil, secs(0), secs(5)), 0, false},
		{"negative", withSeconds(secs(-5), secs(300)), 0, false},
		{"all nil", withSeconds(nil, nil, nil), 0, true},
		{"largest exact", withSeconds(secs(9223372036)), 2562047*time.Hour + 47*time.Minute + 16*time.Second, false},
		// Upstream wraps to a negative duration, which it reads as forever too.
		{"one past the range", withSeconds(secs(9223372037)), 0, true},
		// Deliberate difference: upstream wraps 18446744074 s to +290.448384 ms and evicts
		// almost at once; the library tolerates forever.
		{"585 years", withSeconds(secs(18446744074)), 0, true},
		{"max int64", withSeconds(secs(math.MaxInt64)), 0, true},
		{"huge and small: the small one wins", withSeconds(secs(18446744074), secs(5)), 5 * time.Second, false},
		{"huge and nil", withSeconds(secs(math.MaxInt64), nil), 0, true},
		{"huge does not hide a zero", withSeconds(secs(math.MaxInt64), secs(0)), 0, false},
		{"min int64", withSeconds(secs(math.MinInt64)), 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, forever := MinTolerationTime(tc.tols)
			assert.Equal(t, tc.want, d)
			assert.Equal(t, tc.wantForever, forever)
		})
	}
}

func TestMinTolerationTimeUpstreamWrap(t *testing.T) {
	// Documents the upstream arithmetic this package refuses to copy.
	var s int64 = 18446744074
	wrapped := time.Duration(s) * time.Second
	assert.Equal(t, 290448384*time.Nanosecond, wrapped, "upstream's product")
	d, forever := MinTolerationTime(withSeconds(&s))
	assert.True(t, forever)
	assert.Zero(t, d)
}

func TestNoExecuteDecision(t *testing.T) {
	t1 := taint("t1", "", noExec)
	t2 := taint("t2", "", noExec)
	tests := []struct {
		name   string
		taints []v1.Taint
		tols   []v1.Toleration
		want   Decision
	}{
		{"no tolerations", []v1.Taint{t1}, nil, Decision{Kind: EvictNow}},
		{"tolerated 100 s", []v1.Taint{t1}, []v1.Toleration{tol("t1", exists, "", noExec, 100)}, Decision{Kind: EvictAfter, Delay: 100 * time.Second}},
		{"tolerated forever", []v1.Taint{t1}, []v1.Toleration{tol("t1", exists, "", noExec)}, Decision{Kind: Never}},
		{"toleration for another taint", []v1.Taint{t1}, []v1.Toleration{tol("t2", exists, "", noExec)}, Decision{Kind: EvictNow}},
		{"one of two tolerated", []v1.Taint{t1, t2}, []v1.Toleration{tol("t1", exists, "", noExec)}, Decision{Kind: EvictNow, TaintIndex: 1}},
		{
			"minimum of the two", []v1.Taint{t1, t2},
			[]v1.Toleration{tol("t1", exists, "", noExec, 1), tol("t2", exists, "", noExec, 100)},
			Decision{Kind: EvictAfter, Delay: time.Second},
		},
		{"only NoSchedule and PreferNoSchedule", []v1.Taint{taint("x", "", noSched), taint("y", "", prefer)}, nil, Decision{Kind: Never}},
		// Deliberate difference: upstream's processPodOnNode would cancel and evict at once
		// if it were ever called with no taints (its callers never do).
		{"empty taint list", nil, nil, Decision{Kind: Never}},
		{"zero seconds is evict after 0", []v1.Taint{t1}, []v1.Toleration{tol("t1", exists, "", noExec, 0)}, Decision{Kind: EvictAfter}},
		{
			"untolerated beats a zero seen before", []v1.Taint{t1, t2},
			[]v1.Toleration{tol("t1", exists, "", noExec, 0)}, Decision{Kind: EvictNow, TaintIndex: 1},
		},
		{
			"order decides: forever first", []v1.Taint{taint("k", "", noExec)},
			[]v1.Toleration{tol("k", exists, "", noExec), tol("k", exists, "", noExec, 60)}, Decision{Kind: Never},
		},
		{
			"order decides: 60 s first", []v1.Taint{taint("k", "", noExec)},
			[]v1.Toleration{tol("k", exists, "", noExec, 60), tol("k", exists, "", noExec)}, Decision{Kind: EvictAfter, Delay: time.Minute},
		},
		{
			"NoSchedule taints are ignored", []v1.Taint{taint("x", "", noSched), t1},
			[]v1.Toleration{tol("t1", exists, "", noExec, 7)}, Decision{Kind: EvictAfter, TaintIndex: 1, Delay: 7 * time.Second},
		},
		{
			"overflowing seconds tolerate forever", []v1.Taint{t1},
			[]v1.Toleration{tol("t1", exists, "", noExec, 18446744074)}, Decision{Kind: Never},
		},
		{
			"empty-effect toleration with seconds counts", []v1.Taint{t1},
			[]v1.Toleration{tol("t1", exists, "", "", 30)}, Decision{Kind: EvictAfter, Delay: 30 * time.Second},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := NoExecuteDecision(tc.taints, tc.tols, Options{})
			assert.Equal(t, tc.want, got)
			// Same verdict as the composition of the public building blocks.
			want := composedDecision(tc.taints, tc.tols, Options{})
			assert.Equal(t, want.Kind, got.Kind)
			assert.Equal(t, want.Delay, got.Delay)
		})
	}
}

func TestNoExecuteDecisionTaintIndex(t *testing.T) {
	a, b, c := taint("a", "", noExec), taint("b", "", noExec), taint("c", "", noExec)
	sched := taint("s", "", noSched)
	tests := []struct {
		name   string
		taints []v1.Taint
		tols   []v1.Toleration
		want   Decision
		taint  string // key of the deciding taint; "" when none
	}{
		{"never: nothing decides", []v1.Taint{a}, []v1.Toleration{tol("a", exists, "", noExec)}, Decision{Kind: Never}, ""},
		{"never: no NoExecute taint", []v1.Taint{sched}, nil, Decision{Kind: Never}, ""},
		{"evict now: the first untolerated", []v1.Taint{a, b, c}, []v1.Toleration{tol("a", exists, "", noExec, 5)}, Decision{Kind: EvictNow, TaintIndex: 1}, "b"},
		{"evict now: indices count NoSchedule taints", []v1.Taint{sched, a}, nil, Decision{Kind: EvictNow, TaintIndex: 1}, "a"},
		{"evict now: the NoSchedule taint is not it", []v1.Taint{sched, a}, []v1.Toleration{tol("s", exists, "", noSched)}, Decision{Kind: EvictNow, TaintIndex: 1}, "a"},
		{
			"evict after: the smallest seconds", []v1.Taint{a, b, c},
			[]v1.Toleration{tol("a", exists, "", noExec, 60), tol("b", exists, "", noExec, 10), tol("c", exists, "", noExec, 30)},
			Decision{Kind: EvictAfter, TaintIndex: 1, Delay: 10 * time.Second}, "b",
		},
		{
			"evict after: ties go to the first", []v1.Taint{a, b},
			[]v1.Toleration{tol("a", exists, "", noExec, 10), tol("b", exists, "", noExec, 10)},
			Decision{Kind: EvictAfter, Delay: 10 * time.Second}, "a",
		},
		{
			"evict after: negative seconds count as 0, so the first of two negatives", []v1.Taint{a, b},
			[]v1.Toleration{tol("a", exists, "", noExec, -3), tol("b", exists, "", noExec, -5)},
			Decision{Kind: EvictAfter}, "a",
		},
		{
			"evict after: a negative ties with a zero before it", []v1.Taint{a, b},
			[]v1.Toleration{tol("a", exists, "", noExec, 0), tol("b", exists, "", noExec, -5)},
			Decision{Kind: EvictAfter}, "a",
		},
		{
			"evict after: forever taints never decide", []v1.Taint{a, b},
			[]v1.Toleration{tol("a", exists, "", noExec), tol("b", exists, "", noExec, 90)},
			Decision{Kind: EvictAfter, TaintIndex: 1, Delay: 90 * time.Second}, "b",
		},
		{
			"evict after: overflowing seconds lose to finite ones", []v1.Taint{a, b},
			[]v1.Toleration{tol("a", exists, "", noExec, math.MaxInt64), tol("b", exists, "", noExec, 9223372036)},
			Decision{Kind: EvictAfter, TaintIndex: 1, Delay: 9223372036 * time.Second}, "b",
		},
		{
			"evict after: the first tolerating toleration, not the smallest one", []v1.Taint{a, b},
			[]v1.Toleration{tol("a", exists, "", noExec, 50), tol("", exists, "", "", 20), tol("b", exists, "", noExec, 1)},
			Decision{Kind: EvictAfter, TaintIndex: 1, Delay: 20 * time.Second}, "b",
		},
		{
			"evict after: one toleration for all, the first taint", []v1.Taint{sched, a, b},
			[]v1.Toleration{tol("", exists, "", "", 20)},
			Decision{Kind: EvictAfter, TaintIndex: 1, Delay: 20 * time.Second}, "a",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := NoExecuteDecision(tc.taints, tc.tols, Options{})
			assert.Equal(t, tc.want, got)
			deciding, ok := got.DecidingTaint(tc.taints)
			assert.Equal(t, tc.taint != "", ok)
			assert.Equal(t, tc.taint, deciding.Key)
		})
	}
}

func TestDecidingTaintOutOfRange(t *testing.T) {
	list := []v1.Taint{taint("a", "", noExec)}
	for _, d := range []Decision{
		{Kind: EvictNow, TaintIndex: 1},
		{Kind: EvictAfter, TaintIndex: -1},
		{Kind: Never},
	} {
		got, ok := d.DecidingTaint(list)
		assert.False(t, ok, "%+v", d)
		assert.Zero(t, got, "%+v", d)
	}
	got, ok := Decision{Kind: EvictNow}.DecidingTaint(list)
	assert.True(t, ok)
	assert.Equal(t, list[0], got)
}

// composedDecision is the verdict of upstream's processPodOnNode (NoExecute taints, matching
// tolerations, their minimum seconds) written with the public building blocks: Kind and
// Delay, not TaintIndex.
func composedDecision(list []v1.Taint, tols []v1.Toleration, opts Options) Decision {
	ne := taints.OnlyNoExecute(list)
	if len(ne) == 0 {
		return Decision{Kind: Never}
	}
	used, all := Matching(ne, tols, opts)
	if !all {
		return Decision{Kind: EvictNow}
	}
	d, forever := MinTolerationTime(used)
	if forever {
		return Decision{Kind: Never}
	}
	return Decision{Kind: EvictAfter, Delay: d}
}

func TestDecisionString(t *testing.T) {
	assert.Equal(t, "never", Decision{}.String())
	assert.Equal(t, "evict now", Decision{Kind: EvictNow}.String())
	assert.Equal(t, "evict after 5m0s", Decision{Kind: EvictAfter, Delay: 5 * time.Minute}.String())
	assert.Equal(t, "evict after 0s", Decision{Kind: EvictAfter}.String())
	assert.Equal(t, "DecisionKind(9)", DecisionKind(9).String())
}
