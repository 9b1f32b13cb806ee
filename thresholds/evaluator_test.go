package thresholds

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

// step is one observation cycle of a step-table test.
type step struct {
	name      string
	advance   time.Duration // fake clock advance before the cycle
	available string        // observed memory.available (capacity 8Gi)
	pressure  bool          // MemoryPressure reported
	reclaim   bool          // a resource is to be reclaimed
	soft      bool          // ... for a soft threshold
	grace     int64         // kill grace period for a pod without terminationGracePeriodSeconds
}

func runSteps(t *testing.T, e *Evaluator, clk *clocktesting.FakePassiveClock, steps []step) {
	t.Helper()
	for _, s := range steps {
		clk.SetTime(clk.Now().Add(s.advance))
		r := e.Observe(clk.Now(), Observations{MemoryAvailable: obs(s.available, "8Gi", clk.Now())})
		if s.pressure {
			assert.Equal(t, []v1.NodeConditionType{v1.NodeMemoryPressure}, r.Conditions, s.name)
		} else {
			assert.Empty(t, r.Conditions, s.name)
		}
		assert.Equal(t, s.pressure, e.UnderPressure(v1.NodeMemoryPressure), s.name)
		assert.Equal(t, r.Conditions, e.Conditions(), s.name)
		require.Equal(t, s.reclaim, r.Reclaim, s.name)
		if !s.reclaim {
			assert.Empty(t, r.Resource, s.name)
			continue
		}
		assert.Equal(t, MemoryAvailable, r.Signal, s.name)
		assert.Equal(t, v1.ResourceMemory, r.Resource, s.name)
		assert.Equal(t, s.soft, r.Soft, s.name)
		assert.Equal(t, s.grace, r.GracePeriodOverride(&v1.Pod{}), s.name)
	}
}

func TestEvaluatorTimeline(t *testing.T) {
	// Soft threshold → grace → eviction → recovery → hard eviction →
	// transition period.
	ts, err := ParseConfig(Config{
		Hard:            map[string]string{"memory.available": "1Gi"},
		Soft:            map[string]string{"memory.available": "2Gi"},
		SoftGracePeriod: map[string]string{"memory.available": "2m"},
	})
	require.NoError(t, err)
	clk := clocktesting.NewFakePassiveClock(t0)
	e, err := NewEvaluator(ts, Options{MaxPodGracePeriodSeconds: 5, PressureTransitionPeriod: 5 * time.Minute})
	require.NoError(t, err)
	runSteps(t, e, clk, []step{
		{name: "no pressure", available: "2Gi"},
		{name: "soft met, in grace", advance: time.Minute, available: "1500Mi", pressure: true},
		{name: "grace still running", advance: time.Minute, available: "1500Mi", pressure: true},
		{name: "grace elapsed: soft eviction", advance: 2 * time.Minute, available: "1500Mi", pressure: true, reclaim: true, soft: true, grace: 5},
		{name: "recovered long ago", advance: 20 * time.Minute, available: "3Gi"},
		{name: "hard met: immediate eviction", advance: time.Minute, available: "500Mi", pressure: true, reclaim: true, grace: 1},
		{name: "recovering, transition period", advance: time.Minute, available: "2Gi", pressure: true},
		{name: "transition period over", advance: 5 * time.Minute, available: "2Gi"},
	})
}

func TestEvaluatorSoftGraceRestarts(t *testing.T) {
	// A soft threshold un-met for one cycle restarts its grace period.
	ts := []Threshold{{Signal: MemoryAvailable, Value: qv("2Gi"), GracePeriod: 2 * time.Minute}}
	clk := clocktesting.NewFakePassiveClock(t0)
	e, err := NewEvaluator(ts, Options{})
	require.NoError(t, err)
	runSteps(t, e, clk, []step{
		{name: "soft met", available: "1Gi", pressure: true},
		{name: "un-met once", advance: time.Minute, available: "3Gi", pressure: true},
		{name: "met again: grace restarted", advance: time.Minute, available: "1Gi", pressure: true},
		{name: "1m59s into the new grace", advance: 119 * time.Second, available: "1Gi", pressure: true},
		{name: "grace over", advance: time.Second, available: "1Gi", pressure: true, reclaim: true, soft: true, grace: 0},
	})
}

