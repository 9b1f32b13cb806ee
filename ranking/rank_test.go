package ranking

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/thresholds"
)

// mib is n mebibytes (n may be negative only where the caller adds it to a larger value).
func mib(n int64) uint64 { return uint64(n << 20) }

// rootLogs is usage split over one container's rootfs and logs.
func rootLogs(root, logs uint64) Usage {
	return Usage{Containers: []ContainerUsage{{Name: "c", Rootfs: FSUsage{UsedBytes: root}, Logs: FSUsage{UsedBytes: logs}}}}
}

// shuffled returns pods in a fixed scrambled order (reversed, then rotated).
func shuffled(pods ...*v1.Pod) []*v1.Pod {
	out := slices.Clone(pods)
	slices.Reverse(out)
	if len(out) > 2 {
		out = append(out[1:], out[0])
	}
	return out
}

// TestForMemorySpec covers the memory ranking: exceeders first, then priority, then usage
// above request, and a full ranking of the kubelet's own example.
func TestForMemorySpec(t *testing.T) {
	t.Run("exceeders first", func(t *testing.T) {
		pods := []*v1.Pod{memPod("A", "200Mi"), memPod("B", "100Mi")}
		usage := usageMap(map[string]Usage{"A": {MemoryWorkingSet: mib(199)}, "B": {MemoryWorkingSet: mib(101)}})
		ForMemory(pods, usage, Options{})
		mustEqualNames(t, []string{"B", "A"}, pods)
	})
	t.Run("exceeding beats priority", func(t *testing.T) {
		pods := []*v1.Pod{memPod("A", "200Mi"), memPod("B", "100Mi", priority(1000))}
		usage := usageMap(map[string]Usage{"A": {MemoryWorkingSet: mib(199)}, "B": {MemoryWorkingSet: mib(101)}})
		ForMemory(pods, usage, Options{})
		mustEqualNames(t, []string{"B", "A"}, pods)
	})
	t.Run("priority, nil as 0", func(t *testing.T) {
		pods := []*v1.Pod{memPod("high", "", priority(12534)), memPod("one", "", priority(1)), memPod("neg", "", priority(-134)),
			memPod("nil", ""), memPod("zero", "", priority(0))}
		usage := usageMap(map[string]Usage{"high": {}, "one": {}, "neg": {}, "nil": {}, "zero": {}})
		ForMemory(pods, usage, Options{})
		mustEqualNames(t, []string{"neg", "nil", "zero", "one", "high"}, pods)
	})
	t.Run("usage minus request", func(t *testing.T) {
		diffs := []int64{500, 300, 700, 200, -200, -800}
		var pods []*v1.Pod
		m := map[string]Usage{}
		for i, d := range diffs {
			name := fmt.Sprint(i + 1)
			pods = append(pods, memPod(name, "1Gi"))
			m[name] = Usage{MemoryWorkingSet: mib(1024 + d)}
		}
		ForMemory(pods, usageMap(m), Options{})
		mustEqualNames(t, []string{"3", "1", "2", "4", "5", "6"}, pods)
	})
	t.Run("full rank", func(t *testing.T) {
		type row struct {
			name string
			prio int32
			diff int64
		}
		rows := []row{
			{"low-over-500", 0, 500}, {"low-over-50", 0, 50},
			{"high-over-500", 1000, 500}, {"high-over-50", 1000, 50},
			{"low-under-200", 0, -200}, {"low-under-800", 0, -800},
			{"high-under-200", 1000, -200}, {"high-under-800", 1000, -800},
		}
		var pods []*v1.Pod
		m := map[string]Usage{}
		var want []string
		for _, r := range rows {
			pods = append(pods, memPod(r.name, "1Gi", priority(r.prio)))
			m[r.name] = Usage{MemoryWorkingSet: mib(1024 + r.diff)}
			want = append(want, r.name)
		}
		pods = shuffled(pods...)
		ForMemory(pods, usageMap(m), Options{})
		mustEqualNames(t, want, pods)
	})
	t.Run("evict the low-priority best-effort pod", func(t *testing.T) {
		g := mkPod("guaranteed", priority(-1), containers(ctr("c", rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"))))
		b1 := mkPod("burstable-under", priority(0), containers(ctr("c", rl("memory", "100Mi"), nil)))
		b2 := mkPod("burstable-over", priority(0), containers(ctr("c", rl("memory", "100Mi"), nil)))
		e1 := mkPod("besteffort-1", priority(1), containers(ctr("c", nil, nil)))
		e2 := mkPod("besteffort-neg", priority(-1), containers(ctr("c", nil, nil)))
		usage := usageMap(map[string]Usage{
			"guaranteed": {MemoryWorkingSet: mib(900)}, "burstable-under": {MemoryWorkingSet: mib(50)},
			"burstable-over": {MemoryWorkingSet: mib(400)}, "besteffort-1": {MemoryWorkingSet: mib(400)},
			"besteffort-neg": {MemoryWorkingSet: mib(100)},
		})
		pods := []*v1.Pod{g, b1, b2, e1, e2}
		ForMemory(pods, usage, Options{})
		victim, ok := Victim(pods)
		require.True(t, ok)
		assert.Equal(t, "besteffort-neg", victim.Name)
		mustEqualNames(t, []string{"besteffort-neg", "burstable-over", "besteffort-1", "guaranteed", "burstable-under"}, pods)
	})
}

// TestForDiskSpec covers the disk ranking: exceeders first, usage over root, logs and local
// volumes, inodes and the inode quirk.
func TestForDiskSpec(t *testing.T) {
	t.Run("ephemeral exceeders first", func(t *testing.T) {
		pods := []*v1.Pod{storagePod("A", "200Mi"), storagePod("B", "100Mi")}
		usage := usageMap(map[string]Usage{"A": rootLogs(mib(100), mib(99)), "B": rootLogs(mib(90), mib(11))})
		ForDisk(pods, usage, v1.ResourceEphemeralStorage, thresholds.NodeFs, thresholds.Layout{}, Options{})
		mustEqualNames(t, []string{"B", "A"}, pods)
	})
	t.Run("usage minus request over root, logs and local volumes", func(t *testing.T) {
		nets := []int64{300, 100, 250, 10, -25, -280}
		var pods []*v1.Pod
		m := map[string]Usage{}
		for i, n := range nets {
			name := fmt.Sprint(i + 1)
			pods = append(pods, storagePod(name, "1Gi", volumes(hostPathVol("local"), secretVol("secret"))))
			total := 1024 + n
			u := rootLogs(mib(total/2), mib(total/4))
			u.Volumes = []VolumeUsage{{Name: "secret", FSUsage: FSUsage{UsedBytes: mib(5000)}},
				{Name: "local", FSUsage: FSUsage{UsedBytes: mib(total - total/2 - total/4)}}}
			m[name] = u
		}
		ForDisk(pods, usageMap(m), v1.ResourceEphemeralStorage, thresholds.NodeFs, thresholds.Layout{}, Options{})
		mustEqualNames(t, []string{"1", "3", "2", "4", "5", "6"}, pods)
	})
	t.Run("full rank", func(t *testing.T) {
		type row struct {
			name string
			prio int32
			req  string
			use  int64 // MiB
		}
		rows := []row{
			{"1", 0, "", 500}, {"2", 0, "100Mi", 150},
			{"3", 1000, "1Gi", 1024 + 500}, {"4", 1000, "", 50},
			{"5", 0, "1Gi", 1024 - 200}, {"6", 0, "1Gi", 1024 - 800},
			{"7", 1000, "100Mi", 50}, {"8", 1000, "1Gi", 1024 - 800},
		}
		var pods []*v1.Pod
		m := map[string]Usage{}
		for _, r := range rows {
			pods = append(pods, storagePod(r.name, r.req, priority(r.prio)))
			m[r.name] = rootLogs(mib(r.use), 0)
		}
		pods = shuffled(pods...)
		ForDisk(pods, usageMap(m), v1.ResourceEphemeralStorage, thresholds.NodeFs, thresholds.Layout{}, Options{})
		mustEqualNames(t, []string{"1", "2", "3", "4", "5", "6", "7", "8"}, pods)
	})
	t.Run("inodes", func(t *testing.T) {
		pods := []*v1.Pod{storagePod("200000", ""), storagePod("300000", ""), storagePod("400000", "")}
		inodes := func(n uint64) Usage {
			return Usage{Containers: []ContainerUsage{{Name: "c", Rootfs: FSUsage{InodesUsed: n / 2}, Logs: FSUsage{InodesUsed: n / 2}}}}
		}
		usage := usageMap(map[string]Usage{"200000": inodes(200000), "300000": inodes(300000), "400000": inodes(400000)})
		ForDisk(pods, usage, thresholds.ResourceInodes, thresholds.NodeFs, thresholds.Layout{}, Options{})
		mustEqualNames(t, []string{"400000", "300000", "200000"}, pods)
	})
	t.Run("inode quirk: bytes of request subtracted from inodes", func(t *testing.T) {
		// Upstream subtracts the ephemeral-storage request (bytes) from the inode count, so A
		// (10 inodes − 1Gi) sorts after B (5 inodes); both "exceed" their zero inode request.
		pods := []*v1.Pod{storagePod("A", "1Gi"), storagePod("B", "")}
		usage := usageMap(map[string]Usage{
			"A": {Containers: []ContainerUsage{{Name: "c", Rootfs: FSUsage{InodesUsed: 10}}}},
			"B": {Containers: []ContainerUsage{{Name: "c", Rootfs: FSUsage{InodesUsed: 5}}}},
		})
		ForDisk(pods, usage, thresholds.ResourceInodes, thresholds.NodeFs, thresholds.Layout{}, Options{})
		mustEqualNames(t, []string{"B", "A"}, pods)
	})
	t.Run("any pod using an inode exceeds", func(t *testing.T) {
		pods := []*v1.Pod{storagePod("none", "", priority(-10)), storagePod("one", "", priority(10))}
		usage := usageMap(map[string]Usage{
			"none": {},
			"one":  {Containers: []ContainerUsage{{Name: "c", Logs: FSUsage{InodesUsed: 1}}}},
		})
		ForDisk(pods, usage, thresholds.ResourceInodes, thresholds.NodeFs, thresholds.Layout{}, Options{})
		mustEqualNames(t, []string{"one", "none"}, pods)
	})
}

// TestForPIDsSpec covers the PID ranking: priority, then pods without stats, then processes.
func TestForPIDsSpec(t *testing.T) {
	t.Run("priority then processes", func(t *testing.T) {
		pods := shuffled(mkPod("-1/20", priority(-1)), mkPod("-1/6", priority(-1)), mkPod("1/20", priority(1)), mkPod("1/5", priority(1)))
		usage := usageMap(map[string]Usage{"-1/20": {Processes: 20}, "-1/6": {Processes: 6}, "1/20": {Processes: 20}, "1/5": {Processes: 5}})
		ForPIDs(pods, usage)
		mustEqualNames(t, []string{"-1/20", "-1/6", "1/20", "1/5"}, pods)
	})
	t.Run("victim", func(t *testing.T) {
		pods := []*v1.Pod{mkPod("1:900", priority(1)), mkPod("0:100", priority(0)), mkPod("0:400", priority(0)),
			mkPod("-1:600", priority(-1)), mkPod("-1:50", priority(-1))}
		usage := usageMap(map[string]Usage{"1:900": {Processes: 900}, "0:100": {Processes: 100}, "0:400": {Processes: 400},
			"-1:600": {Processes: 600}, "-1:50": {Processes: 50}})
		ForPIDs(pods, usage)
		v, ok := Victim(pods)
		require.True(t, ok)
		assert.Equal(t, "-1:600", v.Name)
	})
	t.Run("counts beyond int64 compare exactly", func(t *testing.T) {
		// Upstream computes int(p2-p1) on uint64 counts, which misorders differences of 2^63
		// or more; such counts cannot occur, and the library compares them exactly.
		pods := []*v1.Pod{mkPod("small"), mkPod("huge"), mkPod("huger")}
		usage := usageMap(map[string]Usage{"small": {Processes: 1}, "huge": {Processes: 1 << 63}, "huger": {Processes: math.MaxUint64}})
		ForPIDs(pods, usage)
		mustEqualNames(t, []string{"huger", "huge", "small"}, pods)
	})
}

// TestMissingStats covers pods without stats, which every ranking but PIDs puts first.
func TestMissingStats(t *testing.T) {
	t.Run("memory: missing first whatever the priority", func(t *testing.T) {
		pods := []*v1.Pod{memPod("hog", "", priority(-100)), memPod("missing", "1Gi", priority(100))}
		usage := usageMap(map[string]Usage{"hog": {MemoryWorkingSet: mib(5000)}})
		ForMemory(pods, usage, Options{})
		mustEqualNames(t, []string{"missing", "hog"}, pods)
	})
	t.Run("memory: both missing tie, priority still orders", func(t *testing.T) {
		pods := []*v1.Pod{memPod("b", "", priority(5)), memPod("a", "", priority(5)), memPod("c", "", priority(-5))}
		ForMemory(pods, usageMap(nil), Options{})
		mustEqualNames(t, []string{"c", "a", "b"}, pods)
	})
	t.Run("disk: missing first", func(t *testing.T) {
		pods := []*v1.Pod{storagePod("hog", "", priority(-100)), storagePod("missing", "", priority(100))}
		usage := usageMap(map[string]Usage{"hog": rootLogs(mib(5000), 0)})
		ForDisk(pods, usage, v1.ResourceEphemeralStorage, thresholds.NodeFs, thresholds.Layout{}, Options{})
		mustEqualNames(t, []string{"missing", "hog"}, pods)
	})
	t.Run("pids: missing first within a priority", func(t *testing.T) {
		pods := []*v1.Pod{mkPod("low-hog", priority(-1)), mkPod("high-missing", priority(1)), mkPod("high-hog", priority(1))}
		usage := usageMap(map[string]Usage{"low-hog": {Processes: 10}, "high-hog": {Processes: 1000}})
		ForPIDs(pods, usage)
		mustEqualNames(t, []string{"low-hog", "high-missing", "high-hog"}, pods)
	})
	t.Run("nil usage func and nil pods", func(t *testing.T) {
		// No pod has stats; a nil pod has priority 0, no priority for the descheduler, and
		// sorts first among its ties.
		a, b := memPod("a", "", priority(-1)), memPod("b", "")
		kubelet := []*v1.Pod{a, nil, b}
		for name, rank := range map[string]func([]*v1.Pod){
			"memory": func(p []*v1.Pod) { ForMemory(p, nil, Options{}) },
			"disk": func(p []*v1.Pod) {
				ForDisk(p, nil, v1.ResourceEphemeralStorage, thresholds.NodeFs, thresholds.Layout{}, Options{})
			},
			"pids": func(p []*v1.Pod) { ForPIDs(p, nil) },
		} {
			pods := []*v1.Pod{b, nil, a}
			rank(pods)
			require.Equal(t, kubelet, pods, name)
		}
		pods := []*v1.Pod{a, b, nil}
		ByPriorityThenQoS(pods, Options{})
		require.Equal(t, []*v1.Pod{nil, b, a}, pods, "descheduler")
		ForMemory(nil, nil, Options{}) // an empty slice is fine
	})
}

// TestLayouts covers the disk rankings of a dedicated image filesystem, split or not.
func TestLayouts(t *testing.T) {
	imagefs := thresholds.Layout{DedicatedImageFs: true}
	split := thresholds.Layout{DedicatedImageFs: true, SplitContainerImageFs: true}
	usage := usageMap(map[string]Usage{"A": rootLogs(mib(900), 0), "B": rootLogs(0, mib(50))})
	rank := func(layout thresholds.Layout, fs thresholds.Filesystem) []*v1.Pod {
		pods := []*v1.Pod{storagePod("A", ""), storagePod("B", "")}
		ForDisk(pods, usage, v1.ResourceEphemeralStorage, fs, layout, Options{})
		return pods
	}
	t.Run("imagefs not split: nodefs sees logs", func(t *testing.T) {
		mustEqualNames(t, []string{"B", "A"}, rank(imagefs, thresholds.NodeFs))
	})
	t.Run("imagefs not split: imagefs and containerfs see rootfs", func(t *testing.T) {
		mustEqualNames(t, []string{"A", "B"}, rank(imagefs, thresholds.ImageFs))
		mustEqualNames(t, []string{"A", "B"}, rank(imagefs, thresholds.ContainerFs))
	})
	t.Run("no imagefs: everything counts", func(t *testing.T) {
		mustEqualNames(t, []string{"A", "B"}, rank(thresholds.Layout{}, thresholds.ImageFs))
	})
	t.Run("split: containerfs sees rootfs and logs", func(t *testing.T) {
		mustEqualNames(t, []string{"A", "B"}, rank(split, thresholds.ContainerFs))
	})
	t.Run("split: imagefs sees nothing, smallest request first", func(t *testing.T) {
		pods := []*v1.Pod{storagePod("A", "1Gi"), storagePod("B", "")}
		u := usageMap(map[string]Usage{"A": rootLogs(mib(900), mib(900)), "B": rootLogs(0, 0)})
		ForDisk(pods, u, v1.ResourceEphemeralStorage, thresholds.ImageFs, split, Options{})
		mustEqualNames(t, []string{"B", "A"}, pods)
	})
}

// TestTies covers pods that tie on every criterion. Upstream sorts with sort.Sort: for up to 12 pods that is an
// insertion sort, which keeps tied pods in input order; for more the order of ties is
// unspecified. The library breaks ties by namespace, name and UID (one of upstream's possible
// outcomes, the same for any input order) and only then by input order.
func TestTies(t *testing.T) {
	for _, n := range []int{3, 20} {
		t.Run(fmt.Sprintf("%d identical pods keep input order", n), func(t *testing.T) {
			base := memPod("same", "100Mi")
			pods := make([]*v1.Pod, n)
			for i := range pods {
				pods[i] = base.DeepCopy()
			}
			in := slices.Clone(pods)
			usage := usageMap(map[string]Usage{"same": {MemoryWorkingSet: mib(50)}})
			for _, rank := range []func([]*v1.Pod){
				func(p []*v1.Pod) { ForMemory(p, usage, Options{}) },
				func(p []*v1.Pod) {
					ForDisk(p, usage, v1.ResourceEphemeralStorage, thresholds.NodeFs, thresholds.Layout{}, Options{})
				},
				func(p []*v1.Pod) { ForPIDs(p, usage) },
				func(p []*v1.Pod) { ByPriorityThenQoS(p, Options{}) },
			} {
				rank(pods)
				for i := range pods {
					require.Same(t, in[i], pods[i], "position %d", i)
				}
			}
		})
		t.Run(fmt.Sprintf("%d pods tied on every criterion sort by namespace, name, UID", n), func(t *testing.T) {
			var pods []*v1.Pod
			var want []string
			m := map[string]Usage{}
			for i := range n {
				name := fmt.Sprintf("pod-%02d", i)
				pods = append(pods, memPod(name, "100Mi"))
				want = append(want, name)
				m[name] = Usage{MemoryWorkingSet: mib(50)}
			}
			pods = shuffled(pods...)
			ForMemory(pods, usageMap(m), Options{})
			mustEqualNames(t, want, pods)
		})
	}
	t.Run("namespace before name before UID", func(t *testing.T) {
		a := mkPod("b")
		a.Namespace = "a"
		b := mkPod("a")
		b.Namespace = "b"
		c1 := mkPod("c")
		c1.Namespace, c1.UID = "b", "2"
		c2 := mkPod("c")
		c2.Namespace, c2.UID = "b", "1"
		pods := []*v1.Pod{c1, c2, b, a}
		ForPIDs(pods, nil)
		require.Equal(t, []*v1.Pod{a, b, c2, c1}, pods)
	})
}

// TestExactQuantities checks that fractional and out-of-range values compare exactly, as
// upstream's Quantity arithmetic does.
func TestExactQuantities(t *testing.T) {
	t.Run("fractional requests", func(t *testing.T) {
		// A: 101 > 100.5 exceeds; B: 101 = 101 does not.
		pods := []*v1.Pod{memPod("B", "101", priority(-5)), memPod("A", "100500m", priority(5))}
		usage := usageMap(map[string]Usage{"A": {MemoryWorkingSet: 101}, "B": {MemoryWorkingSet: 101}})
		ForMemory(pods, usage, Options{})
		mustEqualNames(t, []string{"A", "B"}, pods)
	})
	t.Run("sub-byte differences", func(t *testing.T) {
		// A: 100 − 99.5 = 0.5 beats B: 100 − 99.7 = 0.3, although both round up to 1.
		pods := []*v1.Pod{memPod("B", "99700m"), memPod("A", "99500m"), memPod("C", "99")}
		usage := usageMap(map[string]Usage{"A": {MemoryWorkingSet: 100}, "B": {MemoryWorkingSet: 100}, "C": {MemoryWorkingSet: 100}})
		ForMemory(pods, usage, Options{})
		mustEqualNames(t, []string{"C", "A", "B"}, pods)
	})
	t.Run("sums beyond int64 do not wrap", func(t *testing.T) {
		// Upstream adds each figure as an int64 Quantity and the sum goes to big-decimal form.
		pods := []*v1.Pod{storagePod("max", ""), storagePod("beyond", "")}
		usage := usageMap(map[string]Usage{
			"max":    rootLogs(0, math.MaxInt64),
			"beyond": rootLogs(1<<62, 1<<62),
		})
		ForDisk(pods, usage, v1.ResourceEphemeralStorage, thresholds.NodeFs, thresholds.Layout{}, Options{})
		mustEqualNames(t, []string{"beyond", "max"}, pods)
	})
	t.Run("a single figure of 2^63 or more wraps negative, as upstream", func(t *testing.T) {
		// Upstream converts each uint64 statistic with int64(...), so 2^63 bytes read as −2^63.
		pods := []*v1.Pod{memPod("wrapped", ""), memPod("small", "")}
		usage := usageMap(map[string]Usage{"wrapped": {MemoryWorkingSet: 1 << 63}, "small": {MemoryWorkingSet: 1}})
		ForMemory(pods, usage, Options{})
		mustEqualNames(t, []string{"small", "wrapped"}, pods)
	})
	t.Run("huge requests", func(t *testing.T) {
		pods := []*v1.Pod{memPod("huge", "100E"), memPod("huger", "1000E"), memPod("small", "1")}
		usage := usageMap(map[string]Usage{"huge": {}, "huger": {}, "small": {}})
		ForMemory(pods, usage, Options{})
		mustEqualNames(t, []string{"small", "huge", "huger"}, pods)
	})
}

func TestForSignal(t *testing.T) {
	usage := usageMap(map[string]Usage{
		"A": {MemoryWorkingSet: mib(10), Processes: 1, Containers: []ContainerUsage{{Name: "c", Rootfs: FSUsage{UsedBytes: mib(900), InodesUsed: 1}}}},
		"B": {MemoryWorkingSet: mib(20), Processes: 2, Containers: []ContainerUsage{{Name: "c", Logs: FSUsage{UsedBytes: mib(50), InodesUsed: 2}}}},
	})
	imagefs := thresholds.Layout{DedicatedImageFs: true}
	tests := []struct {
		signal thresholds.Signal
		layout thresholds.Layout
		want   []string
		res    v1.ResourceName
	}{
		{"memory.available", thresholds.Layout{}, []string{"B", "A"}, v1.ResourceMemory},
		{"allocatableMemory.available", thresholds.Layout{}, []string{"B", "A"}, v1.ResourceMemory},
		{"pid.available", thresholds.Layout{}, []string{"B", "A"}, thresholds.ResourcePIDs},
		{"nodefs.available", thresholds.Layout{}, []string{"A", "B"}, v1.ResourceEphemeralStorage},
		{"nodefs.available", imagefs, []string{"B", "A"}, v1.ResourceEphemeralStorage},
		{"imagefs.available", imagefs, []string{"A", "B"}, v1.ResourceEphemeralStorage},
		{"containerfs.available", imagefs, []string{"A", "B"}, v1.ResourceEphemeralStorage},
		{"nodefs.inodesFree", thresholds.Layout{}, []string{"B", "A"}, thresholds.ResourceInodes},
		{"imagefs.inodesFree", imagefs, []string{"A", "B"}, thresholds.ResourceInodes},
		{"containerfs.inodesFree", imagefs, []string{"A", "B"}, thresholds.ResourceInodes},
	}
	for _, tc := range tests {
		t.Run(string(tc.signal), func(t *testing.T) {
			pods := []*v1.Pod{storagePod("A", ""), storagePod("B", "")}
			require.NoError(t, ForSignal(pods, usage, tc.signal, tc.layout, Options{}))
			mustEqualNames(t, tc.want, pods)
			res, ok := tc.signal.Resource()
			require.True(t, ok)
			assert.Equal(t, tc.res, res)
		})
	}
	for _, bad := range []thresholds.Signal{"", "memory", "nodefs", "nodefs.", "nodefs.used", "rootfs.available", "pid.inodesFree", "Memory.available"} {
		t.Run("unknown "+string(bad), func(t *testing.T) {
			pods := []*v1.Pod{storagePod("B", ""), storagePod("A", "")}
			err := ForSignal(pods, usage, bad, thresholds.Layout{}, Options{})
			require.ErrorIs(t, err, thresholds.ErrUnsupportedSignal)
			assert.Contains(t, err.Error(), fmt.Sprintf("%q", bad))
			mustEqualNames(t, []string{"B", "A"}, pods)
			_, ok := bad.Resource()
			assert.False(t, ok)
		})
	}
}

// TestRankDoesNotModifyPods: sorting touches only the slice.
func TestRankDoesNotModifyPods(t *testing.T) {
	pods := []*v1.Pod{
		memPod("a", "100500m", podResources(rl("memory", "1Gi"), nil)),
		storagePod("b", "1E", volumes(hostPathVol("v"))),
		mkPod("c", containers(ctr("c", rl("memory", "1"), nil)), initContainers(sidecar("s", rl("memory", "2"), nil), ctr("i", rl("memory", "100E"), nil))),
	}
	before := make([]*v1.Pod, len(pods))
	for i, p := range pods {
		before[i] = p.DeepCopy()
	}
	usage := usageMap(map[string]Usage{"a": {MemoryWorkingSet: math.MaxUint64}, "b": rootLogs(1<<63, 1<<63), "c": {}})
	ForMemory(pods, usage, Options{})
	ForDisk(pods, usage, v1.ResourceEphemeralStorage, thresholds.NodeFs, thresholds.Layout{}, Options{})
	ForDisk(pods, usage, thresholds.ResourceInodes, thresholds.NodeFs, thresholds.Layout{}, Options{})
	ForPIDs(pods, usage)
	ByPriorityThenQoS(pods, Options{})
	byName := map[string]*v1.Pod{}
	for _, p := range pods {
		byName[p.Name] = p
	}
	for _, b := range before {
		assert.Equal(t, b, byName[b.Name])
	}
}
