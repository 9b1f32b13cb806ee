package conformance_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/controller/tainteviction"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
	evictionapi "k8s.io/kubernetes/pkg/kubelet/eviction/api"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/helper"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/preemption"
	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
	"github.com/evictkit/eviction/timedqueue"
	"github.com/evictkit/eviction/tolerations"
)

// Side-by-side benchmarks: each BenchmarkX runs X/upstream and X/evictkit
// on the same inputs. See ../BENCHMARKS.md.

// matrix20 returns 20 taints and 20 tolerations in which every taint is
// tolerated by exactly one toleration, found halfway through the list on
// average.
func matrix20() ([]v1.Taint, []v1.Toleration) {
	var taints []v1.Taint
	var tols []v1.Toleration
	for i := range 20 {
		effect := v1.TaintEffectNoSchedule
		if i%2 == 1 {
			effect = v1.TaintEffectNoExecute
		}
		taints = append(taints, v1.Taint{Key: fmt.Sprintf("example.com/key-%d", i), Value: fmt.Sprintf("v%d", i), Effect: effect})
	}
	for i := range 20 {
		j := 19 - i
		tols = append(tols, v1.Toleration{Key: taints[j].Key, Operator: v1.TolerationOpEqual, Value: taints[j].Value, Effect: taints[j].Effect})
	}
	return taints, tols
}

// BenchmarkTolerates asks, for each of 20 taints, whether any of 20
// tolerations tolerates it.
func BenchmarkTolerates(b *testing.B) {
	taints, tols := matrix20()
	b.Run("upstream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range taints {
				if !corev1helpers.TolerationsTolerateTaint(logger, tols, &taints[i], false) {
					b.Fatal("not tolerated")
				}
			}
		}
	})
	b.Run("evictkit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range taints {
				if !tolerations.AnyTolerates(tols, &taints[i], tolerations.Options{}) {
					b.Fatal("not tolerated")
				}
			}
		}
	})
}

// BenchmarkFindUntolerated scans 20 taints, all tolerated, against 20
// tolerations with the scheduler's NoSchedule-or-NoExecute filter.
func BenchmarkFindUntolerated(b *testing.B) {
	taints, tols := matrix20()
	b.Run("upstream", func(b *testing.B) {
		filter := helper.DoNotScheduleTaintsFilterFunc()
		b.ReportAllocs()
		for b.Loop() {
			if _, found := corev1helpers.FindMatchingUntoleratedTaint(logger, taints, tols, filter, false); found {
				b.Fatal("untolerated")
			}
		}
	})
	b.Run("evictkit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, found := tolerations.FindUntolerated(taints, tols, tolerations.NoScheduleOrNoExecute, tolerations.Options{}); found {
				b.Fatal("untolerated")
			}
		}
	})
}

// rankingPods returns n pods with mixed priorities, memory and
// ephemeral-storage requests, and usage of memory, disk (container layer,
// logs, an emptyDir) and processes, seeded.
func rankingPods(n int) rankingProblem {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	p := rankingProblem{usage: map[types.UID]ranking.Usage{}}
	for i := range n {
		prio := int32(r.IntN(4) * 100)
		mem := resource.NewQuantity(int64(r.IntN(16))*64*gen.Mi, resource.BinarySI)
		disk := resource.NewQuantity(int64(r.IntN(8))*1024*gen.Mi, resource.BinarySI)
		pod := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: "default", UID: types.UID(fmt.Sprintf("p%d", i))},
			Spec: v1.PodSpec{Priority: &prio,
				Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
					v1.ResourceMemory: *mem, v1.ResourceEphemeralStorage: *disk}}}},
				Volumes: []v1.Volume{{Name: "scratch", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}},
			},
		}
		p.pods = append(p.pods, pod)
		fs := func(gib int) ranking.FSUsage {
			return ranking.FSUsage{UsedBytes: uint64(r.IntN(gib*1024)) * gen.Mi, InodesUsed: uint64(r.IntN(10000))}
		}
		p.usage[pod.UID] = ranking.Usage{
			MemoryWorkingSet: uint64(r.IntN(16)) * 64 * gen.Mi,
			Processes:        uint64(1 + r.IntN(200)),
			Containers:       []ranking.ContainerUsage{{Name: "c", Rootfs: fs(4), Logs: fs(1)}},
			Volumes:          []ranking.VolumeUsage{{Name: "scratch", FSUsage: fs(4)}},
		}
	}
	return p
}