func TestEvaluatorMinReclaimTimeline(t *testing.T) {
	ts, err := ParseConfig(Config{
		Hard:           map[string]string{"memory.available": "1Gi"},
		MinimumReclaim: map[string]string{"memory.available": "500Mi"},
	})
	require.NoError(t, err)
	clk := clocktesting.NewFakePassiveClock(t0)
	e, err := NewEvaluator(ts, Options{})
	require.NoError(t, err)
	runSteps(t, e, clk, []step{
		{name: "nothing", available: "2Gi"},
		{name: "hard met", advance: 10 * time.Second, available: "500Mi", pressure: true, reclaim: true, grace: 1},
		{name: "above threshold, below min-reclaim", advance: 10 * time.Second, available: "1228Mi", pressure: true, reclaim: true, grace: 1},
		{name: "min-reclaim satisfied", advance: 10 * time.Second, available: "2Gi", pressure: true},
		{name: "transition period over", advance: 5 * time.Minute, available: "2Gi"},
	})
}

func TestEvaluatorStaleStats(t *testing.T) {
	// Unchanged observation timestamp → no eviction, conditions updated.
	ts := []Threshold{{Signal: MemoryAvailable, Value: qv("1Gi")}}
	e, err := NewEvaluator(ts, Options{})
	require.NoError(t, err)
	o := Observations{MemoryAvailable: obs("500Mi", "8Gi", t0)}
	r := e.Observe(t0, o)
	assert.True(t, r.Reclaim)
	r = e.Observe(t0.Add(10*time.Second), o)
	assert.False(t, r.Reclaim, "same statistics must not evict twice")
	assert.Equal(t, []v1.NodeConditionType{v1.NodeMemoryPressure}, r.Conditions)
	assertThresholds(t, ts, r.Eligible)
	assert.Empty(t, r.Fresh)

	zero := Observations{MemoryAvailable: obs("500Mi", "8Gi", time.Time{})}
	assert.True(t, e.Observe(t0.Add(20*time.Second), zero).Reclaim, "zero timestamps always count as fresh")
	assert.True(t, e.Observe(t0.Add(30*time.Second), zero).Reclaim)
}

func TestEvaluatorNilAvailable(t *testing.T) {
	// Through the Evaluator: an observation with a nil Available is
	// absent in the cycle it is given and as the previous observation of
	// the next cycle. The kubelet's makeSignalObservations leaves such a
	// signal out, so its lastObservations has no entry for it and
	// thresholdsUpdatedStats keeps the threshold in the next cycle, whatever
	// the time of the statistics.
	ts := []Threshold{{Signal: MemoryAvailable, Value: qv("1Gi")}}
	e, err := NewEvaluator(ts, Options{})
	require.NoError(t, err)

	r := e.Observe(t0, Observations{MemoryAvailable: obs("500Mi", "8Gi", t0)})
	require.True(t, r.Reclaim, "hard threshold met on fresh statistics")

	hole := Observations{MemoryAvailable: noAvailable("8Gi", t0.Add(time.Hour))}
	r = e.Observe(t0.Add(10*time.Second), hole)
	assert.False(t, r.Reclaim, "nothing is observed, nothing is met")
	assert.Empty(t, r.Met)
	assert.Empty(t, r.Eligible)
	assert.Equal(t, []v1.NodeConditionType{v1.NodeMemoryPressure}, r.Conditions, "the condition stays for the transition period")
	assert.Empty(t, e.State().LastObservations, "absent observations are not remembered")
	assert.True(t, e.ReclaimSatisfied(hole), "no threshold is met on absent observations")

	// The statistics are older than the hole's time, but the hole was no
	// observation: upstream evicts again, and so does the Evaluator.
	r = e.Observe(t0.Add(20*time.Second), Observations{MemoryAvailable: obs("500Mi", "8Gi", t0.Add(time.Second))})
	require.True(t, r.Reclaim, "no previous observation: the statistics are fresh")
	assertThresholds(t, ts, r.Fresh)

	// A second hole, then the very statistics of the last eviction again:
	// still fresh, because the previous cycle observed nothing.
	same := Observations{MemoryAvailable: obs("500Mi", "8Gi", t0.Add(time.Second))}
	e.Observe(t0.Add(30*time.Second), Observations{MemoryAvailable: noAvailable("", time.Time{})})
	assert.True(t, e.Observe(t0.Add(40*time.Second), same).Reclaim)
	assert.False(t, e.Observe(t0.Add(50*time.Second), same).Reclaim, "same statistics twice in a row: stale")
}

