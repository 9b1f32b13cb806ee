package nodepressure

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

// TestPropertyVictim runs random sequences of cycles (memory, nodefs and PID
// pressure rising and falling, time passing by random steps, pods of every
// kind, some critical) and checks the laws of every cycle:
//
//   - a victim is evictable and is the first evictable pod of the ranking,
//     and the ranking is a permutation of the active pods;
//   - no pod is killed for pressure unless a threshold is met past its grace
//     period on fresh statistics, and that threshold is met on the cycle's
//     observations;
//   - local-storage evictions exclude a pressure victim, and only
//     evictable pods are evicted for local storage;
//   - the active pods are not modified or reordered.
func TestPropertyVictim(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ts, err := thresholds.ParseConfig(thresholds.Config{
			Soft: map[string]string{"memory.available": "1Gi", "nodefs.available": "20%"},
			SoftGracePeriod: map[string]string{
				"memory.available": rapid.SampledFrom([]string{"0s", "30s", "1m"}).Draw(t, "memoryGrace"),
				"nodefs.available": rapid.SampledFrom([]string{"30s", "2m"}).Draw(t, "nodefsGrace"),
			},
			MinimumReclaim: map[string]string{"memory.available": rapid.SampledFrom([]string{"0", "200Mi"}).Draw(t, "minReclaim")},
		})
		if err != nil {
			t.Fatal(err)
		}
		layout := rapid.SampledFrom([]thresholds.Layout{{}, {DedicatedImageFs: true}, {DedicatedImageFs: true, SplitContainerImageFs: true}}).Draw(t, "layout")
		clk := testingclock.NewFakeClock(start)
		m, err := NewManager(Config{Thresholds: ts, Layout: layout, MaxPodGracePeriodSeconds: 20})
		if err != nil {
			t.Fatal(err)
		}
		var pods []*v1.Pod
		usage := map[types.UID]ranking.Usage{}
		for i := range rapid.IntRange(0, 8).Draw(t, "pods") {
			name := fmt.Sprintf("p%d", i)
			p := pod(name, rapid.SampledFrom([]int32{0, 100, ranking.SystemCriticalPriority}).Draw(t, name+".priority"),
				rapid.SampledFrom([]string{"", "100Mi", "1Gi"}).Draw(t, name+".request"))
			switch rapid.IntRange(0, 4).Draw(t, name+".kind") {
			case 0:
				p.Annotations = map[string]string{ranking.ConfigSourceAnnotationKey: "file"}
			case 1:
				p.Annotations = map[string]string{ranking.ConfigMirrorAnnotationKey: ""}
			case 2:
				limit := resource.MustParse("1Gi")
				p.Spec.Containers[0].Resources.Limits = v1.ResourceList{v1.ResourceEphemeralStorage: limit}
			}
			pods = append(pods, p)
			if rapid.IntRange(0, 4).Draw(t, name+".stats?") > 0 {
				usage[p.UID] = ranking.Usage{
					MemoryWorkingSet: uint64(rapid.IntRange(0, 20).Draw(t, name+".memory")) * 100 * mi,
					Processes:        uint64(rapid.IntRange(0, 100).Draw(t, name+".processes")),
					Containers: []ranking.ContainerUsage{{Name: "c", Rootfs: ranking.FSUsage{
						UsedBytes: uint64(rapid.IntRange(0, 4).Draw(t, name+".rootfs")) * 512 * mi}}},
				}
			}
		}
		for i := range rapid.IntRange(1, 12).Draw(t, "cycles") {
			clk.Step(rapid.SampledFrom([]time.Duration{10 * time.Second, 30 * time.Second, time.Minute}).Draw(t, fmt.Sprintf("step%d", i)))
			s := memory(rapid.SampledFrom([]uint64{4096, 1500, 900, 50}).Draw(t, fmt.Sprintf("memory%d", i)), clk.Now())
			s.NodeFs = nodefs(rapid.SampledFrom([]uint64{50, 15, 5}).Draw(t, fmt.Sprintf("nodefs%d", i)), clk.Now()).NodeFs
			before := make([]*v1.Pod, len(pods))
			for j, p := range pods {
				before[j] = p.DeepCopy()
			}
			order := slices.Clone(pods)
			r := m.Synchronize(clk.Now(), Stats{Node: s, Pods: ranking.UsageByUID(usage)}, pods)

			if !slices.Equal(order, pods) {
				t.Fatalf("cycle %d: active pods reordered", i)
			}
			for j := range pods {
				if !equalPods(before[j], pods[j]) {
					t.Fatalf("cycle %d: pod %s modified", i, pods[j].Name)
				}
			}
			for _, e := range r.LocalStorage {
				if !ranking.Evictable(e.Pod) {
					t.Fatalf("cycle %d: critical pod %s evicted for local storage", i, e.Pod.Name)
				}
			}
			if len(r.LocalStorage) > 0 && r.Victim != nil {
				t.Fatalf("cycle %d: a pressure victim beside local-storage evictions", i)
			}
			if r.Ranked != nil && !sameSet(r.Ranked, pods) {
				t.Fatalf("cycle %d: ranking %v is not a permutation of the active pods", i, names(r.Ranked))
			}
			if r.Victim == nil {
				continue
			}
			if !ranking.Evictable(r.Victim.Pod) {
				t.Fatalf("cycle %d: victim %s is not evictable", i, r.Victim.Pod.Name)
			}
			if first, _ := ranking.Victim(r.Ranked); first != r.Victim.Pod {
				t.Fatalf("cycle %d: victim %s is not the first evictable pod of %v", i, r.Victim.Pod.Name, names(r.Ranked))
			}
			if len(r.Evaluation.Fresh) == 0 || !r.Evaluation.Reclaim {
				t.Fatalf("cycle %d: victim %s with no threshold past its grace period", i, r.Victim.Pod.Name)
			}
			if !slices.ContainsFunc(r.Evaluation.Fresh, r.Evaluation.Threshold.Equal) {
				t.Fatalf("cycle %d: reclaiming for %v, which did not drive the cycle", i, r.Evaluation.Threshold)
			}
			if !slices.ContainsFunc(thresholds.Met(m.Thresholds(), r.Observations, false), r.Evaluation.Threshold.Equal) &&
				!slices.ContainsFunc(thresholds.Met(m.Thresholds(), r.Observations, true), r.Evaluation.Threshold.Equal) {
				t.Fatalf("cycle %d: %v is not met on the cycle's observations", i, r.Evaluation.Threshold)
			}
			wantGrace := int64(1)
			if r.Evaluation.Soft {
				wantGrace = 20
			}
			if r.Victim.GracePeriodSeconds != wantGrace {
				t.Fatalf("cycle %d: grace period %d, want %d", i, r.Victim.GracePeriodSeconds, wantGrace)
			}
		}
	})
}

func sameSet(a, b []*v1.Pod) bool {
	if len(a) != len(b) {
		return false
	}
	for _, p := range b {
		if !slices.Contains(a, p) {
			return false
		}
	}
	return true
}

func equalPods(a, b *v1.Pod) bool { return reflect.DeepEqual(a, b) }
