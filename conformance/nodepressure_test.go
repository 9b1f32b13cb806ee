package conformance_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"k8s.io/kubernetes/pkg/kubelet/eviction"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/nodepressure"
	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

// upstreamManager is the kubelet's eviction manager driven as its own
// eviction_manager_test.go drives it: a fake summary provider, a fake clock,
// a fake kill function, fake disk info and fake garbage collectors that swap
// in the summary read after collection.
type upstreamManager struct {
	m        *eviction.ManagerImpl
	clock    *testingclock.FakeClock
	provider *fakeSummaryProvider
	disk     fakeDiskInfo
	gc       *fakeGC
	killed   []upstreamKill
}

type upstreamKill struct {
	pod    *v1.Pod
	grace  int64
	status v1.PodStatus
}

type fakeSummaryProvider struct{ result *statsapi.Summary }

func (f *fakeSummaryProvider) Get(context.Context, bool) (*statsapi.Summary, error) {
	return f.result, nil
}

func (f *fakeSummaryProvider) GetCPUAndMemoryStats(context.Context) (*statsapi.Summary, error) {
	return f.result, nil
}

type fakeDiskInfo struct{ imageFs, containerFs bool }

func (d fakeDiskInfo) HasDedicatedImageFs(context.Context) (bool, error) { return d.imageFs, nil }
func (d fakeDiskInfo) HasDedicatedContainerFs(context.Context) (bool, error) {
	return d.containerFs, nil
}

// fakeGC records the collections and makes the provider return after.
type fakeGC struct {
	provider *fakeSummaryProvider
	after    *statsapi.Summary
	ran      []thresholds.ReclaimAction
}

func (g *fakeGC) DeleteUnusedImages(context.Context) error {
	g.ran = append(g.ran, thresholds.DeleteUnusedImages)
	g.provider.result = g.after
	return nil
}

func (g *fakeGC) DeleteAllUnusedContainers(context.Context) error {
	g.ran = append(g.ran, thresholds.DeleteAllUnusedContainers)
	g.provider.result = g.after
	return nil
}

func newUpstreamManager(ts []thresholds.Threshold, layout thresholds.Layout, period time.Duration, maxGrace int64, start time.Time) *upstreamManager {
	u := &upstreamManager{clock: testingclock.NewFakeClock(start), provider: &fakeSummaryProvider{},
		disk: fakeDiskInfo{layout.DedicatedImageFs, layout.SplitContainerImageFs}}
	u.gc = &fakeGC{provider: u.provider}
	kill := func(pod *v1.Pod, _ bool, grace *int64, fn func(*v1.PodStatus)) error {
		st := pod.Status.DeepCopy()
		fn(st)
		u.killed = append(u.killed, upstreamKill{pod: pod, grace: *grace, status: *st})
		return nil
	}
	cfg := eviction.Config{Thresholds: toUpstream(ts), PressureTransitionPeriod: period, MaxPodGracePeriodSeconds: maxGrace}
	m, _ := eviction.NewManager(u.provider, cfg, kill, u.gc, u.gc, &record.FakeRecorder{},
		&v1.ObjectReference{Kind: "Node", Name: "node"}, u.clock, true)
	u.m = m.(*eviction.ManagerImpl)
	return u
}

// pressureCycle is one cycle of a generated sequence.
type pressureCycle struct {
	step                     time.Duration
	stale                    bool // the stats carry the previous cycle's time
	memoryMi, nodefsGi, pids uint64
	inodesFree               uint64
	gcFrees                  bool // garbage collection brings nodefs back to 80Gi free
}

// pressureScenario is a generated sequence: thresholds on memory and on one
// other signal (hard or soft, with or without minimum reclaim), a layout, a
// transition period, pods with usage, and cycles.
type pressureScenario struct {
	thresholds []thresholds.Threshold
	layout     thresholds.Layout
	period     time.Duration
	maxGrace   int64
	problem    rankingProblem
	cycles     []pressureCycle
}

func (s pressureScenario) GoString() string {
	return fmt.Sprintf("thresholds %q layout %+v period %v maxGrace %d\ncycles %+v\n%#v",
		ourKeys(s.thresholds, false), s.layout, s.period, s.maxGrace, s.cycles, s.problem)
}