func TestEvaluatorTransitionPeriodOptions(t *testing.T) {
	ts := []Threshold{{Signal: PIDAvailable, Value: qv("100")}}
	o := Observations{PIDAvailable: obs("10", "1000", t0)}
	// Negative: no condition is ever reported (upstream's explicit 0s).
	e, err := NewEvaluator(ts, Options{PressureTransitionPeriod: -1})
	require.NoError(t, err)
	r := e.Observe(t0, o)
	assert.Empty(t, r.Conditions)
	assert.True(t, r.Reclaim, "eviction does not depend on conditions")
	assert.Equal(t, ResourcePIDs, r.Resource)

	// Zero: the 5 minute default.
	e, err = NewEvaluator(ts, Options{})
	require.NoError(t, err)
	e.Observe(t0, o)
	r = e.Observe(t0.Add(DefaultPressureTransitionPeriod-time.Nanosecond), Observations{})
	assert.Equal(t, []v1.NodeConditionType{v1.NodePIDPressure}, r.Conditions)
	r = e.Observe(t0.Add(DefaultPressureTransitionPeriod), Observations{})
	assert.Empty(t, r.Conditions)
}

func TestEvaluatorNoThresholds(t *testing.T) {
	e, err := NewEvaluator(nil, Options{})
	require.NoError(t, err)
	r := e.Observe(t0, Observations{MemoryAvailable: obs("0", "1", t0)})
	assert.Equal(t, Result{}, r)
	assert.Equal(t, State{}, e.State(), "state untouched")
}

func TestEvaluatorConflictingThresholds(t *testing.T) {
	// Two thresholds equal except MinReclaim are rejected (library rule);
	// upstream's merge treats them as one.
	_, err := NewEvaluator([]Threshold{
		{Signal: MemoryAvailable, Value: qv("1Gi"), MinReclaim: mr(qv("1Gi"))},
		{Signal: MemoryAvailable, Value: qv("1024Mi")},
	}, Options{})
	require.ErrorIs(t, err, ErrConflictingThresholds)
	assert.Contains(t, err.Error(), "memory.available<1Gi")

	_, err = NewEvaluator([]Threshold{
		{Signal: MemoryAvailable, Value: qv("1Gi"), MinReclaim: mr(qv("1Gi"))},
		{Signal: MemoryAvailable, Value: qv("1Gi"), MinReclaim: mr(qv("1024Mi"))},
		{Signal: MemoryAvailable, Value: qv("1Gi"), GracePeriod: time.Minute},
	}, Options{})
	require.NoError(t, err, "identical duplicates and different grace periods are fine")
}

func TestEvaluatorHardAndSoftSameSignal(t *testing.T) {
	// Hard and soft on one signal keep independent bookkeeping.
	ts := []Threshold{
		{Signal: MemoryAvailable, Value: qv("2Gi"), GracePeriod: time.Minute},
		{Signal: MemoryAvailable, Value: qv("1Gi")},
	}
	e, err := NewEvaluator(ts, Options{MaxPodGracePeriodSeconds: 30})
	require.NoError(t, err)
	r := e.Observe(t0, Observations{MemoryAvailable: obs("500Mi", "8Gi", t0)})
	assertThresholds(t, ts, r.Met)
	assertThresholds(t, ts[1:], r.Eligible)
	assert.False(t, r.Soft)

	r = e.Observe(t0.Add(time.Minute), Observations{MemoryAvailable: obs("500Mi", "8Gi", t0.Add(time.Minute))})
	assertThresholds(t, ts, r.Eligible)
	// Upstream may pick either; hard comes first here.
	assert.True(t, r.Threshold.Equal(ts[1]))
	assert.Equal(t, int64(1), r.GracePeriodOverride(&v1.Pod{}))
	st := e.State()
	assert.Len(t, st.FirstObserved, 2)
	at, ok := st.FirstObserved.Lookup(ts[0])
	assert.True(t, ok)
	assert.Equal(t, t0, at)
}

