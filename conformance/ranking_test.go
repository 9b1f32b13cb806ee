package conformance_test

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	apiv1 "k8s.io/kubernetes/pkg/apis/core/v1"
	v1qos "k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
	evictionapi "k8s.io/kubernetes/pkg/kubelet/eviction/api"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

func TestQOSClass(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pod := gen.Pod("p", gen.PodOptions{PodLevel: true, Overhead: true}).Draw(t, "pod")
		if rapid.IntRange(0, 9).Draw(t, "status?") == 0 {
			pod.Status.QOSClass = rapid.SampledFrom([]v1.PodQOSClass{v1.PodQOSBestEffort, v1.PodQOSBurstable, v1.PodQOSGuaranteed}).Draw(t, "status")
		}
		defaulted := apiDefaulted(t, pod)
		want, got := v1qos.GetPodQOS(defaulted), ranking.QOSClass(pod, ranking.Options{})
		if got != want {
			t.Fatalf("QOSClass(%s, ranking.Options{}): upstream %s (defaulted: %s), evictkit %s", show(pod), want, show(defaulted.Spec), got)
		}
		if want, got := v1qos.ComputePodQOS(pod), ranking.ComputeQOSClass(pod, ranking.Options{}); got != want {
			t.Fatalf("ComputeQOSClass(%s, ranking.Options{}): upstream %s, evictkit %s", show(pod), want, got)
		}
	})
}

// apiDefaulted returns pod as the API server stores it on create: the
// versioned defaulting (SetObjectDefaults_Pod: container requests from
// limits) and then, with PodLevelResourcesFixDefaulting on as in v1.37,
// the pod-level defaulting the pod strategy's PrepareForCreate applies
// (DefaultPodLevelResources, on the internal type).
func apiDefaulted(t tester, pod *v1.Pod) *v1.Pod {
	t.Helper()
	out := pod.DeepCopy()
	apiv1.SetObjectDefaults_Pod(out)
	var internal core.Pod
	if err := apiv1.Convert_v1_Pod_To_core_Pod(out, &internal, nil); err != nil {
		t.Fatal(err)
	}
	podutil.DefaultPodLevelResources(&internal)
	if err := apiv1.Convert_core_Pod_To_v1_Pod(&internal, out, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

// podStats converts the library's Usage of pod into the kubelet's PodStats:
// every figure becomes a reported (non-nil) field, as the Usage type
// documents.
func podStats(pod *v1.Pod, u ranking.Usage) statsapi.PodStats {
	u64 := func(v uint64) *uint64 { return &v }
	fs := func(f ranking.FSUsage) *statsapi.FsStats {
		return &statsapi.FsStats{UsedBytes: u64(f.UsedBytes), InodesUsed: u64(f.InodesUsed)}
	}
	s := statsapi.PodStats{
		PodRef:           statsapi.PodReference{Name: pod.Name, Namespace: pod.Namespace, UID: string(pod.UID)},
		Memory:           &statsapi.MemoryStats{WorkingSetBytes: u64(u.MemoryWorkingSet)},
		ProcessStats:     &statsapi.ProcessStats{ProcessCount: u64(u.Processes)},
		EphemeralStorage: &statsapi.FsStats{UsedBytes: u64(u.EphemeralStorage)},
	}
	for _, c := range u.Containers {
		s.Containers = append(s.Containers, statsapi.ContainerStats{Name: c.Name,
			Memory: &statsapi.MemoryStats{WorkingSetBytes: u64(c.MemoryWorkingSet)}, Rootfs: fs(c.Rootfs), Logs: fs(c.Logs)})
	}
	for _, v := range u.Volumes {
		s.VolumeStats = append(s.VolumeStats, statsapi.VolumeStats{Name: v.Name, FsStats: *fs(v.FSUsage)})
	}
	return s
}

// rankingVolumes are the volumes a ranking pod may have: local ones
// (hostPath, default emptyDir, configMap) and others.
var rankingVolumes = []v1.Volume{
	{Name: "host", VolumeSource: v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/x"}}},
	{Name: "scratch", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}},
	{Name: "ram", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory}}},
	{Name: "config", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}},
	{Name: "secret", VolumeSource: v1.VolumeSource{Secret: &v1.SecretVolumeSource{}}},
}

