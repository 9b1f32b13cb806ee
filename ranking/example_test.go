package ranking_test

import (
	"fmt"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func pod(name string, prio int32, req, lim v1.ResourceList) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name)},
		Spec: v1.PodSpec{
			Priority:   &prio,
			Containers: []v1.Container{{Name: "app", Resources: v1.ResourceRequirements{Requests: req, Limits: lim}}},
		},
	}
}

func list(cpu, memory string) v1.ResourceList {
	return v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(memory)}
}

func ExampleQOSClass() {
	guaranteed := pod("db", 0, list("1", "1Gi"), list("1", "1Gi"))
	burstable := pod("web", 0, list("100m", "128Mi"), nil)
	bestEffort := pod("batch", 0, nil, nil)
	// Limits without requests: the API server defaults requests to the limits.
	limitsOnly := pod("cache", 0, nil, list("500m", "256Mi"))

	for _, p := range []*v1.Pod{guaranteed, burstable, bestEffort, limitsOnly} {
		fmt.Printf("%s: %s\n", p.Name, ranking.QOSClass(p, ranking.Options{}))
	}
	fmt.Printf("cache as given: %s\n", ranking.ComputeQOSClass(limitsOnly, ranking.Options{}))
	// Output:
	// db: Guaranteed
	// web: Burstable
	// batch: BestEffort
	// cache: Guaranteed
	// cache as given: Burstable
}

func ExampleForMemory() {
	const mi = 1 << 20
	pods := []*v1.Pod{
		pod("db", 1000, list("1", "1Gi"), list("1", "1Gi")),
		pod("web", 0, list("100m", "128Mi"), nil),
		pod("batch", 0, nil, nil),
		pod("api", 0, list("100m", "512Mi"), nil),
		pod("new", 0, nil, nil), // no stats yet
	}
	usage := ranking.UsageByUID(map[types.UID]ranking.Usage{
		"db":    {MemoryWorkingSet: 900 * mi},
		"web":   {MemoryWorkingSet: 300 * mi},
		"batch": {MemoryWorkingSet: 100 * mi},
		"api":   {MemoryWorkingSet: 200 * mi},
	})

	ranking.ForMemory(pods, usage, ranking.Options{})
	for _, p := range pods {
		fmt.Println(p.Name)
	}
	victim, _ := ranking.Victim(pods)
	fmt.Println("evict:", victim.Name)
	// Output:
	// new
	// web
	// batch
	// api
	// db
	// evict: new
}

func ExampleForDisk_layout() {
	const mi = 1 << 20
	pods := []*v1.Pod{pod("writer", 0, nil, nil), pod("logger", 0, nil, nil)}
	usage := ranking.UsageByUID(map[types.UID]ranking.Usage{
		"writer": {Containers: []ranking.ContainerUsage{{Name: "app", Rootfs: ranking.FSUsage{UsedBytes: 900 * mi}}}},
		"logger": {Containers: []ranking.ContainerUsage{{Name: "app", Logs: ranking.FSUsage{UsedBytes: 50 * mi}}}},
	})
	layout := thresholds.Layout{DedicatedImageFs: true}

	// nodefs holds logs and volumes; the writable layers live on the image filesystem.
	ranking.ForDisk(pods, usage, v1.ResourceEphemeralStorage, thresholds.NodeFs, layout, ranking.Options{})
	fmt.Println("nodefs:", pods[0].Name, pods[1].Name)
	ranking.ForDisk(pods, usage, v1.ResourceEphemeralStorage, thresholds.ImageFs, layout, ranking.Options{})
	fmt.Println("imagefs:", pods[0].Name, pods[1].Name)
	// Output:
	// nodefs: logger writer
	// imagefs: writer logger
}