// pressureScenarios draws scenarios where upstream's answer is unique: at
// most one threshold per signal, and besides memory (which upstream always
// reclaims first) one disk or PID signal, so upstream's map order and
// unstable sort never pick between starved resources; the first cycle is
// calm (upstream evaluates it without the containerfs thresholds, a
// documented difference).
func pressureScenarios() *rapid.Generator[pressureScenario] {
	return rapid.Custom(func(t *rapid.T) pressureScenario {
		var s pressureScenario
		threshold := func(sig thresholds.Signal, values []string) {
			v := rapid.SampledFrom(values).Draw(t, string(sig))
			th := thresholds.Threshold{Signal: sig}
			if pct, ok := parsePercent(v); ok {
				th.Value.Percentage = pct
			} else {
				q := resource.MustParse(v)
				th.Value.Quantity = &q
			}
			if rapid.Bool().Draw(t, string(sig)+".soft") {
				th.GracePeriod = rapid.SampledFrom([]time.Duration{30 * time.Second, time.Minute, 2 * time.Minute}).Draw(t, string(sig)+".grace")
			}
			if rapid.IntRange(0, 2).Draw(t, string(sig)+".minReclaim?") == 0 {
				q := resource.MustParse(rapid.SampledFrom([]string{"100Mi", "1Gi"}).Draw(t, string(sig)+".minReclaim"))
				if sig == thresholds.PIDAvailable || sig == thresholds.NodeFsInodesFree {
					q = resource.MustParse("1000")
				}
				th.MinReclaim = &thresholds.Value{Quantity: &q}
			}
			s.thresholds = append(s.thresholds, th)
		}
		threshold(thresholds.MemoryAvailable, []string{"500Mi", "1Gi", "10%"})
		switch rapid.IntRange(0, 3).Draw(t, "other") {
		case 0:
			threshold(thresholds.NodeFsAvailable, []string{"10%", "15Gi"})
		case 1:
			threshold(thresholds.NodeFsInodesFree, []string{"5%", "50000"})
		case 2:
			threshold(thresholds.PIDAvailable, []string{"1000", "10%"})
		}
		s.layout = rapid.SampledFrom([]thresholds.Layout{{}, {DedicatedImageFs: true}, {DedicatedImageFs: true, SplitContainerImageFs: true}}).Draw(t, "layout")
		s.period = rapid.SampledFrom([]time.Duration{30 * time.Second, time.Minute, 5 * time.Minute}).Draw(t, "period")
		s.maxGrace = rapid.SampledFrom([]int64{0, 10, 30}).Draw(t, "maxGrace")
		s.problem = rankingProblems(8).Draw(t, "problem")
		for _, p := range s.problem.pods {
			switch rapid.IntRange(0, 6).Draw(t, "kind") {
			case 0:
				p.Annotations = map[string]string{ranking.ConfigSourceAnnotationKey: "file"}
			case 1:
				p.Annotations = map[string]string{ranking.ConfigMirrorAnnotationKey: "x"}
			case 2:
				p.Spec.Priority = gen.Int32(ranking.SystemCriticalPriority)
			}
			if rapid.Bool().Draw(t, "terminationGrace?") {
				g := rapid.SampledFrom([]int64{0, 5, 60}).Draw(t, "terminationGrace")
				p.Spec.TerminationGracePeriodSeconds = &g
			}
			p.Generation = int64(rapid.IntRange(0, 3).Draw(t, "generation"))
		}
		s.cycles = append(s.cycles, pressureCycle{memoryMi: 8000, nodefsGi: 90, inodesFree: 900000, pids: 30000})
		for i := range rapid.IntRange(1, 8).Draw(t, "cycles") {
			l := func(what string) string { return fmt.Sprintf("%s%d", what, i) }
			s.cycles = append(s.cycles, pressureCycle{
				step:       rapid.SampledFrom([]time.Duration{10 * time.Second, 30 * time.Second, time.Minute, 3 * time.Minute}).Draw(t, l("step")),
				stale:      rapid.IntRange(0, 5).Draw(t, l("stale")) == 0,
				memoryMi:   rapid.SampledFrom([]uint64{8000, 1500, 900, 700, 400}).Draw(t, l("memory")),
				nodefsGi:   rapid.SampledFrom([]uint64{90, 16, 12, 5}).Draw(t, l("nodefs")),
				inodesFree: rapid.SampledFrom([]uint64{900000, 60000, 40000, 1000}).Draw(t, l("inodes")),
				pids:       rapid.SampledFrom([]uint64{30000, 3500, 3000, 500}).Draw(t, l("pids")),
				gcFrees:    rapid.Bool().Draw(t, l("gcFrees")),
			})
		}
		return s
	})
}