// BenchmarkRank sorts n pods with the kubelet's ranking for a memory, a
// disk (nodefs bytes, no image filesystem) and the PID signal. Each
// iteration ranks a fresh copy of the same shuffled list.
func BenchmarkRank(b *testing.B) {
	rank := eviction.BuildSignalToRankFunc(false, false)
	for _, signal := range []string{"memory.available", "nodefs.available", "pid.available"} {
		for _, n := range []int{110, 1000, 10000} {
			p := rankingPods(n)
			work := make([]*v1.Pod, n)
			name := fmt.Sprintf("signal=%s/pods=%d", signal, n)
			b.Run(name+"/upstream", func(b *testing.B) {
				stats, fn := p.upstreamStats(), rank[evictionapi.Signal(signal)]
				b.ReportAllocs()
				for b.Loop() {
					copy(work, p.pods)
					fn(work, stats)
				}
			})
			b.Run(name+"/evictkit", func(b *testing.B) {
				usage := ranking.UsageByUID(p.usage)
				b.ReportAllocs()
				for b.Loop() {
					copy(work, p.pods)
					if err := ranking.ForSignal(work, usage, thresholds.Signal(signal), thresholds.Layout{}, ranking.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkThresholdCycle runs one evaluation cycle of the kubelet's
// default thresholds plus soft memory and nodefs thresholds, with memory
// under both of its thresholds and nodefs under its soft one (a hard
// threshold met, conditions reported, a threshold to reclaim).
func BenchmarkThresholdCycle(b *testing.B) {
	c := thresholds.Config{
		Hard:            thresholds.Defaults(thresholds.Linux),
		Soft:            map[string]string{"memory.available": "1Gi", "nodefs.available": "15%"},
		SoftGracePeriod: map[string]string{"memory.available": "1m", "nodefs.available": "2m"},
		MinimumReclaim:  map[string]string{"memory.available": "100Mi"},
		// upstream's ParseThresholdConfig below gets no allocatable
		// enforcement either (nil there; nil here means the kubelet default).
		EnforceNodeAllocatable: []string{},
	}
	gi := int64(1 << 30)
	raw := map[string]benchObservation{
		"memory.available":   {50 * gen.Mi, 8 * gi},
		"nodefs.available":   {10 * gi, 100 * gi},
		"nodefs.inodesFree":  {900000, 1000000},
		"imagefs.available":  {50 * gi, 100 * gi},
		"imagefs.inodesFree": {900000, 1000000},
		"pid.available":      {30000, 32768},
	}
	obs, upObs := thresholds.Observations{}, eviction.SignalObservations{}
	for s, o := range raw {
		// Zero times: every cycle counts as fresh statistics.
		obs[thresholds.Signal(s)] = thresholds.Observation{Available: resource.NewQuantity(o.available, resource.BinarySI),
			Capacity: resource.NewQuantity(o.capacity, resource.BinarySI)}
		upObs[evictionapi.Signal(s)] = eviction.NewSignalObservation(resource.NewQuantity(o.available, resource.BinarySI),
			resource.NewQuantity(o.capacity, resource.BinarySI), time.Time{})
	}
	b.Run("upstream", func(b *testing.B) {
		ts, err := eviction.ParseThresholdConfig(nil, c.Hard, c.Soft, c.SoftGracePeriod, c.MinimumReclaim)
		if err != nil {
			b.Fatal(err)
		}
		cycle := &upstreamCycle{thresholds: ts, period: 5 * time.Minute}
		now := time.Now()
		b.ReportAllocs()
		for b.Loop() {
			now = now.Add(10 * time.Second)
			_, _, fresh := cycle.observe(now, upObs)
			sort.Sort(eviction.ByEvictionPriority(fresh))
			if _, _, ok := eviction.GetReclaimableThreshold(logger, fresh); !ok {
				b.Fatal("nothing to reclaim")
			}
		}
	})
	b.Run("evictkit", func(b *testing.B) {
		ts, err := thresholds.ParseConfig(c)
		if err != nil {
			b.Fatal(err)
		}
		ev, err := thresholds.NewEvaluator(ts, thresholds.Options{})
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		b.ReportAllocs()
		for b.Loop() {
			now = now.Add(10 * time.Second)
			if r := ev.Observe(now, obs); !r.Reclaim {
				b.Fatal("nothing to reclaim")
			}
		}
	})
}

type benchObservation struct{ available, capacity int64 }

// benchNode returns a node holding n pods (allocatable pods = n) with
// mixed priorities, start times and requests, some matched by the PDBs
// benchPDBs returns.
func benchNode(name string, n int, seed uint64) (*v1.Node, []*v1.Pod) {
	r := rand.New(rand.NewPCG(seed, 7))
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name)}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(int64(n)*500, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(int64(n)*gen.Mi*1024, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity(int64(n), resource.DecimalSI),
	}}}
	var pods []*v1.Pod
	for i := range n {
		prio := int32(r.IntN(5) * 100)
		start := metav1.NewTime(time.Date(2020, 1, 1, 0, r.IntN(600), 0, 0, time.UTC))
		labels := map[string]string{"app": fmt.Sprintf("app%d", r.IntN(4))}
		pods = append(pods, &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-p%d", name, i), Namespace: "default",
				UID: types.UID(fmt.Sprintf("%s-p%d", name, i)), Labels: labels},
			Spec: v1.PodSpec{NodeName: name, Priority: &prio, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{
					v1.ResourceCPU:    *resource.NewMilliQuantity(int64(100+r.IntN(4)*100), resource.DecimalSI),
					v1.ResourceMemory: *resource.NewQuantity(int64(256+r.IntN(4)*256)*gen.Mi, resource.BinarySI),
				}}}}},
			Status: v1.PodStatus{StartTime: &start},
		})
	}
	return node, pods
}

