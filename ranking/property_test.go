package ranking

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/thresholds"
)

// Generators. Values come from small sets so that ties, equal priorities and exact request
// matches are common; a few extreme values (fractions, exa-scale, 2^63) keep the exact paths
// honest.

func genQuantity(t *rapid.T, label string) resource.Quantity {
	switch rapid.IntRange(0, 9).Draw(t, label+"-kind") {
	case 0:
		return resource.MustParse("0")
	case 1:
		return *resource.NewMilliQuantity(rapid.Int64Range(1, 5000).Draw(t, label+"-milli"), resource.DecimalSI)
	case 2:
		return resource.MustParse(rapid.SampledFrom([]string{"1E", "100E", "1Ki", "1.5Gi", "0.5"}).Draw(t, label+"-odd"))
	default:
		return *resource.NewQuantity(rapid.Int64Range(0, 8).Draw(t, label+"-mi")<<20, resource.BinarySI)
	}
}

func genList(t *rapid.T, label string) v1.ResourceList {
	var out v1.ResourceList
	for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage} {
		if rapid.Bool().Draw(t, label+"-has-"+string(name)) {
			if out == nil {
				out = v1.ResourceList{}
			}
			out[name] = genQuantity(t, label+"-"+string(name))
		}
	}
	return out
}

func genContainer(t *rapid.T, name string) v1.Container {
	return ctr(name, genList(t, name+"-req"), genList(t, name+"-lim"))
}

func genPod(t *rapid.T, i int) *v1.Pod {
	name := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "name")
	p := mkPod(name)
	p.Namespace = rapid.SampledFrom([]string{"ns1", "ns2"}).Draw(t, "namespace")
	p.UID = types.UID(fmt.Sprintf("uid-%03d", i))
	if rapid.IntRange(0, 4).Draw(t, "has-priority") > 0 {
		v := rapid.SampledFrom([]int32{-10, 0, 5, 1000, 2000000000}).Draw(t, "priority")
		p.Spec.Priority = &v
	}
	for j := range rapid.IntRange(0, 2).Draw(t, "containers") {
		p.Spec.Containers = append(p.Spec.Containers, genContainer(t, fmt.Sprintf("c%d", j)))
	}
	for j := range rapid.IntRange(0, 2).Draw(t, "inits") {
		c := genContainer(t, fmt.Sprintf("i%d", j))
		if rapid.Bool().Draw(t, "sidecar") {
			always := v1.ContainerRestartPolicyAlways
			c.RestartPolicy = &always
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	}
	if rapid.IntRange(0, 5).Draw(t, "pod-level") == 0 {
		p.Spec.Resources = &v1.ResourceRequirements{Requests: genList(t, "pod-req"), Limits: genList(t, "pod-lim")}
	}
	if rapid.IntRange(0, 5).Draw(t, "overhead") == 0 {
		p.Spec.Overhead = genList(t, "overhead")
	}
	if rapid.Bool().Draw(t, "volumes") {
		p.Spec.Volumes = []v1.Volume{hostPathVol("v0"), emptyDirVol("v1", "", ""), secretVol("v2")}
	}
	return p
}

func genFS(t *rapid.T, label string) FSUsage {
	return FSUsage{
		UsedBytes:  rapid.SampledFrom([]uint64{0, 1, mib(1), mib(100), mib(1024), 1 << 63, 1 << 62}).Draw(t, label+"-bytes"),
		InodesUsed: rapid.SampledFrom([]uint64{0, 1, 5, 1000, 1 << 62}).Draw(t, label+"-inodes"),
	}
}

func genUsage(t *rapid.T, p *v1.Pod) Usage {
	u := Usage{
		MemoryWorkingSet: rapid.SampledFrom([]uint64{0, 1, mib(1), mib(2), mib(50), mib(100), mib(1024), 1 << 63}).Draw(t, "ws"),
		Processes:        rapid.SampledFrom([]uint64{0, 1, 5, 100, 1000}).Draw(t, "procs"),
		EphemeralStorage: rapid.SampledFrom([]uint64{0, mib(1), mib(1024)}).Draw(t, "eph"),
	}
	for _, c := range append(slices.Clone(p.Spec.Containers), p.Spec.InitContainers...) {
		if rapid.Bool().Draw(t, "ctr-stats") {
			u.Containers = append(u.Containers, ContainerUsage{Name: c.Name, MemoryWorkingSet: mib(rapid.Int64Range(0, 3).Draw(t, "cws")),
				Rootfs: genFS(t, "root"), Logs: genFS(t, "logs")})
		}
	}
	for _, v := range p.Spec.Volumes {
		if rapid.Bool().Draw(t, "vol-stats") {
			u.Volumes = append(u.Volumes, VolumeUsage{Name: v.Name, FSUsage: genFS(t, "vol")})
		}
	}
	return u
}

