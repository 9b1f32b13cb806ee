package conformance_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"

	"github.com/evictkit/eviction/statsummary"
)

// benchSummary returns the stats summary of a node running n pods, each
// with two containers and three volumes, every field filled as a Linux
// kubelet with cgroup v2 and PSI fills it; seeded. Pretty-printed, as the
// kubelet serves it.
func benchSummary(n int) []byte {
	r := rand.New(rand.NewPCG(7, uint64(n)))
	at := metav1.NewTime(time.Date(2026, 12, 1, 15, 40, 12, 0, time.UTC))
	u := func(max uint64) *uint64 { v := r.Uint64N(max); return &v }
	psi := func() *statsapi.PSIStats {
		return &statsapi.PSIStats{Full: statsapi.PSIData{Total: *u(1e7), Avg10: r.Float64()},
			Some: statsapi.PSIData{Total: *u(1e8), Avg10: r.Float64(), Avg60: r.Float64(), Avg300: r.Float64()}}
	}
	cpu := func() *statsapi.CPUStats {
		return &statsapi.CPUStats{Time: at, UsageNanoCores: u(1e9), UsageCoreNanoSeconds: u(1e14), PSI: psi()}
	}
	mem := func() *statsapi.MemoryStats {
		return &statsapi.MemoryStats{Time: at, UsageBytes: u(1 << 33), WorkingSetBytes: u(1 << 32), RSSBytes: u(1 << 32),
			PageFaults: u(1e8), MajorPageFaults: u(1e3), PSI: psi()}
	}
	fs := func() *statsapi.FsStats {
		return &statsapi.FsStats{Time: at, AvailableBytes: u(1 << 36), CapacityBytes: u(1 << 37), UsedBytes: u(1 << 30),
			InodesFree: u(1e7), Inodes: u(1e7), InodesUsed: u(1e4)}
	}
	swap := func() *statsapi.SwapStats { return &statsapi.SwapStats{Time: at, SwapUsageBytes: u(1)} }
	network := func() *statsapi.NetworkStats {
		i := statsapi.InterfaceStats{Name: "eth0", RxBytes: u(1e11), RxErrors: u(2), TxBytes: u(1e11), TxErrors: u(2)}
		return &statsapi.NetworkStats{Time: at, InterfaceStats: i, Interfaces: []statsapi.InterfaceStats{i}}
	}
	s := statsapi.Summary{Node: statsapi.NodeStats{
		NodeName: "worker-7", StartTime: at, CPU: cpu(), Memory: mem(), Network: network(), Fs: fs(),
		IO:      &statsapi.IOStats{Time: at, PSI: psi()},
		Runtime: &statsapi.RuntimeStats{ImageFs: fs(), ContainerFs: fs()},
		Rlimit:  &statsapi.RlimitStats{Time: at, MaxPID: new(int64(4194304)), NumOfRunningProcesses: new(int64(1800))},
		Swap:    swap(),
	}}
	for _, name := range []string{statsapi.SystemContainerKubelet, statsapi.SystemContainerRuntime, statsapi.SystemContainerPods} {
		s.Node.SystemContainers = append(s.Node.SystemContainers,
			statsapi.ContainerStats{Name: name, StartTime: at, CPU: cpu(), Memory: mem(), Swap: swap()})
	}
	for i := range n {
		p := statsapi.PodStats{
			PodRef:    statsapi.PodReference{Name: fmt.Sprintf("web-6f7c9d8b5-%05d", i), Namespace: "shop", UID: fmt.Sprintf("74667bff-e202-849d-a964-%012d", i)},
			StartTime: at, CPU: cpu(), Memory: mem(), Network: network(), EphemeralStorage: fs(),
			ProcessStats: &statsapi.ProcessStats{ProcessCount: u(200)}, Swap: swap(),
		}
		for _, c := range []string{"app", "istio-proxy"} {
			p.Containers = append(p.Containers, statsapi.ContainerStats{Name: c, StartTime: at, CPU: cpu(), Memory: mem(),
				Rootfs: fs(), Logs: fs(), Swap: swap()})
		}
		for _, v := range []string{"cache", "config", "kube-api-access-tvv98"} {
			p.VolumeStats = append(p.VolumeStats, statsapi.VolumeStats{Name: v, FsStats: *fs()})
		}
		s.Pods = append(s.Pods, p)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err)
	}
	return data
}