// rankingProblem is a list of pods with their usage; some pods have no
// stats.
type rankingProblem struct {
	pods  []*v1.Pod
	usage map[types.UID]ranking.Usage
}

func (p rankingProblem) GoString() string {
	var b strings.Builder
	for _, pod := range p.pods {
		u, ok := p.usage[pod.UID]
		fmt.Fprintf(&b, "pod %s\n  usage %v %s\n", show(pod), ok, show(u))
	}
	return b.String()
}

// rankingProblems draws up to max pods (with priorities, requests of every
// kind, pod-level resources, volumes) and their usage, in multiples of
// 50Mi so that comparisons tie often.
func rankingProblems(max int) *rapid.Generator[rankingProblem] {
	return rapid.Custom(func(t *rapid.T) rankingProblem {
		p := rankingProblem{usage: map[types.UID]ranking.Usage{}}
		p.pods = gen.Pods("p", 0, max, gen.PodOptions{PodLevel: true, Overhead: true}).Draw(t, "pods")
		amount := func(label string) uint64 { return uint64(rapid.IntRange(0, 12).Draw(t, label)) * 50 * gen.Mi }
		for _, pod := range p.pods {
			for _, v := range rankingVolumes {
				if rapid.IntRange(0, 3).Draw(t, "volume?") == 0 {
					pod.Spec.Volumes = append(pod.Spec.Volumes, v)
				}
			}
			if rapid.IntRange(0, 7).Draw(t, "stats?") == 0 {
				continue // no stats for this pod
			}
			u := ranking.Usage{
				MemoryWorkingSet: amount("memory"),
				Processes:        uint64(rapid.IntRange(0, 20).Draw(t, "processes")),
				EphemeralStorage: amount("ephemeral"),
			}
			for _, c := range append(slices.Clone(pod.Spec.InitContainers), pod.Spec.Containers...) {
				if rapid.IntRange(0, 4).Draw(t, "container?") == 0 {
					continue
				}
				u.Containers = append(u.Containers, ranking.ContainerUsage{Name: c.Name, MemoryWorkingSet: amount("c.memory"),
					Rootfs: ranking.FSUsage{UsedBytes: amount("rootfs"), InodesUsed: uint64(rapid.IntRange(0, 5).Draw(t, "rootfs.inodes"))},
					Logs:   ranking.FSUsage{UsedBytes: amount("logs"), InodesUsed: uint64(rapid.IntRange(0, 5).Draw(t, "logs.inodes"))}})
			}
			for _, v := range rankingVolumes {
				if rapid.Bool().Draw(t, "volumeStats?") {
					u.Volumes = append(u.Volumes, ranking.VolumeUsage{Name: v.Name,
						FSUsage: ranking.FSUsage{UsedBytes: amount("volume"), InodesUsed: uint64(rapid.IntRange(0, 5).Draw(t, "volume.inodes"))}})
				}
			}
			p.usage[pod.UID] = u
		}
		return p
	})
}

// upstreamStats is the kubelet's statsFunc over p's usage.
func (p rankingProblem) upstreamStats() eviction.StatsFunc {
	var stats []statsapi.PodStats
	for _, pod := range p.pods {
		if u, ok := p.usage[pod.UID]; ok {
			stats = append(stats, podStats(pod, u))
		}
	}
	return eviction.CachedStatsFunc(stats)
}

// compareIdentity orders pods by namespace, name and UID.
func compareIdentity(a, b *v1.Pod) int {
	return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name),
		strings.Compare(string(a.UID), string(b.UID)))
}

