package thresholds

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestMet(t *testing.T) {
	hard1Gi := Threshold{Signal: MemoryAvailable, Value: qv("1Gi")}
	hard1GiMR := Threshold{Signal: MemoryAvailable, Value: qv("1Gi"), MinReclaim: mr(qv("500Mi"))}
	mem20 := Threshold{Signal: MemoryAvailable, Value: pv(0.2), MinReclaim: mr(pv(0.05))}
	nodefs30 := Threshold{Signal: NodeFsAvailable, Value: pv(0.3)}
	tests := []struct {
		name    string
		t       Threshold
		o       Observation
		enforce bool
		want    bool
	}{
		{"below threshold", hard1Gi, obs("500Mi", "", t0), false, true},
		{"above threshold", hard1Gi, obs("2Gi", "", t0), false, false},
		{"equal is not met", hard1Gi, obs("1Gi", "", t0), false, false},
		{"enforced min-reclaim 1.05Gi", hard1GiMR, obs("1075Mi", "", t0), true, true},
		{"enforced min-reclaim 2Gi", hard1GiMR, obs("2Gi", "", t0), true, false},
		{"not enforced 1.05Gi", hard1GiMR, obs("1075Mi", "", t0), false, false},
		{"enforced min-reclaim boundary 1.5Gi", hard1GiMR, obs("1536Mi", "", t0), true, false},
		{"memory 20% of 1000Mi, 100Mi available", mem20, obs("100Mi", "1000Mi", t0), false, true},
		{"memory 20% of 1000Mi, 300Mi available", mem20, obs("300Mi", "1000Mi", t0), false, false},
		{"enforced 25%, 225Mi available", mem20, obs("225Mi", "1000Mi", t0), true, true},
		{"enforced 25%, 300Mi available", mem20, obs("300Mi", "1000Mi", t0), true, false},
		{"nodefs 30% of 1000Gi, 100Gi available", nodefs30, obs("100Gi", "1000Gi", t0), false, true},
		{"nodefs 30% of 1000Gi, 400Gi available", nodefs30, obs("400Gi", "1000Gi", t0), false, false},
		{"percentage of zero capacity", Threshold{Signal: PIDAvailable, Value: pv(0.5)}, obs("0", "0", t0), false, false},
		{"percentage of zero capacity, negative available", Threshold{Signal: PIDAvailable, Value: pv(0.5)}, obs("-1", "0", t0), false, true},
		{"nil capacity counts as zero", Threshold{Signal: NodeFsAvailable, Value: pv(0.5)}, obs("-1", "", t0), false, true},
		{"quantity wins over percentage", Threshold{Signal: MemoryAvailable, Value: Value{Quantity: q("1Gi"), Percentage: 0.01}}, obs("500Mi", "100Gi", t0), false, true},
		{"unknown signal is never met", Threshold{Signal: "mem.available", Value: qv("1Gi")}, obs("1", "", t0), false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Observations{tc.t.Signal: tc.o}
			got := Met([]Threshold{tc.t}, o, tc.enforce)
			assert.Equal(t, tc.want, len(got) == 1)
		})
	}
	t.Run("no observation", func(t *testing.T) {
		assert.Empty(t, Met([]Threshold{hard1Gi}, Observations{NodeFsAvailable: obs("1", "", t0)}, false))
		assert.Empty(t, Met([]Threshold{hard1Gi}, Observations{MemoryAvailable: {Capacity: q("1")}}, false), "nil Available counts as absent")
	})
	t.Run("nil Available counts as absent", func(t *testing.T) {
		// A percentage of zero capacity is met by any negative amount, and
		// a nil Available would read as zero if it were dereferenced as a
		// zero quantity: neither may happen.
		ts := []Threshold{hard1Gi, hard1GiMR, mem20, nodefs30, {Signal: PIDAvailable, Value: pv(0.5)}}
		o := Observations{
			MemoryAvailable: noAvailable("8Gi", t0),
			NodeFsAvailable: noAvailable("", time.Time{}),
			PIDAvailable:    noAvailable("0", t0),
		}
		for _, enforce := range []bool{false, true} {
			assert.Empty(t, Met(ts, o, enforce), "enforceMinReclaim=%v", enforce)
		}
	})
	t.Run("keeps configuration order", func(t *testing.T) {
		ts := []Threshold{nodefs30, hard1Gi, mem20}
		o := Observations{MemoryAvailable: obs("1", "1Gi", t0), NodeFsAvailable: obs("1", "1Gi", t0)}
		assertThresholds(t, ts, Met(ts, o, false))
	})
}