// reducedSummary is encoding/json's best case: the wire format reduced to
// the fields the library reads, decoded by reflection.
type reducedSummary struct {
	Node struct {
		NodeName         string `json:"nodeName"`
		SystemContainers []struct {
			Name   string         `json:"name"`
			Memory *reducedMemory `json:"memory"`
		} `json:"systemContainers"`
		Memory  *reducedMemory `json:"memory"`
		Fs      *reducedFs     `json:"fs"`
		Runtime *struct {
			ImageFs     *reducedFs `json:"imageFs"`
			ContainerFs *reducedFs `json:"containerFs"`
		} `json:"runtime"`
		Rlimit *struct {
			Time    metav1.Time `json:"time"`
			MaxPID  *int64      `json:"maxpid"`
			Curproc *int64      `json:"curproc"`
		} `json:"rlimit"`
	} `json:"node"`
	Pods []struct {
		PodRef           statsapi.PodReference  `json:"podRef"`
		Memory           *reducedMemory         `json:"memory"`
		EphemeralStorage *reducedFs             `json:"ephemeral-storage"`
		ProcessStats     *statsapi.ProcessStats `json:"process_stats"`
		Containers       []struct {
			Name   string         `json:"name"`
			Memory *reducedMemory `json:"memory"`
			Rootfs *reducedFs     `json:"rootfs"`
			Logs   *reducedFs     `json:"logs"`
		} `json:"containers"`
		Volumes []struct {
			Name       string  `json:"name"`
			UsedBytes  *uint64 `json:"usedBytes"`
			InodesUsed *uint64 `json:"inodesUsed"`
		} `json:"volume"`
	} `json:"pods"`
}

type reducedMemory struct {
	Time            metav1.Time `json:"time"`
	AvailableBytes  *uint64     `json:"availableBytes"`
	UsageBytes      *uint64     `json:"usageBytes"`
	WorkingSetBytes *uint64     `json:"workingSetBytes"`
}

type reducedFs struct {
	Time           metav1.Time `json:"time"`
	AvailableBytes *uint64     `json:"availableBytes"`
	CapacityBytes  *uint64     `json:"capacityBytes"`
	UsedBytes      *uint64     `json:"usedBytes"`
	InodesFree     *uint64     `json:"inodesFree"`
	Inodes         *uint64     `json:"inodes"`
	InodesUsed     *uint64     `json:"inodesUsed"`
}

// BenchmarkDecodeSummary decodes a 110-pod stats summary (the kubelet's
// default maxPods): encoding/json into upstream's statsapi.Summary, into the
// reduced types above, and the library's Decode. ns/pod and B/pod divide by
// the pod count.
func BenchmarkDecodeSummary(b *testing.B) {
	const pods = 110
	data := benchSummary(pods)
	perPod := func(b *testing.B, decode func() error) {
		b.Helper()
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for b.Loop() {
			if err := decode(); err != nil {
				b.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/pods, "ns/pod")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/pods, "B/pod")
	}
	b.Run(fmt.Sprintf("pods=%d/upstream", pods), func(b *testing.B) {
		perPod(b, func() error {
			var s statsapi.Summary
			return json.Unmarshal(data, &s)
		})
	})
	b.Run(fmt.Sprintf("pods=%d/upstream-reduced", pods), func(b *testing.B) {
		perPod(b, func() error {
			var s reducedSummary
			return json.Unmarshal(data, &s)
		})
	})
	b.Run(fmt.Sprintf("pods=%d/evictkit", pods), func(b *testing.B) {
		perPod(b, func() error {
			_, err := statsummary.Decode(data)
			return err
		})
	})
}

// TestBenchSummaryDecodes keeps the benchmark's input honest: the library
// reads it as upstream does.
func TestBenchSummaryDecodes(t *testing.T) {
	checkSummary(t, benchSummary(8), func(ref statsapi.PodReference) *v1.Pod {
		return &v1.Pod{Spec: v1.PodSpec{Volumes: []v1.Volume{
			{Name: "cache", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}}}
	})
}
