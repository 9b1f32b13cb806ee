package nodepressure

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

const mi = 1 << 20

var start = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func parse(t *testing.T, c thresholds.Config) []thresholds.Threshold {
	t.Helper()
	ts, err := thresholds.ParseConfig(c)
	require.NoError(t, err)
	return ts
}

func newManager(t *testing.T, cfg Config) (*Manager, *testingclock.FakeClock) {
	t.Helper()
	clk := testingclock.NewFakeClock(start)
	m, err := NewManager(cfg)
	require.NoError(t, err)
	return m, clk
}

func pod(name string, priority int32, memRequest string) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name)},
		Spec:       v1.PodSpec{Priority: &priority, Containers: []v1.Container{{Name: "c"}}},
	}
	if memRequest != "" {
		p.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceMemory: resource.MustParse(memRequest)}
	}
	return p
}

func u64(v uint64) *uint64 { return &v }

// memory is a summary with availableMi of 8Gi memory available at at.
func memory(availableMi uint64, at time.Time) thresholds.Summary {
	return thresholds.Summary{Memory: &thresholds.MemoryStats{Time: at, AvailableBytes: u64(availableMi * mi), WorkingSetBytes: u64((8192 - availableMi) * mi)}}
}

// nodefs is a summary with availableGi of a 100Gi node filesystem available.
func nodefs(availableGi uint64, at time.Time) thresholds.Summary {
	return thresholds.Summary{NodeFs: &thresholds.FsStats{Time: at, AvailableBytes: u64(availableGi << 30), CapacityBytes: u64(100 << 30),
		InodesFree: u64(1e6), Inodes: u64(1e6)}}
}

func TestSynchronizeSoftThenHard(t *testing.T) {
	ts := parse(t, thresholds.Config{
		Hard: map[string]string{"memory.available": "500Mi"}, Soft: map[string]string{"memory.available": "1Gi"},
		SoftGracePeriod: map[string]string{"memory.available": "1m"}, EnforceNodeAllocatable: []string{},
	})
	m, clk := newManager(t, Config{Thresholds: ts, MaxPodGracePeriodSeconds: 30})
	long := int64(600)
	low, high := pod("low", 0, "100Mi"), pod("high", 1000, "100Mi")
	low.Spec.TerminationGracePeriodSeconds = &long
	pods := []*v1.Pod{high, low}
	usage := ranking.UsageByUID(map[types.UID]ranking.Usage{"low": {MemoryWorkingSet: 50 * mi}, "high": {MemoryWorkingSet: 900 * mi}})

	steps := []struct {
		name       string
		step       time.Duration
		availMi    uint64
		conditions []v1.NodeConditionType
		victim     string
		grace      int64
	}{
		{"calm", 0, 2048, nil, "", 0},
		{"soft threshold met: condition at once, no eviction in its grace period", 10 * time.Second, 800, []v1.NodeConditionType{v1.NodeMemoryPressure}, "", 0},
		{"grace period still running", 40 * time.Second, 800, []v1.NodeConditionType{v1.NodeMemoryPressure}, "", 0},
		{"grace period over: the above-request pod, grace capped by the maximum", 20 * time.Second, 800, []v1.NodeConditionType{v1.NodeMemoryPressure}, "high", 30},
		{"hard threshold: one second", 10 * time.Second, 400, []v1.NodeConditionType{v1.NodeMemoryPressure}, "high", 1},
		{"pressure gone, condition kept for the transition period", 10 * time.Second, 4096, []v1.NodeConditionType{v1.NodeMemoryPressure}, "", 0},
		{"transition period over", 5 * time.Minute, 4096, nil, "", 0},
	}
	for _, s := range steps {
		clk.Step(s.step)
		before := slices.Clone(pods)
		r := m.Synchronize(clk.Now(), Stats{Node: memory(s.availMi, clk.Now()), Pods: usage}, pods)
		assert.Equal(t, before, pods, "%s: active pods untouched", s.name)
		assert.Equal(t, s.conditions, r.Conditions, s.name)
		assert.Equal(t, s.conditions, m.Conditions(), s.name)
		if s.victim == "" {
			assert.Nil(t, r.Victim, s.name)
			continue
		}
		require.NotNil(t, r.Victim, s.name)
		assert.Equal(t, s.victim, r.Victim.Pod.Name, s.name)
		assert.Equal(t, s.grace, r.Victim.GracePeriodSeconds, s.name)
		assert.Equal(t, []string{"high", "low"}, names(r.Ranked), s.name)
		assert.Equal(t, v1.PodFailed, r.Victim.Status.Phase)
		assert.Equal(t, ranking.Reason, r.Victim.Status.Reason)
		assert.Equal(t, r.Victim.Message, r.Victim.Status.Message)
		assert.Equal(t, "memory", r.Victim.Annotations[ranking.StarvedResourceKey])
		assert.Empty(t, r.NodeReclaim, "memory has no node-level reclaim")
	}
}