// parsePercent reads "10%" as the kubelet does: float32(10) / 100.
func parsePercent(v string) (float32, bool) {
	text, ok := strings.CutSuffix(v, "%")
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(text, 32)
	return float32(f) / 100, err == nil
}

// node returns the library's summary and upstream's for one cycle: 8Gi of
// memory, a 100Gi nodefs with 1M inodes, a 100Gi imagefs and a max PID of
// 32768, at.
func (c pressureCycle) node(at time.Time, nodefsGi uint64, pods []statsapi.PodStats) (thresholds.Summary, *statsapi.Summary) {
	u64 := func(v uint64) *uint64 { return &v }
	i64 := func(v int64) *int64 { return &v }
	mem := thresholds.MemoryStats{Time: at, AvailableBytes: u64(c.memoryMi * gen.Mi), WorkingSetBytes: u64((8192 - c.memoryMi) * gen.Mi)}
	nodeFs := thresholds.FsStats{Time: at, AvailableBytes: u64(nodefsGi << 30), CapacityBytes: u64(100 << 30), InodesFree: u64(c.inodesFree), Inodes: u64(1000000)}
	imageFs := thresholds.FsStats{Time: at, AvailableBytes: u64(80 << 30), CapacityBytes: u64(100 << 30), InodesFree: u64(900000), Inodes: u64(1000000)}
	rl := thresholds.RlimitStats{Time: at, MaxPID: i64(32768), NumOfRunningProcesses: i64(32768 - int64(c.pids))}
	ours := thresholds.Summary{Memory: &mem, NodeFs: &nodeFs, ImageFs: &imageFs, Rlimit: &rl}
	upFs := func(f thresholds.FsStats) *statsapi.FsStats {
		return &statsapi.FsStats{Time: metav1.NewTime(f.Time), AvailableBytes: f.AvailableBytes, CapacityBytes: f.CapacityBytes, InodesFree: f.InodesFree, Inodes: f.Inodes}
	}
	up := &statsapi.Summary{
		Node: statsapi.NodeStats{
			Memory:  &statsapi.MemoryStats{Time: metav1.NewTime(at), AvailableBytes: mem.AvailableBytes, WorkingSetBytes: mem.WorkingSetBytes},
			Fs:      upFs(nodeFs),
			Runtime: &statsapi.RuntimeStats{ImageFs: upFs(imageFs)},
			Rlimit:  &statsapi.RlimitStats{Time: metav1.NewTime(at), MaxPID: rl.MaxPID, NumOfRunningProcesses: rl.NumOfRunningProcesses},
		},
		Pods: pods,
	}
	return ours, up
}

// cycleOutcome is what one cycle did, as compared.
type cycleOutcome struct {
	Conditions []v1.NodeConditionType
	Killed     []string
	Grace      []int64
	Statuses   []v1.PodStatus
	GC         []thresholds.ReclaimAction
}

// normalized clears the transition time of conditions upstream stamps with
// the wall clock (metav1.Now) and the library with the manager's clock.
func normalized(st v1.PodStatus, before v1.PodStatus) v1.PodStatus {
	st = *st.DeepCopy()
	for i := range st.Conditions {
		kept := slices.ContainsFunc(before.Conditions, func(c v1.PodCondition) bool {
			return c.Type == st.Conditions[i].Type && c.LastTransitionTime.Equal(&st.Conditions[i].LastTransitionTime)
		})
		if !kept {
			st.Conditions[i].LastTransitionTime = metav1.Time{}
		}
	}
	return st
}

