package ranking

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/thresholds"
)

// benchPods builds n pods that look like a busy node's: one to three containers with requests
// (some without), an init container or sidecar now and then, a few priorities, local volumes,
// and stats for all but one pod in fifty. The input order is random but fixed.
func benchPods(n int) ([]*v1.Pod, UsageFunc) {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	prios := []int32{-100, 0, 0, 0, 1000, 100000}
	m := make(map[types.UID]Usage, n)
	pods := make([]*v1.Pod, n)
	for i := range pods {
		p := mkPod(fmt.Sprintf("pod-%05d", i))
		p.Namespace = fmt.Sprintf("ns-%d", r.IntN(20))
		prio := prios[r.IntN(len(prios))]
		p.Spec.Priority = &prio
		u := Usage{MemoryWorkingSet: uint64(r.IntN(2048)) << 20, Processes: uint64(r.IntN(500))}
		for j := range 1 + r.IntN(3) {
			name := fmt.Sprintf("c%d", j)
			var req v1.ResourceList
			if r.IntN(4) > 0 {
				req = v1.ResourceList{
					v1.ResourceCPU:              *resource.NewMilliQuantity(int64(100*(1+r.IntN(10))), resource.DecimalSI),
					v1.ResourceMemory:           *resource.NewQuantity(int64(r.IntN(1024))<<20, resource.BinarySI),
					v1.ResourceEphemeralStorage: *resource.NewQuantity(int64(r.IntN(4))<<30, resource.BinarySI),
				}
			}
			p.Spec.Containers = append(p.Spec.Containers, ctr(name, req, req))
			u.Containers = append(u.Containers, ContainerUsage{Name: name, MemoryWorkingSet: uint64(r.IntN(512)) << 20,
				Rootfs: FSUsage{UsedBytes: uint64(r.IntN(4096)) << 20, InodesUsed: uint64(r.IntN(100000))},
				Logs:   FSUsage{UsedBytes: uint64(r.IntN(512)) << 20, InodesUsed: uint64(r.IntN(100))}})
		}
		if r.IntN(5) == 0 {
			c := ctr("init", rl("memory", "256Mi", "ephemeral-storage", "1Gi"), nil)
			if r.IntN(2) == 0 {
				always := v1.ContainerRestartPolicyAlways
				c.RestartPolicy = &always
			}
			p.Spec.InitContainers = append(p.Spec.InitContainers, c)
		}
		p.Spec.Volumes = []v1.Volume{emptyDirVol("scratch", "", ""), secretVol("token")}
		u.Volumes = []VolumeUsage{{Name: "token", FSUsage: FSUsage{UsedBytes: 4096, InodesUsed: 3}},
			{Name: "scratch", FSUsage: FSUsage{UsedBytes: uint64(r.IntN(1024)) << 20, InodesUsed: uint64(r.IntN(1000))}}}
		if r.IntN(50) > 0 {
			m[p.UID] = u
		}
		pods[i] = p
	}
	return pods, UsageByUID(m)
}

var benchSizes = []int{110, 1000, 10000}

// benchRank runs rank over a fresh copy of the input each iteration; the copy is O(n) and the
// same for every variant.
func benchRank(b *testing.B, rank func([]*v1.Pod, UsageFunc)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			pods, usage := benchPods(n)
			work := make([]*v1.Pod, n)
			b.ReportAllocs()
			for b.Loop() {
				copy(work, pods)
				rank(work, usage)
			}
		})
	}
}

func BenchmarkForMemory(b *testing.B) {
	benchRank(b, func(p []*v1.Pod, u UsageFunc) { ForMemory(p, u, Options{}) })
}

func BenchmarkForDisk(b *testing.B) {
	benchRank(b, func(p []*v1.Pod, u UsageFunc) {
		ForDisk(p, u, v1.ResourceEphemeralStorage, thresholds.NodeFs, thresholds.Layout{}, Options{})
	})
}

func BenchmarkForDiskInodes(b *testing.B) {
	benchRank(b, func(p []*v1.Pod, u UsageFunc) {
		ForDisk(p, u, thresholds.ResourceInodes, thresholds.NodeFs, thresholds.Layout{}, Options{})
	})
}

func BenchmarkForPIDs(b *testing.B) { benchRank(b, ForPIDs) }

func BenchmarkByPriorityThenQoS(b *testing.B) {
	benchRank(b, func(p []*v1.Pod, _ UsageFunc) { ByPriorityThenQoS(p, Options{}) })
}

// The baselines rank the same pods the way upstream does: sort.Sort over a comparator chain
// that recomputes requests and usage in every comparison (see naive_test.go). The conformance
// module measures upstream's own code side by side.

func BenchmarkNaiveForMemory(b *testing.B) {
	benchRank(b, func(p []*v1.Pod, u UsageFunc) { naiveSort(p, naiveMemoryChain(u)) })
}

func BenchmarkNaiveForDisk(b *testing.B) {
	src := DiskSources(thresholds.NodeFs, thresholds.Layout{})
	benchRank(b, func(p []*v1.Pod, u UsageFunc) { naiveSort(p, naiveDiskChain(u, src, v1.ResourceEphemeralStorage)) })
}

func BenchmarkNaiveForPIDs(b *testing.B) {
	benchRank(b, func(p []*v1.Pod, u UsageFunc) { naiveSort(p, naivePIDChain(u)) })
}

func BenchmarkQOSClass(b *testing.B) {
	pods, _ := benchPods(110)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pods {
			QOSClass(p, Options{})
		}
	}
}

// BenchmarkSortWords compares the two sorts of packed words that radixPays chooses between, on
// n random words whose top width bits vary above their positions.
func BenchmarkSortWords(b *testing.B) {
	for _, n := range []int{256, 1000, 4000, 10000} {
		for _, width := range []uint{16, 24, 32, 48} {
			r := rand.New(rand.NewPCG(uint64(n), uint64(width)))
			from := uint(bits.Len(uint(n - 1)))
			in := make([]uint64, n)
			for i := range in {
				in[i] = r.Uint64N(1<<width)<<from | uint64(i)
			}
			work := make([]uint64, n)
			name := fmt.Sprintf("n=%d/width=%d", n, width)
			b.Run(name+"/radix", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					copy(work, in)
					radixSort(work, from, width)
				}
			})
			b.Run(name+"/slices", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					copy(work, in)
					slices.Sort(work)
				}
			})
		}
	}
}