// genScenario draws pods (unique UIDs) and their usage; about one in six has no stats.
func genScenario(t *rapid.T) ([]*v1.Pod, UsageFunc) {
	n := rapid.IntRange(0, 30).Draw(t, "n")
	pods := make([]*v1.Pod, n)
	m := map[types.UID]Usage{}
	for i := range pods {
		pods[i] = genPod(t, i)
		if rapid.IntRange(0, 5).Draw(t, "stats") > 0 {
			m[pods[i].UID] = genUsage(t, pods[i])
		}
	}
	return pods, UsageByUID(m)
}

// ranking is one rank function under test with upstream's comparator chain for it.
type ranking struct {
	name  string
	rank  func([]*v1.Pod, UsageFunc)
	chain func(UsageFunc) []naiveCmp
	// exceeds reports whether a pod with stats exceeds its request (nil: not applicable).
	exceeds func(*v1.Pod, Usage) bool
}

func rankings() []ranking {
	out := []ranking{
		{"memory", func(p []*v1.Pod, u UsageFunc) { ForMemory(p, u, Options{}) }, naiveMemoryChain, func(p *v1.Pod, u Usage) bool {
			m := naiveUsage(u.MemoryWorkingSet)
			return m.Cmp(Request(p, v1.ResourceMemory, Options{})) > 0
		}},
		{"pids", ForPIDs, naivePIDChain, nil},
	}
	// One (layout, filesystem) per distinct set of sources.
	type disk struct {
		layout thresholds.Layout
		fs     thresholds.Filesystem
	}
	disks := []disk{
		{thresholds.Layout{}, thresholds.NodeFs},
		{thresholds.Layout{DedicatedImageFs: true}, thresholds.NodeFs},
		{thresholds.Layout{DedicatedImageFs: true}, thresholds.ImageFs},
		{thresholds.Layout{DedicatedImageFs: true, SplitContainerImageFs: true}, thresholds.ContainerFs},
		{thresholds.Layout{DedicatedImageFs: true, SplitContainerImageFs: true}, thresholds.ImageFs},
	}
	for _, d := range disks {
		src := DiskSources(d.fs, d.layout)
		for _, res := range []v1.ResourceName{v1.ResourceEphemeralStorage, thresholds.ResourceInodes} {
			out = append(out, ranking{
				name:  fmt.Sprintf("disk %s %s %+v", res, d.fs, d.layout),
				rank:  func(p []*v1.Pod, u UsageFunc) { ForDisk(p, u, res, d.fs, d.layout, Options{}) },
				chain: func(u UsageFunc) []naiveCmp { return naiveDiskChain(u, src, res) },
				exceeds: func(p *v1.Pod, u Usage) bool {
					d := naiveDiskUsage(p, u, src, res)
					return d.Cmp(Request(p, res, Options{})) > 0
				},
			})
		}
	}
	return out
}

func rankedCopy(r ranking, pods []*v1.Pod, usage UsageFunc) []*v1.Pod {
	out := slices.Clone(pods)
	r.rank(out, usage)
	return out
}

func samePointers(t *rapid.T, what string, want, got []*v1.Pod) {
	t.Helper()
	if !slices.Equal(want, got) {
		t.Fatalf("%s: got %v, want %v", what, podIDs(got), podIDs(want))
	}
}

func podIDs(pods []*v1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = string(p.UID)
	}
	return out
}

// TestRankProperties checks, for every rank function: the result is a permutation of the
// input; it does not depend on the input order (shuffle invariance); ranking again changes
// nothing (idempotence); every pair is ordered as upstream's comparator chain allows (the
// output is one of upstream's possible outcomes); pods without stats come first in the memory
// and disk rankings, then every pod exceeding its request before every pod that does not; and
// no pod is modified.
func TestRankProperties(t *testing.T) {
	for _, r := range rankings() {
		t.Run(r.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				pods, usage := genScenario(t)
				before := make([]*v1.Pod, len(pods))
				for i, p := range pods {
					before[i] = p.DeepCopy()
				}
				got := rankedCopy(r, pods, usage)

				// Permutation.
				a, b := slices.Clone(pods), slices.Clone(got)
				slices.SortFunc(a, compareIdentity)
				slices.SortFunc(b, compareIdentity)
				samePointers(t, "permutation", a, b)

				// Shuffle invariance.
				perm := rapid.Permutation(pods).Draw(t, "perm")
				samePointers(t, "shuffled input", got, rankedCopy(r, perm, usage))

				// Idempotence.
				samePointers(t, "ranked twice", got, rankedCopy(r, got, usage))

				// One of upstream's outcomes: no later pod is strictly before an earlier one.
				chain := r.chain(usage)
				for i := range got {
					for j := i + 1; j < len(got); j++ {
						if naiveCompare(chain, got[i], got[j]) > 0 {
							t.Fatalf("upstream puts %s before %s; got %v", got[j].UID, got[i].UID, podIDs(got))
						}
					}
				}

				// No stats first, then exceeders before the rest.
				if r.exceeds != nil {
					phase := 0 // 0: no stats, 1: exceeding, 2: within request
					for _, p := range got {
						u, ok := usage(p)
						cur := 0
						if ok {
							cur = 2
							if r.exceeds(p, u) {
								cur = 1
							}
						}
						if cur < phase {
							t.Fatalf("pod %s (class %d) after class %d: %v", p.UID, cur, phase, podIDs(got))
						}
						phase = cur
					}
				}

				// Nothing modified.
				for i, p := range pods {
					if !equalPods(before[i], p) {
						t.Fatalf("pod %s modified", p.UID)
					}
				}
			})
		})
	}
}

