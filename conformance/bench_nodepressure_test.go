package conformance_test

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	testingclock "k8s.io/utils/clock/testing"

	"k8s.io/kubernetes/pkg/kubelet/eviction"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/nodepressure"
	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

// BenchmarkSynchronize runs one eviction-manager cycle on 110 pods (the
// kubelet's default maxPods) with the default hard thresholds plus soft
// memory.available<1Gi and nodefs.available<15% (grace 1m): memory is below
// its hard threshold, so every cycle ranks the pods and evicts one (the kill
// function does nothing, so the same pods stay). Each iteration advances the
// clock and the statistics' time by 10 s. Upstream is managerImpl.synchronize
// on the kubelet's stats summary; evictkit is nodepressure.Manager.Synchronize
// on the same figures (the node's thresholds.Summary and the pods' usage).
func BenchmarkSynchronize(b *testing.B) {
	ts, err := thresholds.ParseConfig(thresholds.Config{
		Soft:            map[string]string{"memory.available": "1Gi", "nodefs.available": "15%"},
		SoftGracePeriod: map[string]string{"memory.available": "1m", "nodefs.available": "1m"},
	})
	if err != nil {
		b.Fatal(err)
	}
	p := rankingPods(110)
	var stats []statsapi.PodStats
	for _, pod := range p.pods {
		stats = append(stats, podStats(pod, p.usage[pod.UID]))
	}
	c := pressureCycle{memoryMi: 50, nodefsGi: 12, inodesFree: 900000, pids: 30000}
	setTime := func(s *statsapi.Summary, at time.Time) {
		t := metav1.NewTime(at)
		s.Node.Memory.Time, s.Node.Fs.Time, s.Node.Runtime.ImageFs.Time, s.Node.Rlimit.Time = t, t, t, t
	}
	setOurTime := func(s *thresholds.Summary, at time.Time) {
		s.Memory.Time, s.NodeFs.Time, s.ImageFs.Time, s.Rlimit.Time = at, at, at, at
	}
	work := make([]*v1.Pod, len(p.pods))

	b.Run("pods=110/upstream", func(b *testing.B) {
		_, summary := c.node(gen.Epoch, c.nodefsGi, stats)
		clk := testingclock.NewFakeClock(gen.Epoch)
		provider := &fakeSummaryProvider{result: summary}
		gc := &fakeGC{provider: provider, after: summary}
		kills := 0
		kill := func(*v1.Pod, bool, *int64, func(*v1.PodStatus)) error { kills++; return nil }
		m, _ := eviction.NewManager(provider, eviction.Config{Thresholds: toUpstream(ts), PressureTransitionPeriod: 5 * time.Minute},
			kill, gc, gc, &record.FakeRecorder{}, &v1.ObjectReference{Kind: "Node", Name: "node"}, clk, true)
		mi := m.(*eviction.ManagerImpl)
		ctx := context.Background()
		pods := func() []*v1.Pod { copy(work, p.pods); return work }
		b.ReportAllocs()
		for b.Loop() {
			clk.Step(10 * time.Second)
			setTime(summary, clk.Now())
			if _, err := mi.Synchronize(ctx, fakeDiskInfo{}, pods); err != nil {
				b.Fatal(err)
			}
		}
		if kills == 0 {
			b.Fatal("nothing evicted")
		}
	})
	b.Run("pods=110/evictkit", func(b *testing.B) {
		node, _ := c.node(gen.Epoch, c.nodefsGi, nil)
		clk := testingclock.NewFakeClock(gen.Epoch)
		m, err := nodepressure.NewManager(nodepressure.Config{Thresholds: ts})
		if err != nil {
			b.Fatal(err)
		}
		usage := ranking.UsageByUID(p.usage)
		kills := 0
		b.ReportAllocs()
		for b.Loop() {
			clk.Step(10 * time.Second)
			setOurTime(&node, clk.Now())
			if r := m.Synchronize(clk.Now(), nodepressure.Stats{Node: node, Pods: usage}, p.pods); r.Victim != nil {
				kills++
			}
		}
		if kills == 0 {
			b.Fatal("nothing evicted")
		}
	})
}