func TestEvaluatorNodeReclaim(t *testing.T) {
	// Single filesystem, nodefs.available<1Gi with 500Mi min-reclaim.
	ts, err := ParseConfig(Config{
		Hard:           map[string]string{"nodefs.available": "1Gi"},
		MinimumReclaim: map[string]string{"nodefs.available": "500Mi"},
	})
	require.NoError(t, err)
	ts, _, err = WithContainerFs(ts, Layout{})
	require.NoError(t, err)
	e, err := NewEvaluator(ts, Options{})
	require.NoError(t, err)

	nodefs := func(available string, at time.Time) Observations {
		return Observations{NodeFsAvailable: obs(available, "100Gi", at), ContainerFsAvailable: obs(available, "100Gi", at)}
	}
	r := e.Observe(t0, nodefs("500Mi", t0))
	require.True(t, r.Reclaim)
	assert.Equal(t, NodeFsAvailable, r.Signal)
	assert.Equal(t, v1.ResourceEphemeralStorage, r.Resource)
	assert.Equal(t, []ReclaimAction{DeleteAllUnusedContainers, DeleteUnusedImages}, NodeReclaimActions(r.Signal, Layout{}))

	assert.True(t, e.ReclaimSatisfied(nodefs("16Gi", t0)), "GC restored 16Gi: no pod evicted")
	assert.False(t, e.ReclaimSatisfied(nodefs("1.1G", t0)), "1.1G is below 1Gi + 500Mi: a pod is evicted")
	assert.False(t, e.ReclaimSatisfied(nodefs("500Mi", t0)), "GC freed nothing: a pod is evicted")
	assert.Equal(t, int64(1), r.GracePeriodOverride(&v1.Pod{}))

	split := Layout{DedicatedImageFs: true, SplitContainerImageFs: true}
	assert.Equal(t, []ReclaimAction{DeleteAllUnusedContainers}, NodeReclaimActions(NodeFsAvailable, split))
	assert.Equal(t, []ReclaimAction{DeleteUnusedImages}, NodeReclaimActions(ImageFsAvailable, split))

	// An unrelated soft threshold in its grace period makes reclaim fail.
	soft := append(e.Thresholds(), Threshold{Signal: MemoryAvailable, Value: qv("2Gi"), GracePeriod: time.Hour})
	e2, err := NewEvaluator(soft, Options{})
	require.NoError(t, err)
	o := nodefs("16Gi", t0)
	o[MemoryAvailable] = obs("1Gi", "8Gi", t0)
	assert.False(t, e2.ReclaimSatisfied(o))
}

func TestEvaluatorMultipleStarved(t *testing.T) {
	// Several starved resources: memory first, then hard before soft, then
	// configuration order (upstream: random among non-memory signals).
	ts := []Threshold{
		{Signal: NodeFsAvailable, Value: qv("1Gi"), GracePeriod: time.Second},
		{Signal: PIDAvailable, Value: qv("100")},
		{Signal: ImageFsAvailable, Value: qv("1Gi")},
	}
	e, err := NewEvaluator(ts, Options{})
	require.NoError(t, err)
	o := Observations{
		NodeFsAvailable:  obs("1", "10Gi", t0),
		PIDAvailable:     obs("1", "1000", t0),
		ImageFsAvailable: obs("1", "10Gi", t0),
	}
	r := e.Observe(t0, o)
	assertThresholds(t, ts, r.Met)
	assertThresholds(t, ts[1:], r.Eligible) // the soft nodefs threshold is in its grace period
	assert.Equal(t, PIDAvailable, r.Signal, "hard pid before hard imagefs: configuration order")
	o2 := Observations{
		NodeFsAvailable:  obs("1", "10Gi", t0.Add(time.Second)),
		PIDAvailable:     obs("1", "1000", t0.Add(time.Second)),
		ImageFsAvailable: obs("1", "10Gi", t0.Add(time.Second)),
	}
	r = e.Observe(t0.Add(time.Second), o2)
	assertThresholds(t, ts, r.Fresh)
	assert.Equal(t, PIDAvailable, r.Signal)
	assert.Equal(t, []v1.NodeConditionType{v1.NodeDiskPressure, v1.NodePIDPressure}, r.Conditions)
}