func TestSynchronizeSkipsCriticalPods(t *testing.T) {
	m, clk := newManager(t, Config{Thresholds: parse(t, thresholds.Config{Hard: map[string]string{"memory.available": "1Gi"}})})
	static := pod("static", 0, "")
	static.Annotations = map[string]string{ranking.ConfigSourceAnnotationKey: "file"}
	critical := pod("critical", ranking.SystemCriticalPriority, "")
	normal := pod("normal", 100, "")
	usage := ranking.UsageByUID(map[types.UID]ranking.Usage{"static": {MemoryWorkingSet: mi}, "critical": {MemoryWorkingSet: mi}, "normal": {MemoryWorkingSet: mi}})
	r := m.Synchronize(clk.Now(), Stats{Node: memory(100, clk.Now()), Pods: usage}, []*v1.Pod{normal, critical, static})
	assert.Equal(t, []string{"static", "normal", "critical"}, names(r.Ranked))
	require.NotNil(t, r.Victim)
	assert.Equal(t, "normal", r.Victim.Pod.Name)

	clk.Step(10 * time.Second)
	r = m.Synchronize(clk.Now(), Stats{Node: memory(100, clk.Now()), Pods: usage}, []*v1.Pod{critical, static})
	assert.Len(t, r.Ranked, 2)
	assert.Nil(t, r.Victim, "only critical pods left")
}

func TestSynchronizeLocalStorageFirst(t *testing.T) {
	m, clk := newManager(t, Config{Thresholds: parse(t, thresholds.Config{Hard: map[string]string{"memory.available": "1Gi"}})})
	scratch := pod("scratch", 1000, "")
	limit := resource.MustParse("1Gi")
	scratch.Spec.Volumes = []v1.Volume{{Name: "tmp", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{SizeLimit: &limit}}}}
	other := pod("other", 0, "")
	usage := ranking.UsageByUID(map[types.UID]ranking.Usage{
		"scratch": {Volumes: []ranking.VolumeUsage{{Name: "tmp", FSUsage: ranking.FSUsage{UsedBytes: 2 << 30}}}},
		"other":   {MemoryWorkingSet: 4096 * mi},
	})
	stats := Stats{Node: memory(100, clk.Now()), Pods: usage}
	r := m.Synchronize(clk.Now(), stats, []*v1.Pod{other, scratch})
	require.Len(t, r.LocalStorage, 1)
	e := r.LocalStorage[0]
	assert.Equal(t, "scratch", e.Pod.Name)
	assert.Equal(t, ranking.LocalStorageGracePeriodSeconds, e.GracePeriodSeconds)
	assert.Equal(t, `Usage of EmptyDir volume "tmp" exceeds the limit "1Gi". `, e.Message)
	assert.Nil(t, e.Annotations)
	assert.Empty(t, e.Status.Conditions, "no DisruptionTarget for a local-storage eviction")
	assert.Nil(t, r.Victim, "a cycle with local-storage evictions evicts nothing for pressure")
	assert.Nil(t, r.Ranked)
	assert.True(t, r.Evaluation.Reclaim, "memory is starved all the same")
	assert.Equal(t, []v1.NodeConditionType{v1.NodeMemoryPressure}, r.Conditions)

	m, clk = newManager(t, Config{Thresholds: parse(t, thresholds.Config{Hard: map[string]string{"memory.available": "1Gi"}}), DisableLocalStorageCapacityIsolation: true})
	r = m.Synchronize(clk.Now(), Stats{Node: memory(100, clk.Now()), Pods: usage}, []*v1.Pod{other, scratch})
	assert.Empty(t, r.LocalStorage, "local-storage isolation off")
	require.NotNil(t, r.Victim)
	assert.Equal(t, "other", r.Victim.Pod.Name)
}