// TestRank compares, for every eviction signal and filesystem layout, the
// kubelet's rank function (buildSignalToRankFunc) with ranking.ForSignal on
// up to 12 shuffled pods.
//
// Deliberate difference (deterministic ties): pods that tie on every
// comparator come out in namespace, name, UID order from the library;
// upstream's sort.Sort leaves them where the unstable sort puts them. Up to
// 12 pods sort.Sort is an insertion sort, hence stable, so upstream run on
// the pods sorted by identity gives exactly the library's documented
// order: that is the expected answer.
func TestRank(t *testing.T) {
	for _, layout := range []thresholds.Layout{{}, {DedicatedImageFs: true}, {DedicatedImageFs: true, SplitContainerImageFs: true}} {
		rank := eviction.BuildSignalToRankFunc(layout.DedicatedImageFs, layout.SplitContainerImageFs)
		for _, signal := range gen.EvictionSignals {
			t.Run(fmt.Sprintf("%s/imagefs=%v,split=%v", signal, layout.DedicatedImageFs, layout.SplitContainerImageFs), func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) {
					p := rankingProblems(12).Draw(t, "problem")
					want := slices.Clone(p.pods)
					slices.SortStableFunc(want, compareIdentity)
					rank[evictionapi.Signal(signal)](want, p.upstreamStats())
					got := rapid.Permutation(p.pods).Draw(t, "input order")
					if err := ranking.ForSignal(got, ranking.UsageByUID(p.usage), thresholds.Signal(signal), layout, ranking.Options{}); err != nil {
						t.Fatal(err)
					}
					if w, g := podNames(want), podNames(got); !slices.Equal(g, w) {
						t.Fatalf("rank for %s: upstream %q, evictkit %q", signal, w, g)
					}
				})
			})
		}
	}
}

// TestRankLarge checks ranking.ForSignal on the benchmark's pods (200 and
// 5,000 of them, four priorities, many ties) against the kubelet's rank
// functions, which sort more than 12 pods unstably. No single upstream
// answer is the expected one there; instead every adjacent pair of the
// library's order is ranked by upstream on its own: the first pod must come
// first, or the two must tie (upstream then keeps either order) and be in
// namespace, name, UID order. Upstream's comparators are a strict weak order,
// so this is the whole order.
func TestRankLarge(t *testing.T) {
	rank := eviction.BuildSignalToRankFunc(false, false)
	for _, n := range []int{200, 5000} {
		p := rankingPods(n)
		stats := p.upstreamStats()
		for _, signal := range gen.EvictionSignals {
			t.Run(fmt.Sprintf("%s/pods=%d", signal, n), func(t *testing.T) {
				got := slices.Clone(p.pods)
				if err := ranking.ForSignal(got, ranking.UsageByUID(p.usage), thresholds.Signal(signal), thresholds.Layout{}, ranking.Options{}); err != nil {
					t.Fatal(err)
				}
				upstream := func(a, b *v1.Pod) *v1.Pod {
					pair := []*v1.Pod{a, b}
					rank[evictionapi.Signal(signal)](pair, stats)
					return pair[0]
				}
				for i := 1; i < len(got); i++ {
					a, b := got[i-1], got[i]
					ab, ba := upstream(a, b), upstream(b, a)
					if ab == a && ba == a {
						continue // a strictly first
					}
					tie := ab == a && ba == b
					inOrder := compareIdentity(a, b) < 0
					if !tie || !inOrder {
						t.Fatalf("positions %d, %d: evictkit ranks %s before %s; upstream: tie %v, identity order %v",
							i-1, i, a.Name, b.Name, tie, inOrder)
					}
				}
			})
		}
	}
}

