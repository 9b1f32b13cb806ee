package nodepressure_test

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/nodepressure"
	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

// Example runs a memory-pressure episode of three cycles: a soft threshold is
// met (MemoryPressure, but no eviction during its grace period), then its
// grace period is over (one pod evicted with the capped grace period), then
// a hard threshold is met (one more pod, 1 s).
func Example() {
	ts, _ := thresholds.ParseConfig(thresholds.Config{
		Hard:                   map[string]string{"memory.available": "500Mi"},
		Soft:                   map[string]string{"memory.available": "1Gi"},
		SoftGracePeriod:        map[string]string{"memory.available": "1m"},
		EnforceNodeAllocatable: []string{},
	})
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	now := start
	m, err := nodepressure.NewManager(nodepressure.Config{Thresholds: ts, MaxPodGracePeriodSeconds: 30})
	if err != nil {
		fmt.Println(err)
		return
	}

	const mi = 1 << 20
	grace := int64(60)
	newPod := func(name string, priority int32) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(name)},
			Spec: v1.PodSpec{Priority: &priority, TerminationGracePeriodSeconds: &grace, Containers: []v1.Container{{
				Name:      "app",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceMemory: resource.MustParse("100Mi")}},
			}}},
		}
	}
	pods := []*v1.Pod{newPod("web", 1000), newPod("batch", 0), newPod("cache", 0)}
	usage := ranking.UsageByUID(map[types.UID]ranking.Usage{
		"web":   {MemoryWorkingSet: 300 * mi, Containers: []ranking.ContainerUsage{{Name: "app", MemoryWorkingSet: 300 * mi}}},
		"batch": {MemoryWorkingSet: 900 * mi, Containers: []ranking.ContainerUsage{{Name: "app", MemoryWorkingSet: 900 * mi}}},
		"cache": {MemoryWorkingSet: 600 * mi, Containers: []ranking.ContainerUsage{{Name: "app", MemoryWorkingSet: 600 * mi}}},
	})
	stats := func(availableMi uint64) nodepressure.Stats {
		available, used := availableMi*mi, (8192-availableMi)*mi
		return nodepressure.Stats{
			Node: thresholds.Summary{Memory: &thresholds.MemoryStats{Time: now, AvailableBytes: &available, WorkingSetBytes: &used}},
			Pods: usage,
		}
	}

	for _, availableMi := range []uint64{800, 800, 400} {
		r := m.Synchronize(now, stats(availableMi), pods)
		fmt.Printf("%s available %dMi, conditions %v\n", r.Time.Format(time.TimeOnly), availableMi, r.Conditions)
		if v := r.Victim; v != nil {
			fmt.Printf("  evict %s (grace %ds): %s\n", v.Pod.Name, v.GracePeriodSeconds, strings.TrimSpace(v.Message))
			pods = slicesWithout(pods, v.Pod)
		}
		now = now.Add(time.Minute)
	}
	// Output:
	// 12:00:00 available 800Mi, conditions [MemoryPressure]
	// 12:01:00 available 800Mi, conditions [MemoryPressure]
	//   evict batch (grace 30s): The node was low on resource: memory. Threshold quantity: 1Gi, available: 800Mi. Container app was using 900Mi, request is 100Mi, has larger consumption of memory.
	// 12:02:00 available 400Mi, conditions [MemoryPressure]
	//   evict cache (grace 1s): The node was low on resource: memory. Threshold quantity: 500Mi, available: 400Mi. Container app was using 600Mi, request is 100Mi, has larger consumption of memory.
}

func slicesWithout(pods []*v1.Pod, p *v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, q := range pods {
		if q != p {
			out = append(out, q)
		}
	}
	return out
}