func TestResolve(t *testing.T) {
	// And the float32 rounding examples of percentages.
	tests := []struct {
		v        Value
		capacity string
		want     int64
	}{
		{pv(0.1), "1000Mi", 104857601},
		{pv(0.2), "1000Mi", 209715203},
		{pv(0.05), "10", 0},
		{pv(0.15), "7", 1},
		{pv(0.5), "0", 0},
		{qv("1Gi"), "0", 1 << 30},
		{pv(1.5), "9223372036854775807", 1<<63 - 1},
	}
	for _, tc := range tests {
		t.Run(tc.v.String()+" of "+tc.capacity, func(t *testing.T) {
			capacity := q(tc.capacity)
			got := tc.v.Resolve(capacity)
			assert.Equal(t, tc.want, got.Value())
			assert.Equal(t, q(tc.capacity), capacity, "capacity unchanged")
		})
	}
	zero := pv(0.3).Resolve(nil)
	assert.Equal(t, int64(0), zero.Value(), "nil capacity counts as zero")
}

func TestValueEqual(t *testing.T) {
	// Both argument orders.
	tests := []struct {
		a, b Value
		want bool
	}{
		{qv("123"), qv("123"), true},
		{qv("123"), qv("456"), false},
		{qv("123"), pv(0.1), false},
		{pv(0.1), pv(0.1), true},
		{pv(0.2), pv(0.1), false},
		{qv("1Gi"), qv("1073741824"), true},
		{Value{Quantity: q("1Gi"), Percentage: 0.5}, qv("1Gi"), true},
	}
	for _, tc := range tests {
		t.Run(tc.a.String()+" vs "+tc.b.String(), func(t *testing.T) {
			assert.Equal(t, tc.want, tc.a.Equal(tc.b))
			assert.Equal(t, tc.want, tc.b.Equal(tc.a))
		})
	}
}

func TestThresholdEquality(t *testing.T) {
	a := Threshold{Signal: MemoryAvailable, Value: qv("1Gi"), MinReclaim: mr(qv("100Mi"))}
	b := Threshold{Signal: MemoryAvailable, Value: qv("1024Mi"), MinReclaim: mr(qv("200Mi"))}
	c := Threshold{Signal: MemoryAvailable, Value: qv("1Gi")}
	assert.True(t, a.Equivalent(b))
	assert.False(t, a.Equal(b))
	assert.False(t, a.Equal(c))
	assert.True(t, a.Equal(Threshold{Signal: MemoryAvailable, Value: qv("1Gi"), MinReclaim: mr(qv("100Mi"))}))
	assert.False(t, a.Equivalent(Threshold{Signal: MemoryAvailable, Value: qv("1Gi"), GracePeriod: time.Second}))
	assert.False(t, a.Equivalent(Threshold{Signal: AllocatableMemoryAvailable, Value: qv("1Gi")}))
}

func TestMerge(t *testing.T) {
	a := Threshold{Signal: MemoryAvailable, Value: qv("1Gi")}
	aOtherMR := Threshold{Signal: MemoryAvailable, Value: qv("1Gi"), MinReclaim: mr(qv("1Gi"))}
	b := Threshold{Signal: NodeFsAvailable, Value: pv(0.1)}
	c := Threshold{Signal: MemoryAvailable, Value: qv("2Gi"), GracePeriod: time.Minute}
	assertThresholds(t, []Threshold{a, b, c}, Merge([]Threshold{a, b}, []Threshold{c, b, a}))
	assertThresholds(t, []Threshold{a}, Merge([]Threshold{a}, []Threshold{aOtherMR}))
	assertThresholds(t, []Threshold{a, a}, Merge([]Threshold{a, a}, nil))
	assertThresholds(t, []Threshold{c}, Merge(nil, []Threshold{c, c}))

	in := make([]Threshold, 1, 4)
	in[0] = a
	_ = Merge(in, []Threshold{b})
	assert.Empty(t, in[1:2][0].Signal, "Merge must not write into spare capacity of its input")
}