func TestSynchronizeNodeReclaim(t *testing.T) {
	m, clk := newManager(t, Config{Thresholds: parse(t, thresholds.Config{Hard: map[string]string{"nodefs.available": "10%"}})})
	p := pod("p", 0, "")
	usage := ranking.UsageByUID(map[types.UID]ranking.Usage{"p": {Containers: []ranking.ContainerUsage{{Name: "c", Rootfs: ranking.FSUsage{UsedBytes: 1 << 30}}}}})
	r := m.Synchronize(clk.Now(), Stats{Node: nodefs(5, clk.Now()), Pods: usage}, []*v1.Pod{p})
	assert.Equal(t, []thresholds.ReclaimAction{thresholds.DeleteAllUnusedContainers, thresholds.DeleteUnusedImages}, r.NodeReclaim)
	assert.Equal(t, []v1.NodeConditionType{v1.NodeDiskPressure}, r.Conditions)
	require.NotNil(t, r.Victim, "the victim the kubelet evicts if garbage collection is not enough")
	assert.Equal(t, v1.ResourceEphemeralStorage, r.Evaluation.Resource)
	assert.True(t, m.ReclaimSatisfied(nodefs(50, clk.Now())), "collection freed enough")
	assert.False(t, m.ReclaimSatisfied(nodefs(8, clk.Now())), "still below 10%")

	// With a dedicated image filesystem, nodefs has no node-level reclaim.
	m, clk = newManager(t, Config{Thresholds: parse(t, thresholds.Config{Hard: map[string]string{"nodefs.available": "10%"}}), Layout: thresholds.Layout{DedicatedImageFs: true}})
	r = m.Synchronize(clk.Now(), Stats{Node: nodefs(5, clk.Now()), Pods: usage}, []*v1.Pod{p})
	assert.Empty(t, r.NodeReclaim)
	require.NotNil(t, r.Victim)
}

// TestSynchronizeSameStatsTwice: the kubelet does not evict twice on statistics that did not
// change; stats without a time always count as new.
func TestSynchronizeSameStatsTwice(t *testing.T) {
	m, clk := newManager(t, Config{Thresholds: parse(t, thresholds.Config{Hard: map[string]string{"memory.available": "1Gi"}})})
	pods := []*v1.Pod{pod("a", 0, ""), pod("b", 0, "")}
	at := clk.Now()
	r := m.Synchronize(clk.Now(), Stats{Node: memory(100, at)}, pods)
	require.NotNil(t, r.Victim)
	clk.Step(10 * time.Second)
	r = m.Synchronize(clk.Now(), Stats{Node: memory(100, at)}, pods)
	assert.Nil(t, r.Victim, "stale statistics")
	assert.Equal(t, []v1.NodeConditionType{v1.NodeMemoryPressure}, r.Conditions, "the condition stays")
	r = m.Synchronize(clk.Now(), Stats{Node: memory(100, time.Time{})}, pods)
	assert.NotNil(t, r.Victim, "statistics without a time")
}

