package ranking_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/ranking"
)

func ExampleOOMScoreAdjust() {
	const capacity = 16 << 30 // a node with 16Gi of memory
	container := func(name string, req, lim v1.ResourceList) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.PodSpec{Containers: []v1.Container{
			{Name: "app", Resources: v1.ResourceRequirements{Requests: req, Limits: lim}}}}}
	}
	memory := func(q string) v1.ResourceList {
		return v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse(q)}
	}
	for _, p := range []*v1.Pod{
		container("db", memory("1Gi"), memory("1Gi")), // Guaranteed
		container("web", memory("4Gi"), nil),          // Burstable, a quarter of the node
		container("api", memory("128Mi"), nil),        // Burstable, little memory
		container("batch", nil, nil),                  // BestEffort
	} {
		fmt.Printf("%s (%s): %d\n", p.Name, ranking.QOSClass(p, ranking.Options{}), ranking.OOMScoreAdjust(p, &p.Spec.Containers[0], capacity, ranking.Options{}))
	}
	// Output:
	// db (Guaranteed): -997
	// web (Burstable): 750
	// api (Burstable): 993
	// batch (BestEffort): 1000
}