func TestFirstObservedAt(t *testing.T) {
	hard := Threshold{Signal: MemoryAvailable, Value: qv("1Gi")}
	soft := Threshold{Signal: MemoryAvailable, Value: qv("2Gi"), GracePeriod: time.Minute}
	earlier := t0.Add(-time.Minute)

	got := FirstObservedAt([]Threshold{hard}, nil, t0)
	assert.Equal(t, ThresholdTimes{{hard, t0}}, got, "no previous → now")

	got = FirstObservedAt([]Threshold{hard}, ThresholdTimes{{Threshold: Threshold{Signal: MemoryAvailable, Value: qv("1024Mi")}, Time: earlier}}, t0)
	assert.Equal(t, earlier, got[0].Time, "previous time kept (logical identity)")

	got = FirstObservedAt([]Threshold{soft}, ThresholdTimes{{hard, earlier}}, t0)
	assert.Equal(t, ThresholdTimes{{soft, t0}}, got, "thresholds absent this cycle are forgotten")

	withMR := hard
	withMR.MinReclaim = mr(qv("1Gi"))
	got = FirstObservedAt([]Threshold{withMR}, ThresholdTimes{{hard, earlier}}, t0)
	assert.Equal(t, t0, got[0].Time, "a different minimum reclaim is a different threshold")
}

func TestMetGracePeriod(t *testing.T) {
	hard := Threshold{Signal: MemoryAvailable, Value: qv("1Gi")}
	soft := Threshold{Signal: MemoryAvailable, Value: qv("2Gi"), GracePeriod: time.Minute}
	tests := []struct {
		name string
		in   ThresholdTimes
		want []Threshold
	}{
		{"hard observed now", ThresholdTimes{{hard, t0}}, []Threshold{hard}},
		{"soft observed now", ThresholdTimes{{soft, t0}}, nil},
		{"soft observed 2 min ago", ThresholdTimes{{soft, t0.Add(-2 * time.Minute)}}, []Threshold{soft}},
		{"soft observed exactly 1 min ago", ThresholdTimes{{soft, t0.Add(-time.Minute)}}, []Threshold{soft}},
		{"soft observed 59 s ago", ThresholdTimes{{soft, t0.Add(-59 * time.Second)}}, nil},
		{"order kept", ThresholdTimes{{soft, t0.Add(-time.Hour)}, {hard, t0}}, []Threshold{soft, hard}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertThresholds(t, tc.want, MetGracePeriod(tc.in, t0))
		})
	}
}

func TestNodeConditions(t *testing.T) {
	th := func(sigs ...Signal) []Threshold {
		var out []Threshold
		for _, s := range sigs {
			out = append(out, Threshold{Signal: s, Value: qv("1")})
		}
		return out
	}
	tests := []struct {
		name string
		in   []Threshold
		want []v1.NodeConditionType
	}{
		{"none", nil, nil},
		{"memory", th(MemoryAvailable), []v1.NodeConditionType{v1.NodeMemoryPressure}},
		{"disk once", th(NodeFsAvailable, ImageFsInodesFree, ContainerFsAvailable), []v1.NodeConditionType{v1.NodeDiskPressure}},
		{"pid", th(PIDAvailable), []v1.NodeConditionType{v1.NodePIDPressure}},
		{"first appearance order", th(PIDAvailable, AllocatableMemoryAvailable, NodeFsInodesFree, MemoryAvailable), []v1.NodeConditionType{v1.NodePIDPressure, v1.NodeMemoryPressure, v1.NodeDiskPressure}},
		{"unknown signal", th("mem.available"), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, NodeConditions(tc.in))
		})
	}
}

func TestNodeConditionsLastObservedAt(t *testing.T) {
	old := t0.Add(-time.Minute)
	mem := []v1.NodeConditionType{v1.NodeMemoryPressure}
	assert.Equal(t, ConditionTimes{v1.NodeMemoryPressure: t0}, NodeConditionsLastObservedAt(mem, nil, t0), "new → now")
	prev := ConditionTimes{v1.NodeMemoryPressure: old}
	assert.Equal(t, ConditionTimes{v1.NodeMemoryPressure: t0}, NodeConditionsLastObservedAt(mem, prev, t0), "re-observed → now")
	assert.Equal(t, ConditionTimes{v1.NodeMemoryPressure: old}, NodeConditionsLastObservedAt(nil, prev, t0), "not re-observed → old time")
	assert.Equal(t, ConditionTimes{v1.NodeMemoryPressure: old}, prev, "prev unchanged")
}