func equalPods(a, b *v1.Pod) bool { return reflect.DeepEqual(a, b) }

// TestDeschedulerProperties: permutation, shuffle invariance, idempotence, and the order's
// definition for every adjacent pair.
func TestDeschedulerProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods, _ := genScenario(t)
		got := slices.Clone(pods)
		ByPriorityThenQoS(got, Options{})
		perm := rapid.Permutation(pods).Draw(t, "perm")
		ByPriorityThenQoS(perm, Options{})
		samePointers(t, "shuffled input", got, perm)
		again := slices.Clone(got)
		ByPriorityThenQoS(again, Options{})
		samePointers(t, "ranked twice", got, again)
		for i := 1; i < len(got); i++ {
			a, b := got[i-1], got[i]
			switch {
			case a.Spec.Priority == nil || b.Spec.Priority == nil:
				if a.Spec.Priority != nil {
					t.Fatalf("%s has a priority but precedes nil-priority %s", a.UID, b.UID)
				}
			case *a.Spec.Priority > *b.Spec.Priority:
				t.Fatalf("%s (prio %d) before %s (prio %d)", a.UID, *a.Spec.Priority, b.UID, *b.Spec.Priority)
			}
			samePrio := (a.Spec.Priority == nil && b.Spec.Priority == nil) ||
				(a.Spec.Priority != nil && b.Spec.Priority != nil && *a.Spec.Priority == *b.Spec.Priority)
			if samePrio && qosRank(QOSClass(a, Options{})) > qosRank(QOSClass(b, Options{})) {
				t.Fatalf("%s (%s) before %s (%s)", a.UID, QOSClass(a, Options{}), b.UID, QOSClass(b, Options{}))
			}
		}
	})
}

// TestQOSGuaranteedLaw: a pod whose every container has equal, non-zero cpu and memory
// requests and limits (other resources arbitrary) is Guaranteed, computed or defaulted.
func TestQOSGuaranteedLaw(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nonZero := func(label string) resource.Quantity {
			return *resource.NewMilliQuantity(rapid.Int64Range(1, 1<<40).Draw(t, label), resource.DecimalSI)
		}
		mk := func(name string) v1.Container {
			cpu, mem := nonZero(name+"-cpu"), nonZero(name+"-mem")
			req := v1.ResourceList{v1.ResourceCPU: cpu, v1.ResourceMemory: mem}
			lim := v1.ResourceList{v1.ResourceCPU: cpu.DeepCopy(), v1.ResourceMemory: mem.DeepCopy()}
			if rapid.Bool().Draw(t, name+"-storage") {
				req[v1.ResourceEphemeralStorage] = genQuantity(t, name+"-es")
			}
			return ctr(name, req, lim)
		}
		p := mkPod("p")
		for i := range rapid.IntRange(1, 3).Draw(t, "containers") {
			p.Spec.Containers = append(p.Spec.Containers, mk(fmt.Sprintf("c%d", i)))
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "inits") {
			c := mk(fmt.Sprintf("i%d", i))
			if rapid.Bool().Draw(t, "sidecar") {
				always := v1.ContainerRestartPolicyAlways
				c.RestartPolicy = &always
			}
			p.Spec.InitContainers = append(p.Spec.InitContainers, c)
		}
		if got := ComputeQOSClass(p, Options{}); got != v1.PodQOSGuaranteed {
			t.Fatalf("ComputeQOSClass = %s", got)
		}
		if got := QOSClass(p, Options{}); got != v1.PodQOSGuaranteed {
			t.Fatalf("QOSClass = %s", got)
		}
	})
}

// TestQOSProperties: QOSClass equals ComputeQOSClass of the defaulted pod, defaulting is
// idempotent, and neither modifies its input.
func TestQOSProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPod(t, 0)
		before := p.DeepCopy()
		opts := Options{
			DisablePodLevelResources:                   rapid.Bool().Draw(t, "gate-off"),
			DisablePodLevelResourcesFixKubeletQOSClass: rapid.Bool().Draw(t, "qos-fix-off"),
			DisablePodLevelResourcesFixDefaulting:      rapid.Bool().Draw(t, "defaulting-fix-off"),
		}
		d := DefaultedRequests(p, opts)
		if got, want := QOSClass(p, opts), ComputeQOSClass(d, opts); got != want {
			t.Fatalf("QOSClass = %s, ComputeQOSClass(defaulted) = %s", got, want)
		}
		if !equalPods(d, DefaultedRequests(d, opts)) {
			t.Fatalf("defaulting not idempotent")
		}
		if !equalPods(before, p) {
			t.Fatalf("pod modified")
		}
	})
}