func benchPDBs() []*policyv1.PodDisruptionBudget {
	var out []*policyv1.PodDisruptionBudget
	for i := range 2 {
		out = append(out, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pdb%d", i), Namespace: "default"},
			Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("app%d", i)}}},
			Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 2},
		})
	}
	return out
}

// benchPreemptor needs a pod slot and 2 cpu: on a full node it evicts
// several lower-priority pods.
func benchPreemptor() *v1.Pod {
	prio := int32(350)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "preemptor", Namespace: "default", UID: "preemptor"},
		Spec: v1.PodSpec{Priority: &prio, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("2"), v1.ResourceMemory: resource.MustParse("1Gi")}}}}},
	}
}

// BenchmarkSelectVictims finds the victims on one node of 110 pods, as the
// dry run does for each node (upstream: GetVictimsOnNode and
// SelectVictimsOnNode on a copy of the NodeInfo).
func BenchmarkSelectVictims(b *testing.B) {
	node, pods := benchNode("n0", 110, 1)
	pdbs := benchPDBs()
	pre := benchPreemptor()
	b.Run("pods=110/upstream", func(b *testing.B) {
		c := newSchedCluster(b, []*v1.Node{node}, pods, nil, schedArgs{})
		state := c.preFilter(b, pre)
		ni := c.nodeInfo(b, node.Name)
		b.ReportAllocs()
		for b.Loop() {
			victims, err := c.pl.Evaluator.GetVictimsOnNode(c.ctx, ni)
			if err != nil {
				b.Fatal(err)
			}
			if got, _, status := c.pl.SelectVictimsOnNode(c.ctx, state.Clone(), pre, ni.Snapshot(), victims, pdbs); status.Code() != fwk.Success || len(got) == 0 {
				b.Fatalf("upstream: %v, %d victims", status, len(got))
			}
		}
	})
	b.Run("pods=110/evictkit", func(b *testing.B) {
		snap, err := preemption.NewNodeSnapshot(node, pods, nil)
		if err != nil {
			b.Fatal(err)
		}
		parsed, err := preemption.NewPDBs(pdbs)
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		b.ReportAllocs()
		for b.Loop() {
			if v, ok := preemption.SelectVictims(pre, snap, parsed, now, preemption.Options{}); !ok || len(v.Pods) == 0 {
				b.Fatalf("evictkit: %v, %d victims", ok, len(v.Pods))
			}
		}
	})
}