func ExampleForDisk() {
	const mi = 1 << 20
	storage := func(s string) v1.ResourceList {
		return v1.ResourceList{v1.ResourceEphemeralStorage: resource.MustParse(s)}
	}
	scratch := pod("scratch", 0, nil, nil)
	scratch.Spec.Volumes = []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
	pods := []*v1.Pod{
		pod("cache", 0, storage("2Gi"), nil),
		pod("tmp", 0, nil, nil),
		scratch,
		pod("logs", 0, storage("1Gi"), nil),
	}
	layer := func(bytes uint64) []ranking.ContainerUsage {
		return []ranking.ContainerUsage{{Name: "app", Rootfs: ranking.FSUsage{UsedBytes: bytes}}}
	}
	usage := ranking.UsageByUID(map[types.UID]ranking.Usage{
		"cache": {Containers: layer(1024 * mi)},
		"tmp":   {Containers: layer(100 * mi)},
		// A local volume counts towards the pod's usage.
		"scratch": {Volumes: []ranking.VolumeUsage{{Name: "data", FSUsage: ranking.FSUsage{UsedBytes: 300 * mi}}}},
		"logs":    {Containers: layer(1536 * mi)},
	})

	// Pods above their ephemeral-storage request first, the largest excess first.
	ranking.ForDisk(pods, usage, v1.ResourceEphemeralStorage, thresholds.NodeFs, thresholds.Layout{}, ranking.Options{})
	for _, p := range pods {
		fmt.Println(p.Name)
	}
	// Output:
	// logs
	// scratch
	// tmp
	// cache
}

func ExampleForPIDs() {
	pods := []*v1.Pod{
		pod("web", 0, nil, nil),
		pod("db", 1000, nil, nil),
		pod("batch", 0, nil, nil),
		pod("new", 0, nil, nil), // no stats yet
	}
	usage := ranking.UsageByUID(map[types.UID]ranking.Usage{
		"web":   {Processes: 40},
		"db":    {Processes: 900},
		"batch": {Processes: 300},
	})

	// Priority first; within a priority, pods without stats, then the most processes.
	ranking.ForPIDs(pods, usage)
	for _, p := range pods {
		fmt.Println(p.Name)
	}
	// Output:
	// new
	// batch
	// web
	// db
}

func ExampleForSignal() {
	const mi = 1 << 20
	pods := []*v1.Pod{pod("hog", 0, list("100m", "128Mi"), nil), pod("forker", 0, list("100m", "128Mi"), nil)}
	usage := ranking.UsageByUID(map[types.UID]ranking.Usage{
		"hog":    {MemoryWorkingSet: 900 * mi, Processes: 10},
		"forker": {MemoryWorkingSet: 50 * mi, Processes: 500},
	})

	for _, signal := range []thresholds.Signal{thresholds.MemoryAvailable, thresholds.PIDAvailable, "memory.used"} {
		if err := ranking.ForSignal(pods, usage, signal, thresholds.Layout{}, ranking.Options{}); err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(signal, pods[0].Name, pods[1].Name)
	}
	// Output:
	// memory.available hog forker
	// pid.available forker hog
	// ranking: signal "memory.used": unsupported eviction signal
}

func ExampleEvictionMessage() {
	const mi = 1 << 20
	p := pod("web", 0, list("100m", "128Mi"), nil)
	usage := ranking.UsageByUID(map[types.UID]ranking.Usage{
		"web": {MemoryWorkingSet: 300 * mi, Containers: []ranking.ContainerUsage{{Name: "app", MemoryWorkingSet: 300 * mi}}},
	})
	// The thresholds that drove the cycle and what the kubelet observed.
	met := []thresholds.Threshold{{Signal: thresholds.MemoryAvailable, Value: thresholds.Value{Quantity: resource.NewQuantity(100*mi, resource.BinarySI)}}}
	obs := thresholds.Observations{thresholds.MemoryAvailable: {Available: resource.NewQuantity(80*mi, resource.BinarySI)}}
	msg, annotations := ranking.EvictionMessage(v1.ResourceMemory, p, usage, met, obs, ranking.Options{})
	fmt.Printf("%q\n", msg)
	fmt.Println(annotations[ranking.OffendingContainersKey], annotations[ranking.OffendingContainersUsageKey])
	// Output:
	// "The node was low on resource: memory. Threshold quantity: 100Mi, available: 80Mi. Container app was using 300Mi, request is 128Mi, has larger consumption of memory. "
	// app 300Mi
}

func ExampleByPriorityThenQoS() {
	pods := []*v1.Pod{
		pod("guaranteed", 0, list("1", "1Gi"), list("1", "1Gi")),
		pod("burstable", 0, list("1", "1Gi"), nil),
		pod("besteffort", 0, nil, nil),
		pod("low", -5, list("1", "1Gi"), list("1", "1Gi")),
	}
	ranking.ByPriorityThenQoS(pods, ranking.Options{})
	for _, p := range pods {
		fmt.Println(p.Name)
	}
	// Output:
	// low
	// besteffort
	// burstable
	// guaranteed
}