func TestFirstCycleWarnings(t *testing.T) {
	ts := parse(t, thresholds.Config{Hard: map[string]string{"nodefs.available": "10%", "containerfs.available": "1Gi"}})
	m, clk := newManager(t, Config{Thresholds: ts})
	r := m.Synchronize(clk.Now(), Stats{Node: nodefs(50, clk.Now())}, nil)
	require.Len(t, r.Warnings, 1)
	assert.True(t, errors.Is(r.Warnings[0], thresholds.ErrContainerFsOverride))
	assert.Contains(t, r.Warnings[0].Error(), "containerfs.available<1Gi")
	r = m.Synchronize(clk.Now(), Stats{Node: nodefs(50, clk.Now())}, nil)
	assert.Empty(t, r.Warnings, "only the first cycle reports them")
	assert.True(t, slices.ContainsFunc(m.Thresholds(), func(t thresholds.Threshold) bool {
		return t.Signal == thresholds.ContainerFsAvailable && t.Value.Percentage == 0.1
	}), "containerfs inherits nodefs on a single filesystem")
}

// TestFirstCycleUsesContainerFs names a deliberate difference: upstream's first synchronize
// evaluates the thresholds as configured, without the containerfs thresholds it derives in
// that very cycle (a shadowed variable), so a containerfs signal below its derived threshold
// sets no condition until the second cycle. A Manager uses the derived thresholds from the
// first cycle on.
func TestFirstCycleUsesContainerFs(t *testing.T) {
	m, clk := newManager(t, Config{Thresholds: parse(t, thresholds.Config{Hard: map[string]string{"nodefs.available": "10%"}})})
	s := nodefs(50, clk.Now())
	s.ContainerFs = &thresholds.FsStats{Time: clk.Now(), AvailableBytes: u64(1 << 30), CapacityBytes: u64(100 << 30)}
	r := m.Synchronize(clk.Now(), Stats{Node: s}, nil)
	assert.Equal(t, []v1.NodeConditionType{v1.NodeDiskPressure}, r.Conditions, "upstream: none in the first cycle")
	assert.Equal(t, thresholds.ContainerFsAvailable, r.Evaluation.Signal)
}

func TestNewManagerErrors(t *testing.T) {
	_, err := NewManager(Config{Layout: thresholds.Layout{DedicatedImageFs: true, SplitContainerImageFs: true, DisableSeparateDiskGC: true}})
	require.ErrorIs(t, err, thresholds.ErrSplitFsDisabled)
	assert.True(t, strings.HasPrefix(err.Error(), "nodepressure: Config.Layout: thresholds: "), err.Error())

	q1, q2 := resource.MustParse("1Gi"), resource.MustParse("2Gi")
	v := thresholds.Value{Quantity: &q1}
	_, err = NewManager(Config{Thresholds: []thresholds.Threshold{
		{Signal: thresholds.MemoryAvailable, Value: v, MinReclaim: &thresholds.Value{Quantity: &q1}},
		{Signal: thresholds.MemoryAvailable, Value: v, MinReclaim: &thresholds.Value{Quantity: &q2}},
	}})
	require.ErrorIs(t, err, thresholds.ErrConflictingThresholds)
	assert.True(t, strings.HasPrefix(err.Error(), "nodepressure: Config.Thresholds: thresholds: \""), err.Error())
	assert.Contains(t, err.Error(), `"memory.available<1Gi"`, "names the threshold")
}

func TestNoThresholdsNoLocalStorage(t *testing.T) {
	m, clk := newManager(t, Config{Thresholds: []thresholds.Threshold{}, DisableLocalStorageCapacityIsolation: true})
	r := m.Synchronize(clk.Now(), Stats{Node: memory(1, clk.Now())}, []*v1.Pod{pod("a", 0, "")})
	assert.Equal(t, Result{Time: start}, r, "nothing to do, as upstream returns at once")
}

func names(pods []*v1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}