func TestNodeConditionsObservedSince(t *testing.T) {
	minuteAgo := ConditionTimes{v1.NodeMemoryPressure: t0.Add(-time.Minute)}
	assert.Equal(t, []v1.NodeConditionType{v1.NodeMemoryPressure}, NodeConditionsObservedSince(minuteAgo, 2*time.Minute, t0))
	assert.Empty(t, NodeConditionsObservedSince(minuteAgo, 30*time.Second, t0))
	assert.Empty(t, NodeConditionsObservedSince(ConditionTimes{v1.NodeMemoryPressure: t0}, 0, t0))
	assert.Empty(t, NodeConditionsObservedSince(minuteAgo, time.Minute, t0), "strictly less than the period")

	all := ConditionTimes{"Custom": t0, v1.NodePIDPressure: t0, v1.NodeDiskPressure: t0, v1.NodeMemoryPressure: t0, "Another": t0}
	// Upstream returns these in map order.
	assert.Equal(t, []v1.NodeConditionType{v1.NodeMemoryPressure, v1.NodeDiskPressure, v1.NodePIDPressure, "Another", "Custom"},
		NodeConditionsObservedSince(all, time.Second, t0))
}

func TestUpdatedStats(t *testing.T) {
	th := []Threshold{{Signal: MemoryAvailable, Value: qv("1Gi")}}
	at := func(tm time.Time) Observations { return Observations{MemoryAvailable: obs("1", "", tm)} }
	nilAt := func(tm time.Time) Observations { return Observations{MemoryAvailable: noAvailable("8Gi", tm)} }
	tests := []struct {
		name      string
		obs, last Observations
		keep      bool
	}{
		{"zero time kept", at(time.Time{}), at(t0), true},
		{"no previous observation kept", at(t0), nil, true},
		{"previous newer dropped", at(t0), at(t0.Add(time.Second)), false},
		{"same time dropped", at(t0), at(t0), false},
		{"newer kept", at(t0.Add(time.Second)), at(t0), true},
		{"signal unobserved dropped", Observations{}, nil, false},
		// A nil Available counts as absent in both maps. Upstream's
		// makeSignalObservations never records such an observation, so
		// thresholdsUpdatedStats finds no previous observation and keeps
		// the threshold.
		{"previous nil Available is no previous observation, kept", at(t0), nilAt(t0.Add(time.Hour)), true},
		{"previous nil Available, same time, kept", at(t0), nilAt(t0), true},
		{"previous nil Available, zero times, kept", at(time.Time{}), nilAt(time.Time{}), true},
		{"current nil Available is unobserved, dropped", nilAt(t0.Add(time.Second)), at(t0), false},
		{"current nil Available, no previous, dropped", nilAt(time.Time{}), nil, false},
		{"both nil Available dropped", nilAt(t0.Add(time.Second)), nilAt(t0), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.keep, len(UpdatedStats(th, tc.obs, tc.last)) == 1)
		})
	}
}

func TestStarvedResources(t *testing.T) {
	th := func(sig Signal, grace time.Duration) Threshold {
		return Threshold{Signal: sig, Value: qv("1"), GracePeriod: grace}
	}
	tests := []struct {
		name string
		in   []Threshold
		want Threshold
		res  v1.ResourceName
		ok   bool
	}{
		{"memory first", []Threshold{th(NodeFsAvailable, 0), th(PIDAvailable, 0), th(MemoryAvailable, 0)}, th(MemoryAvailable, 0), v1.ResourceMemory, true},
		{"allocatable memory first", []Threshold{th(NodeFsAvailable, 0), th(PIDAvailable, 0), th(AllocatableMemoryAvailable, 0)}, th(AllocatableMemoryAvailable, 0), v1.ResourceMemory, true},
		// Upstream picks either at random (map order + unstable sort).
		{"hard before soft (library rule)", []Threshold{th(MemoryAvailable, time.Minute), th(MemoryAvailable, 0)}, th(MemoryAvailable, 0), v1.ResourceMemory, true},
		{"memory.available before allocatable (library rule)", []Threshold{th(AllocatableMemoryAvailable, 0), th(MemoryAvailable, time.Minute)}, th(MemoryAvailable, time.Minute), v1.ResourceMemory, true},
		// Upstream keeps the random input order among these.
		{"configuration order among disk and pid (library rule)", []Threshold{th(PIDAvailable, 0), th(NodeFsAvailable, 0)}, th(PIDAvailable, 0), ResourcePIDs, true},
		{"hard before soft among other signals (library rule)", []Threshold{th(NodeFsAvailable, time.Minute), th(ImageFsInodesFree, 0)}, th(ImageFsInodesFree, 0), ResourceInodes, true},
		{"unknown signal only", []Threshold{th("mem.available", 0)}, Threshold{}, "", false},
		{"unknown signal last", []Threshold{th("mem.available", 0), th(ContainerFsAvailable, time.Minute)}, th(ContainerFsAvailable, time.Minute), v1.ResourceEphemeralStorage, true},
		{"none", nil, Threshold{}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := describeAll(tc.in)
			got, res, ok := StarvedResources(tc.in)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.res, res)
			assert.True(t, tc.want.Equal(got), "want %s, got %s", describe(tc.want), describe(got))
			assert.Equal(t, before, describeAll(tc.in), "input order unchanged")
		})
	}
}