// TestManagerSequences runs generated multi-cycle sequences (pressure
// rising, grace periods passing, statistics going stale, garbage collection
// freeing disk or not, pressure clearing and the transition period running
// out) through upstream's eviction manager and nodepressure.Manager, and
// compares every cycle: the node conditions, the pods killed, their kill
// grace periods and statuses, and the garbage collections run. Killed pods
// leave the node.
func TestManagerSequences(t *testing.T) {
	var cycles, pressureKills, softKills, localKills, gcRuns, gcSaved int
	rapid.Check(t, func(t *rapid.T) {
		s := pressureScenarios().Draw(t, "scenario")
		up := newUpstreamManager(s.thresholds, s.layout, s.period, s.maxGrace, gen.Epoch)
		clk := testingclock.NewFakeClock(gen.Epoch)
		ours, err := nodepressure.NewManager(nodepressure.Config{Thresholds: s.thresholds, Layout: s.layout,
			PressureTransitionPeriod: s.period, MaxPodGracePeriodSeconds: s.maxGrace})
		if err != nil {
			t.Fatal(err)
		}
		active := slices.Clone(s.problem.pods)
		slices.SortStableFunc(active, compareIdentity) // upstream's stable small sort then keeps identity order on ties
		usage := ranking.UsageByUID(s.problem.usage)
		var statsAt time.Time
		for i, c := range s.cycles {
			up.clock.Step(c.step)
			clk.Step(c.step)
			if !c.stale || i == 0 {
				statsAt = clk.Now()
			}
			var stats []statsapi.PodStats
			for _, p := range active {
				if u, ok := s.problem.usage[p.UID]; ok {
					stats = append(stats, podStats(p, u))
				}
			}
			ourNode, upNode := c.node(statsAt, c.nodefsGi, stats)
			freed := c.nodefsGi
			if c.gcFrees {
				freed = 80
			}
			ourAfter, upAfter := c.node(statsAt, freed, stats)
			up.provider.result, up.gc.after, up.gc.ran, up.killed = upNode, upAfter, nil, nil
			before := map[string]v1.PodStatus{}
			for _, p := range active {
				before[p.Name] = *p.Status.DeepCopy()
			}

			upActive := slices.Clone(active)
			if _, err := up.m.Synchronize(context.Background(), up.disk, func() []*v1.Pod { return upActive }); err != nil {
				t.Fatalf("cycle %d: upstream: %v", i, err)
			}
			var want cycleOutcome
			want.Conditions = up.m.NodeConditions()
			slices.Sort(want.Conditions) // upstream ranges over a map
			want.GC = up.gc.ran
			for _, k := range up.killed {
				want.Killed = append(want.Killed, k.pod.Name)
				want.Grace = append(want.Grace, k.grace)
				want.Statuses = append(want.Statuses, normalized(k.status, before[k.pod.Name]))
			}

			r := ours.Synchronize(clk.Now(), nodepressure.Stats{Node: ourNode, Pods: usage}, active)
			var got cycleOutcome
			got.Conditions = slices.Sorted(slices.Values(r.Conditions))
			var kills []nodepressure.Eviction
			if len(r.LocalStorage) > 0 {
				kills = r.LocalStorage
			} else if r.Victim != nil || len(r.NodeReclaim) > 0 {
				got.GC = r.NodeReclaim
				if r.Victim != nil && (len(r.NodeReclaim) == 0 || !ours.ReclaimSatisfied(ourAfter)) {
					kills = []nodepressure.Eviction{*r.Victim}
				}
			}
			for _, k := range kills {
				got.Killed = append(got.Killed, k.Pod.Name)
				got.Grace = append(got.Grace, k.GracePeriodSeconds)
				got.Statuses = append(got.Statuses, normalized(k.Status, before[k.Pod.Name]))
			}
			if show(got) != show(want) {
				t.Fatalf("cycle %d (%+v, stats at %v):\nupstream %s\nevictkit %s\nthresholds %s", i, c,
					statsAt.Sub(gen.Epoch), show(want), show(got), show(r.Evaluation))
			}
			for _, k := range kills {
				active = slices.DeleteFunc(active, func(p *v1.Pod) bool { return p == k.Pod })
			}
			cycles++
			switch {
			case len(r.LocalStorage) > 0:
				localKills += len(r.LocalStorage)
			case len(kills) > 0:
				pressureKills++
				if r.Evaluation.Soft {
					softKills++
				}
			}
			if len(got.GC) > 0 {
				gcRuns++
				if r.Victim != nil && len(kills) == 0 {
					gcSaved++
				}
			}
		}
	})
	t.Logf("%d cycles compared: %d pressure kills (%d soft), %d local-storage kills, %d garbage collections (%d enough)",
		cycles, pressureKills, softKills, localKills, gcRuns, gcSaved)
}