// BenchmarkDryRun runs a whole per-pod preemption on 5,000 full nodes of 30
// pods each, every one a potential node, from offset 0 with parallelism 1
// on both sides: the dry run until 500 candidates (10%) and the node pick.
func BenchmarkDryRun(b *testing.B) {
	const nodes, perNode = 5000, 30
	var allNodes []*v1.Node
	var allPods []*v1.Pod
	podsOf := map[string][]*v1.Pod{}
	for i := range nodes {
		n, pods := benchNode(fmt.Sprintf("n%d", i), perNode, uint64(i))
		allNodes = append(allNodes, n)
		allPods = append(allPods, pods...)
		podsOf[n.Name] = pods
	}
	pdbs := benchPDBs()
	pre := benchPreemptor()
	b.Run(fmt.Sprintf("nodes=%d,pods=%d/upstream", nodes, perNode), func(b *testing.B) {
		c := newSchedCluster(b, allNodes, allPods, nil, schedArgs{})
		state := c.preFilter(b, pre)
		infos := make([]fwk.NodeInfo, nodes)
		for i, n := range allNodes {
			infos[i] = c.nodeInfo(b, n.Name)
		}
		_, numCandidates := c.pl.GetOffsetAndNumCandidates(nodes)
		b.ReportAllocs()
		for b.Loop() {
			candidates, _, err := c.pl.Evaluator.DryRunPreemption(c.ctx, state, pre, infos, pdbs, 0, numCandidates)
			if err != nil || len(candidates) == 0 {
				b.Fatalf("upstream: %v, %d candidates", err, len(candidates))
			}
			if c.pl.Evaluator.SelectCandidate(c.ctx, candidates) == nil {
				b.Fatal("upstream picked nothing")
			}
		}
	})
	b.Run(fmt.Sprintf("nodes=%d,pods=%d/evictkit", nodes, perNode), func(b *testing.B) {
		snaps := make([]preemption.NodeSnapshot, nodes)
		prior := make(map[string]preemption.Code, nodes)
		for i, n := range allNodes {
			s, err := preemption.NewNodeSnapshot(n, podsOf[n.Name], nil)
			if err != nil {
				b.Fatal(err)
			}
			snaps[i] = s
			prior[n.Name] = preemption.Unschedulable
		}
		opts := preemption.Options{PriorStatus: prior, Offset: preemption.FixedOffset(0), Workers: 1}
		b.ReportAllocs()
		for b.Loop() {
			parsed, err := preemption.NewPDBs(pdbs)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := preemption.Preempt(pre, snaps, parsed, time.Now(), opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTimedQueue adds 1,000,000 items due in an hour and cancels them
// all, on the real clock. It also reports the heap held per pending item
// (B/item), measured once with every item queued.
func BenchmarkTimedQueue(b *testing.B) {
	const n = 1_000_000
	keys := make([]string, n)
	args := make([]*tainteviction.WorkArgs, n)
	for i := range n {
		args[i] = tainteviction.NewWorkArgs(fmt.Sprintf("pod-%d", i), "ns")
		keys[i] = args[i].KeyFromWorkArgs()
	}
	ctx := context.Background()
	b.Run("items=1M/upstream", func(b *testing.B) {
		q := tainteviction.CreateWorkerQueue(func(context.Context, time.Time, *tainteviction.WorkArgs) error { return nil })
		add := func() {
			now := time.Now()
			for _, a := range args {
				q.AddWork(ctx, a, now, now.Add(time.Hour))
			}
		}
		cancel := func() {
			for _, k := range keys {
				if !q.CancelWork(logger, k) {
					b.Fatal("not cancelled")
				}
			}
		}
		benchAddCancel(b, add, cancel, n)
	})
	b.Run("items=1M/evictkit", func(b *testing.B) {
		q := timedqueue.New(func(context.Context, timedqueue.Item[string, struct{}]) error { return nil }, timedqueue.Options[string]{})
		add := func() {
			now := time.Now()
			for _, k := range keys {
				if !q.Add(k, struct{}{}, now, now.Add(time.Hour)) {
					b.Fatal("not added")
				}
			}
		}
		cancel := func() {
			for _, k := range keys {
				if !q.Cancel(k) {
					b.Fatal("not cancelled")
				}
			}
		}
		benchAddCancel(b, add, cancel, n)
	})
}

// benchAddCancel times add (which queues n items) followed by cancel
// (which cancels them all), and reports the growth of the live heap per
// queued item, measured once before the loop.
func benchAddCancel(b *testing.B, add, cancel func(), n int) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	add()
	runtime.GC()
	runtime.ReadMemStats(&after)
	perItem := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
	cancel()
	b.ReportAllocs()
	for b.Loop() {
		add()
		cancel()
	}
	// After the loop: b.Loop's first call resets the timer, which drops
	// metrics reported before it.
	b.ReportMetric(perItem, "B/item")
}