func TestByEvictionPriority(t *testing.T) {
	th := func(sig Signal, grace time.Duration) Threshold {
		return Threshold{Signal: sig, Value: qv("1"), GracePeriod: grace}
	}
	in := []Threshold{
		th("foo", 0), th(NodeFsAvailable, time.Minute), th(AllocatableMemoryAvailable, 0),
		th(PIDAvailable, 0), th(MemoryAvailable, time.Minute), th(NodeFsInodesFree, 0), th(MemoryAvailable, 0),
	}
	want := []Threshold{
		th(MemoryAvailable, 0), th(MemoryAvailable, time.Minute), th(AllocatableMemoryAvailable, 0),
		th(PIDAvailable, 0), th(NodeFsInodesFree, 0), th(NodeFsAvailable, time.Minute), th("foo", 0),
	}
	assertThresholds(t, want, ByEvictionPriority(in))
}

func TestKillGracePeriod(t *testing.T) {
	soft := Threshold{Signal: MemoryAvailable, Value: qv("2Gi"), GracePeriod: time.Minute}
	hard := Threshold{Signal: MemoryAvailable, Value: qv("1Gi")}
	tests := []struct {
		name     string
		t        Threshold
		max      int64
		podGrace *int64
		want     int64
	}{
		{"soft, pod unset", soft, 5, nil, 5},
		{"soft, pod 3", soft, 5, ptr.To[int64](3), 3},
		{"soft, pod 30", soft, 5, ptr.To[int64](30), 5},
		{"soft, max -1 passed on", soft, -1, nil, -1},
		{"soft, max -1 with pod 30 still -1", soft, -1, ptr.To[int64](30), -1},
		{"soft, max 0", soft, 0, nil, 0},
		{"hard", hard, 5, ptr.To[int64](30), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, KillGracePeriod(tc.t, tc.max, tc.podGrace))
			pod := &v1.Pod{Spec: v1.PodSpec{TerminationGracePeriodSeconds: tc.podGrace}}
			r := Result{Threshold: tc.t, MaxPodGracePeriodSeconds: tc.max}
			assert.Equal(t, tc.want, r.GracePeriodOverride(pod))
		})
	}
	assert.Equal(t, int64(7), Result{Threshold: soft, MaxPodGracePeriodSeconds: 7}.GracePeriodOverride(nil))
}

func TestMakeObservations(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	i := func(v int64) *int64 { return &v }
	s := Summary{
		Memory:       &MemoryStats{Time: t0, AvailableBytes: u(1 << 30), WorkingSetBytes: u(1 << 30)},
		PodsMemory:   &MemoryStats{Time: t0, AvailableBytes: u(100), WorkingSetBytes: u(300)},
		CommitMemory: &MemoryStats{Time: t0, AvailableBytes: u(5), UsageBytes: u(15)},
		NodeFs:       &FsStats{Time: t0, AvailableBytes: u(10), InodesFree: u(7), Inodes: u(9)},
		ImageFs:      &FsStats{Time: t0, AvailableBytes: u(20), CapacityBytes: u(40)},
		Rlimit:       &RlimitStats{Time: t0, MaxPID: i(255816), NumOfRunningProcesses: i(1000)},
	}
	type ac struct{ available, capacity int64 }
	view := func(o Observations) map[Signal]ac {
		out := map[Signal]ac{}
		for k, v := range o {
			out[k] = ac{v.Available.Value(), v.Capacity.Value()}
			assert.Equal(t, t0, v.Time)
		}
		return out
	}
	assert.Equal(t, map[Signal]ac{
		MemoryAvailable:            {1 << 30, 2 << 30},
		AllocatableMemoryAvailable: {100, 400},
		NodeFsInodesFree:           {7, 9},
		ImageFsAvailable:           {20, 40},
		PIDAvailable:               {254816, 255816},
	}, view(MakeObservations(s, Linux)), "fs missing CapacityBytes → no nodefs.available")
	assert.Equal(t, map[Signal]ac{
		MemoryAvailable:            {5, 20},
		AllocatableMemoryAvailable: {100, 400},
		NodeFsInodesFree:           {7, 9},
		ImageFsAvailable:           {20, 40},
		PIDAvailable:               {254816, 255816},
	}, view(MakeObservations(s, Windows)), "Windows uses commit memory")

	neg := MakeObservations(Summary{Rlimit: &RlimitStats{MaxPID: i(10), NumOfRunningProcesses: i(12)}}, Linux)
	assert.Equal(t, int64(-2), neg[PIDAvailable].Available.Value(), "pid.available may be negative")
	assert.Empty(t, MakeObservations(Summary{}, Linux))
	assert.Empty(t, MakeObservations(Summary{ContainerFs: &FsStats{}, Memory: &MemoryStats{AvailableBytes: u(1)}}, Linux))
}

