package thresholds_test

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/thresholds"
)

func ExampleParseConfig() {
	ts, err := thresholds.ParseConfig(thresholds.Config{
		Hard:                   map[string]string{"memory.available": "100Mi", "nodefs.available": "10%"},
		Soft:                   map[string]string{"memory.available": "300Mi"},
		SoftGracePeriod:        map[string]string{"memory.available": "1m30s"},
		MinimumReclaim:         map[string]string{"nodefs.available": "1Gi"},
		EnforceNodeAllocatable: []string{"pods"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range ts {
		fmt.Println(t, "hard:", t.IsHard(), "grace:", t.GracePeriod, "min-reclaim:", t.MinReclaim)
	}
	// Output:
	// memory.available<100Mi hard: true grace: 0s min-reclaim: <nil>
	// nodefs.available<10% hard: true grace: 0s min-reclaim: 1Gi
	// memory.available<300Mi hard: false grace: 1m30s min-reclaim: <nil>
	// allocatableMemory.available<100Mi hard: true grace: 0s min-reclaim: <nil>
}

func ExampleParseConfig_defaults() {
	// The zero Config is a kubelet with default settings: the OS's default
	// hard thresholds (no hard map) and node allocatable enforced for pods
	// (no EnforceNodeAllocatable), which copies memory.available to
	// allocatableMemory.available. An empty, non-nil list enforces nothing.
	// With MergeDefaults, a user map only overrides the signals it names,
	// and "0%" turns one default off.
	none := []string{}
	for _, c := range []thresholds.Config{
		{},
		{OS: thresholds.Windows},
		{EnforceNodeAllocatable: none},
		{Hard: map[string]string{"memory.available": "1Gi"}},
		{Hard: map[string]string{"memory.available": "1Gi"}, EnforceNodeAllocatable: none},
		{Hard: map[string]string{"memory.available": "1Gi", "imagefs.inodesFree": "0%"}, MergeDefaults: true, EnforceNodeAllocatable: none},
	} {
		ts, _ := thresholds.ParseConfig(c)
		fmt.Println(len(ts), ts)
	}
	// Output:
	// 6 [imagefs.available<15% imagefs.inodesFree<5% memory.available<100Mi nodefs.available<10% nodefs.inodesFree<5% allocatableMemory.available<100Mi]
	// 4 [imagefs.available<15% memory.available<500Mi nodefs.available<10% allocatableMemory.available<500Mi]
	// 5 [imagefs.available<15% imagefs.inodesFree<5% memory.available<100Mi nodefs.available<10% nodefs.inodesFree<5%]
	// 2 [memory.available<1Gi allocatableMemory.available<1Gi]
	// 1 [memory.available<1Gi]
	// 4 [imagefs.available<15% memory.available<1Gi nodefs.available<10% nodefs.inodesFree<5%]
}

func ExampleParseConfig_errors() {
	_, err := thresholds.ParseConfig(thresholds.Config{Hard: map[string]string{"mem.available": "1Gi"}})
	fmt.Println(errors.Is(err, thresholds.ErrUnsupportedSignal), err)
	_, err = thresholds.ParseConfig(thresholds.Config{Soft: map[string]string{"memory.available": "1Gi"}})
	fmt.Println(errors.Is(err, thresholds.ErrMissingGracePeriod), err)
	// Output:
	// true thresholds: eviction-hard "mem.available<1Gi": unsupported eviction signal mem.available
	// true thresholds: eviction-soft "memory.available": grace period must be specified for the soft eviction threshold memory.available
}

func ExampleFlags_Apply() {
	c, err := thresholds.Flags{
		Hard:            []string{"memory.available<500Mi, nodefs.available<5%", "memory.available<1Gi"},
		SoftGracePeriod: []string{""},
	}.Apply(thresholds.Config{Hard: thresholds.Defaults(thresholds.Linux)})
	fmt.Println(c.Hard, c.SoftGracePeriod, c.Soft == nil, err)
	// Output: map[memory.available:1Gi nodefs.available:5%] map[] true <nil>
}

func ExampleValue_Resolve() {
	// float32 percentages are truncated after widening: not exactly 10%.
	capacity := resource.MustParse("1000Mi")
	v := thresholds.Value{Percentage: 0.1}
	r := v.Resolve(&capacity)
	fmt.Println(r.Value(), 1000*1024*1024/10)
	// Output: 104857601 104857600
}

func ExampleMet() {
	ts := []thresholds.Threshold{{
		Signal:     thresholds.MemoryAvailable,
		Value:      thresholds.Value{Quantity: resource.NewQuantity(1<<30, resource.BinarySI)},
		MinReclaim: &thresholds.Value{Quantity: resource.NewQuantity(500<<20, resource.BinarySI)},
	}}
	available := resource.MustParse("1200Mi")
	obs := thresholds.Observations{thresholds.MemoryAvailable: {Available: &available}}
	fmt.Println(len(thresholds.Met(ts, obs, false)), len(thresholds.Met(ts, obs, true)))
	// Output: 0 1
}

func ExampleMakeObservations() {
	u := func(v uint64) *uint64 { return &v }
	o := thresholds.MakeObservations(thresholds.Summary{
		Memory: &thresholds.MemoryStats{AvailableBytes: u(1 << 30), WorkingSetBytes: u(3 << 30)},
		NodeFs: &thresholds.FsStats{AvailableBytes: u(5 << 30), CapacityBytes: u(50 << 30), InodesFree: u(900), Inodes: u(1000)},
	}, thresholds.Linux)
	for _, s := range thresholds.Signals() {
		if ob, ok := o[s]; ok {
			fmt.Println(s, ob.Available, "of", ob.Capacity)
		}
	}
	// Output:
	// memory.available 1Gi of 4Gi
	// nodefs.available 5Gi of 50Gi
	// nodefs.inodesFree 900 of 1k
}

func ExampleStarvedResources() {
	ts, _ := thresholds.ParseConfig(thresholds.Config{
		Hard:            map[string]string{"pid.available": "100", "nodefs.available": "1Gi"},
		Soft:            map[string]string{"memory.available": "2Gi"},
		SoftGracePeriod: map[string]string{"memory.available": "0s"},
	})
	t, res, ok := thresholds.StarvedResources(ts)
	fmt.Println(t, res, ok)
	// Output: memory.available<2Gi memory true
}

func ExampleWithContainerFs() {
	ts, _ := thresholds.ParseConfig(thresholds.Config{
		Hard: map[string]string{"nodefs.available": "10%", "imagefs.available": "15%"},
	})
	single, _, _ := thresholds.WithContainerFs(ts, thresholds.Layout{})
	imageFs, _, _ := thresholds.WithContainerFs(ts, thresholds.Layout{DedicatedImageFs: true})
	fmt.Println(single[len(single)-1])
	fmt.Println(imageFs[len(imageFs)-1])
	// Output:
	// containerfs.available<10%
	// containerfs.available<15%
}

// Example_evictionManager drives an Evaluator the way the kubelet's eviction
// manager does, once per monitoring interval, with a fake clock.
func Example_evictionManager() {
	ts, _ := thresholds.ParseConfig(thresholds.Config{
		Hard:            map[string]string{"memory.available": "1Gi"},
		Soft:            map[string]string{"memory.available": "2Gi"},
		SoftGracePeriod: map[string]string{"memory.available": "1m"},
	})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e, _ := thresholds.NewEvaluator(ts, thresholds.Options{MaxPodGracePeriodSeconds: 30})
	pod := &v1.Pod{}

	for _, available := range []string{"3Gi", "1500Mi", "1500Mi", "1500Mi", "500Mi", "3Gi"} {
		a, c := resource.MustParse(available), resource.MustParse("8Gi")
		r := e.Observe(now, thresholds.Observations{
			thresholds.MemoryAvailable: {Available: &a, Capacity: &c, Time: now},
		})
		fmt.Printf("%-6s conditions=%v", available, r.Conditions)
		if r.Reclaim {
			// A real manager would now rank pods by r.Signal (memory, disk
			// or PIDs) and evict the first one.
			fmt.Printf(" reclaim %s for %v soft=%v grace=%ds", r.Resource, r.Threshold, r.Soft, r.GracePeriodOverride(pod))
		}
		fmt.Println()
		now = now.Add(30 * time.Second)
	}
	// Output:
	// 3Gi    conditions=[]
	// 1500Mi conditions=[MemoryPressure]
	// 1500Mi conditions=[MemoryPressure]
	// 1500Mi conditions=[MemoryPressure] reclaim memory for memory.available<2Gi soft=true grace=30s
	// 500Mi  conditions=[MemoryPressure] reclaim memory for memory.available<1Gi soft=false grace=1s
	// 3Gi    conditions=[MemoryPressure]
}
