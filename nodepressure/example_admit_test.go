package nodepressure_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/nodepressure"
	"github.com/evictkit/eviction/ranking"
)

func ExampleAdmit() {
	batch := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "batch"},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "job"}}}} // BestEffort
	web := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceMemory: resource.MustParse("128Mi")}}}}}} // Burstable

	for _, conditions := range [][]v1.NodeConditionType{
		{v1.NodeMemoryPressure},
		{v1.NodeMemoryPressure, v1.NodeDiskPressure},
	} {
		for _, pod := range []*v1.Pod{batch, web} {
			a := nodepressure.Admit(conditions, pod, ranking.Options{})
			fmt.Printf("%v %s: admit %v %s %q\n", conditions, pod.Name, a.Admit, a.Reason, a.Message)
		}
	}
	// Output:
	// [MemoryPressure] batch: admit false Evicted "The node had condition: [MemoryPressure]. "
	// [MemoryPressure] web: admit true  ""
	// [MemoryPressure DiskPressure] batch: admit false Evicted "The node had condition: [MemoryPressure DiskPressure]. "
	// [MemoryPressure DiskPressure] web: admit false Evicted "The node had condition: [MemoryPressure DiskPressure]. "
}