func TestSignals(t *testing.T) {
	type info struct {
		res  v1.ResourceName
		cond v1.NodeConditionType
	}
	want := map[Signal]info{
		MemoryAvailable:            {v1.ResourceMemory, v1.NodeMemoryPressure},
		AllocatableMemoryAvailable: {v1.ResourceMemory, v1.NodeMemoryPressure},
		NodeFsAvailable:            {v1.ResourceEphemeralStorage, v1.NodeDiskPressure},
		NodeFsInodesFree:           {ResourceInodes, v1.NodeDiskPressure},
		ImageFsAvailable:           {v1.ResourceEphemeralStorage, v1.NodeDiskPressure},
		ImageFsInodesFree:          {ResourceInodes, v1.NodeDiskPressure},
		ContainerFsAvailable:       {v1.ResourceEphemeralStorage, v1.NodeDiskPressure},
		ContainerFsInodesFree:      {ResourceInodes, v1.NodeDiskPressure},
		PIDAvailable:               {ResourcePIDs, v1.NodePIDPressure},
	}
	require.Len(t, Signals(), 9)
	for _, s := range Signals() {
		res, ok := s.Resource()
		require.True(t, ok)
		cond, ok := s.NodeCondition()
		require.True(t, ok)
		assert.Equal(t, want[s], info{res, cond}, s)
		assert.True(t, s.Valid())
		assert.True(t, s.ObservedOn(Linux))
	}
	for _, s := range []Signal{"", "Memory.available", "mem.available", "memory.available "} {
		assert.False(t, s.Valid(), s)
		_, ok := s.NodeCondition()
		assert.False(t, ok)
		assert.False(t, s.ObservedOn(Linux))
	}
	assert.False(t, PIDAvailable.ObservedOn(Windows))
	assert.False(t, PIDAvailable.ObservedOn("darwin"))
	assert.False(t, NodeFsInodesFree.ObservedOn(Windows))
	assert.True(t, MemoryAvailable.ObservedOn(Windows))
	assert.True(t, PIDAvailable.ObservedOn(""))
}

func TestStrings(t *testing.T) {
	tests := []struct {
		t    Threshold
		want string
	}{
		{Threshold{Signal: MemoryAvailable, Value: qv("100Mi")}, "memory.available<100Mi"},
		{Threshold{Signal: NodeFsAvailable, Value: pv(0.1)}, "nodefs.available<10%"},
		{Threshold{Signal: NodeFsAvailable, Value: pv(0.105)}, "nodefs.available<10.5%"},
		{Threshold{Signal: NodeFsAvailable, Value: pv(0)}, "nodefs.available<0.0%"},
		{Threshold{Signal: NodeFsAvailable, Value: pv(1)}, "nodefs.available<100.0%"},
		{Threshold{Signal: NodeFsAvailable, Value: pv(1.5)}, "nodefs.available<150%"},
		{Threshold{Signal: PIDAvailable, Value: qv("1e3")}, "pid.available<1e3"},
		{Threshold{Signal: PIDAvailable, Value: qv("1000")}, "pid.available<1k"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.t.String())
		})
	}
	v := q("1024Mi")
	_ = Value{Quantity: v}.String()
	assert.Equal(t, *q("1024Mi"), *v, "String must not cache text in the caller's quantity")
}