// messageThresholds draws the thresholds of an eviction cycle (signals of
// every resource, an unknown one, absolute and percentage values) and the
// cycle's observations, each with an available amount and a capacity, as
// every threshold the kubelet finds met has; once as the library's types and
// once as upstream's.
func messageThresholds(t *rapid.T) ([]thresholds.Threshold, thresholds.Observations, []evictionapi.Threshold, eviction.SignalObservations) {
	signals := append(slices.Clone(gen.EvictionSignals), "mem.available")
	var ts []thresholds.Threshold
	for i := range rapid.IntRange(0, 3).Draw(t, "thresholds") {
		th := thresholds.Threshold{Signal: thresholds.Signal(rapid.SampledFrom(signals).Draw(t, fmt.Sprintf("signal%d", i)))}
		if rapid.Bool().Draw(t, fmt.Sprintf("percentage%d", i)) {
			th.Value.Percentage = rapid.SampledFrom([]float32{0.05, 0.1, 0.155, 1}).Draw(t, fmt.Sprintf("value%d", i))
		} else {
			q := resource.MustParse(rapid.SampledFrom([]string{"0", "1000", "100Mi", "150Mi", "1Gi", "1.5Gi"}).Draw(t, fmt.Sprintf("value%d", i)))
			th.Value.Quantity = &q
		}
		ts = append(ts, th)
	}
	obs := thresholds.Observations{}
	upObs := eviction.SignalObservations{}
	for s, o := range gen.Observations(gen.Epoch).Draw(t, "observations") {
		if o.Available != nil && o.Capacity != nil {
			obs[thresholds.Signal(s)] = thresholds.Observation{Available: resource.NewQuantity(*o.Available, resource.BinarySI),
				Capacity: resource.NewQuantity(*o.Capacity, resource.BinarySI), Time: o.Time}
			upObs[evictionapi.Signal(s)] = eviction.NewSignalObservation(resource.NewQuantity(*o.Available, resource.BinarySI),
				resource.NewQuantity(*o.Capacity, resource.BinarySI), o.Time)
		}
	}
	return ts, obs, toUpstream(ts), upObs
}

// TestEvictionMessage compares the kubelet's evictionMessage with
// ranking.EvictionMessage for every resource the kubelet reclaims (memory,
// ephemeral-storage, inodes, pids), on the pods and usage of
// rankingProblems, some pods given an ephemeral container with usage (never
// named in a message) or an init container named like a regular one (the
// regular one's request counts), and on random thresholds and
// observations: the message text and the event annotations must be equal.
// Usage converts to kubelet stats with every field reported, so the
// documented stats-presence difference does not arise.
func TestEvictionMessage(t *testing.T) {
	resources := []v1.ResourceName{v1.ResourceMemory, v1.ResourceEphemeralStorage, thresholds.ResourceInodes, thresholds.ResourcePIDs}
	rapid.Check(t, func(t *rapid.T) {
		p := rankingProblems(3).Draw(t, "problem")
		for _, pod := range p.pods {
			u, ok := p.usage[pod.UID]
			if ok && rapid.IntRange(0, 3).Draw(t, "ephemeral?") == 0 {
				pod.Spec.EphemeralContainers = append(pod.Spec.EphemeralContainers, v1.EphemeralContainer{
					EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug"}})
				u.Containers = append(u.Containers, ranking.ContainerUsage{Name: "debug", MemoryWorkingSet: 600 * gen.Mi,
					Rootfs: ranking.FSUsage{UsedBytes: 600 * gen.Mi}, Logs: ranking.FSUsage{UsedBytes: gen.Mi}})
				p.usage[pod.UID] = u
			}
			if len(pod.Spec.InitContainers) > 0 && rapid.IntRange(0, 5).Draw(t, "shadowed?") == 0 {
				pod.Spec.InitContainers[0].Name = pod.Spec.Containers[0].Name
			}
		}
		ts, obs, upTs, upObs := messageThresholds(t)
		stats, usage := p.upstreamStats(), ranking.UsageByUID(p.usage)
		for _, pod := range p.pods {
			for _, res := range resources {
				wantMsg, wantAnn := eviction.EvictionMessage(res, pod, stats, upTs, upObs)
				gotMsg, gotAnn := ranking.EvictionMessage(res, pod, usage, ts, obs, ranking.Options{})
				if gotMsg != wantMsg || !maps.Equal(gotAnn, wantAnn) {
					t.Fatalf("EvictionMessage(%s, %s) with usage %s, thresholds met %s:\nupstream %q %v\nevictkit %q %v",
						res, show(pod), show(p.usage[pod.UID]), ourKeys(ts, false), wantMsg, wantAnn, gotMsg, gotAnn)
				}
			}
		}
	})
}
