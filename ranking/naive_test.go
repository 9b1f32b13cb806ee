package ranking

import (
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/thresholds"
)

// The naive ranking below follows upstream's structure (pkg/kubelet/eviction helpers.go
// multiSorter): a chain of comparators that look up stats and recompute requests and usage
// inside every comparison. It is the reference the property tests check the fast ranking
// against and the baseline of the benchmarks. It is written independently of the keyed
// implementation: usage is summed here with plain Quantity arithmetic.

type naiveCmp func(p1, p2 *v1.Pod) int

type naiveSorter struct {
	pods []*v1.Pod
	cmps []naiveCmp
}

func (s *naiveSorter) Len() int      { return len(s.pods) }
func (s *naiveSorter) Swap(i, j int) { s.pods[i], s.pods[j] = s.pods[j], s.pods[i] }
func (s *naiveSorter) Less(i, j int) bool {
	p1, p2 := s.pods[i], s.pods[j]
	k := 0
	for ; k < len(s.cmps)-1; k++ {
		if c := s.cmps[k](p1, p2); c != 0 {
			return c < 0
		}
	}
	return s.cmps[k](p1, p2) < 0
}

func naiveBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	default:
		return 1
	}
}

func naivePriority(p1, p2 *v1.Pod) int {
	a, b := Priority(p1), Priority(p2)
	switch {
	case a == b:
		return 0
	case a > b:
		return 1
	default:
		return -1
	}
}

func naiveUsage(q uint64) resource.Quantity {
	return *resource.NewQuantity(int64(q), resource.BinarySI)
}

// naiveWithStats opens cmp with the check every stats comparator of upstream starts with:
// a pod without stats sorts before one with stats; cmp compares pods that both have them.
func naiveWithStats(usage UsageFunc, cmp func(p1 *v1.Pod, u1 Usage, p2 *v1.Pod, u2 Usage) int) naiveCmp {
	return func(p1, p2 *v1.Pod) int {
		u1, ok1 := usage(p1)
		u2, ok2 := usage(p2)
		if !ok1 || !ok2 {
			return naiveBool(!ok1, !ok2)
		}
		return cmp(p1, u1, p2, u2)
	}
}

func naiveExceedMemory(usage UsageFunc) naiveCmp {
	return naiveWithStats(usage, func(p1 *v1.Pod, u1 Usage, p2 *v1.Pod, u2 Usage) int {
		m1, m2 := naiveUsage(u1.MemoryWorkingSet), naiveUsage(u2.MemoryWorkingSet)
		return naiveBool(m1.Cmp(Request(p1, v1.ResourceMemory, Options{})) == 1, m2.Cmp(Request(p2, v1.ResourceMemory, Options{})) == 1)
	})
}

func naiveMemory(usage UsageFunc) naiveCmp {
	return naiveWithStats(usage, func(p1 *v1.Pod, u1 Usage, p2 *v1.Pod, u2 Usage) int {
		m1, m2 := naiveUsage(u1.MemoryWorkingSet), naiveUsage(u2.MemoryWorkingSet)
		m1.Sub(Request(p1, v1.ResourceMemory, Options{}))
		m2.Sub(Request(p2, v1.ResourceMemory, Options{}))
		return m2.Cmp(m1)
	})
}

func naiveProcess(usage UsageFunc) naiveCmp {
	return naiveWithStats(usage, func(p1 *v1.Pod, u1 Usage, p2 *v1.Pod, u2 Usage) int {
		return int(u2.Processes - u1.Processes)
	})
}

// naiveDiskUsage sums the figures upstream's podDiskUsage sums.
func naiveDiskUsage(pod *v1.Pod, u Usage, src Sources, res v1.ResourceName) resource.Quantity {
	var bytes, inodes resource.Quantity
	add := func(f FSUsage) {
		bytes.Add(naiveUsage(f.UsedBytes))
		inodes.Add(naiveUsage(f.InodesUsed))
	}
	for _, c := range u.Containers {
		if src&SourceRoot != 0 {
			add(c.Rootfs)
		}
		if src&SourceLogs != 0 {
			add(c.Logs)
		}
	}
	if src&SourceLocalVolumes != 0 {
		for _, v := range pod.Spec.Volumes {
			local := v.HostPath != nil || v.GitRepo != nil || v.ConfigMap != nil ||
				(v.EmptyDir != nil && v.EmptyDir.Medium == "")
			if !local {
				continue
			}
			for _, vs := range u.Volumes {
				if vs.Name == v.Name {
					add(vs.FSUsage)
					break
				}
			}
		}
	}
	switch res {
	case v1.ResourceEphemeralStorage:
		return bytes
	case thresholds.ResourceInodes:
		return inodes
	default:
		return resource.Quantity{}
	}
}

func naiveExceedDisk(usage UsageFunc, src Sources, res v1.ResourceName) naiveCmp {
	return naiveWithStats(usage, func(p1 *v1.Pod, u1 Usage, p2 *v1.Pod, u2 Usage) int {
		d1, d2 := naiveDiskUsage(p1, u1, src, res), naiveDiskUsage(p2, u2, src, res)
		return naiveBool(d1.Cmp(Request(p1, res, Options{})) == 1, d2.Cmp(Request(p2, res, Options{})) == 1)
	})
}

func naiveDisk(usage UsageFunc, src Sources, res v1.ResourceName) naiveCmp {
	return naiveWithStats(usage, func(p1 *v1.Pod, u1 Usage, p2 *v1.Pod, u2 Usage) int {
		d1, d2 := naiveDiskUsage(p1, u1, src, res), naiveDiskUsage(p2, u2, src, res)
		d1.Sub(Request(p1, v1.ResourceEphemeralStorage, Options{}))
		d2.Sub(Request(p2, v1.ResourceEphemeralStorage, Options{}))
		return d2.Cmp(d1)
	})
}

func naiveMemoryChain(usage UsageFunc) []naiveCmp {
	return []naiveCmp{naiveExceedMemory(usage), naivePriority, naiveMemory(usage)}
}

func naivePIDChain(usage UsageFunc) []naiveCmp {
	return []naiveCmp{naivePriority, naiveProcess(usage)}
}

func naiveDiskChain(usage UsageFunc, src Sources, res v1.ResourceName) []naiveCmp {
	return []naiveCmp{naiveExceedDisk(usage, src, res), naivePriority, naiveDisk(usage, src, res)}
}

// naiveSort sorts pods the way upstream does (sort.Sort over the chain).
func naiveSort(pods []*v1.Pod, cmps []naiveCmp) {
	sort.Sort(&naiveSorter{pods: pods, cmps: cmps})
}

// naiveCompare applies the chain to one pair as multiSorter.Less would decide it, returning
// -1, 0 or 1 (0 when neither is less).
func naiveCompare(cmps []naiveCmp, p1, p2 *v1.Pod) int {
	s := &naiveSorter{pods: []*v1.Pod{p1, p2}, cmps: cmps}
	switch {
	case s.Less(0, 1):
		return -1
	case s.Less(1, 0):
		return 1
	default:
		return 0
	}
}
