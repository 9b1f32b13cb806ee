package podresources_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/podresources"
)

func list(kv ...string) v1.ResourceList {
	l := v1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

// A sidecar runs beside the regular containers, so it counts in the sum; a
// plain init container only needs its own request plus the sidecars
// started before it.
func ExampleRequests() {
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers: []v1.Container{
			{Name: "proxy", RestartPolicy: &always, Resources: v1.ResourceRequirements{Requests: list("cpu", "100m", "memory", "64Mi")}},
			{Name: "migrate", Resources: v1.ResourceRequirements{Requests: list("cpu", "1", "memory", "128Mi")}},
		},
		Containers: []v1.Container{
			{Name: "app", Resources: v1.ResourceRequirements{Requests: list("cpu", "500m", "memory", "256Mi")}},
		},
		Overhead: list("memory", "10Mi"),
	}}
	reqs := podresources.Requests(pod, podresources.Options{})
	fmt.Println("cpu", reqs.Cpu(), "memory", reqs.Memory())
	noOverhead := podresources.Requests(pod, podresources.Options{ExcludeOverhead: true})
	fmt.Println("without overhead: memory", noOverhead.Memory())
	// Output:
	// cpu 1100m memory 330Mi
	// without overhead: memory 320Mi
}

// A bound pod whose resize the kubelet has not applied yet is charged the
// larger of what its spec asks and what it was allocated.
func ExampleRequest() {
	pod := &v1.Pod{
		Spec: v1.PodSpec{Containers: []v1.Container{
			{Name: "app", Resources: v1.ResourceRequirements{Requests: list("memory", "1Gi")}},
		}},
		Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{
			{Name: "app", AllocatedResources: list("memory", "2Gi")},
		}},
	}
	spec, _ := podresources.Request(pod, v1.ResourceMemory, podresources.Options{})
	charged, _ := podresources.Request(pod, v1.ResourceMemory, podresources.Options{UseStatusResources: true})
	_, ok := podresources.Request(pod, v1.ResourceCPU, podresources.Options{})
	fmt.Println("pending:", spec.String(), "bound:", charged.String(), "cpu requested:", ok)
	// Output:
	// pending: 1Gi bound: 2Gi cpu requested: false
}

// A scheduler-like sum over many pods folds each pod's requests into its own
// totals without a map per pod.
func ExampleAllRequests() {
	pods := []*v1.Pod{
		{Spec: v1.PodSpec{Containers: []v1.Container{
			{Name: "app", Resources: v1.ResourceRequirements{Requests: list("cpu", "250m", "memory", "64Mi")}},
		}}},
		{Spec: v1.PodSpec{
			Containers: []v1.Container{{Name: "db", Resources: v1.ResourceRequirements{Requests: list("cpu", "1")}}},
			Overhead:   list("memory", "16Mi"),
		}},
	}
	var cpu, memory resource.Quantity
	for _, pod := range pods {
		for name, q := range podresources.AllRequests(pod, podresources.Options{}) {
			switch name {
			case v1.ResourceCPU:
				cpu.Add(q)
			case v1.ResourceMemory:
				memory.Add(q)
			}
		}
	}
	fmt.Println("cpu", cpu.String(), "memory", memory.String())
	// Output:
	// cpu 1250m memory 80Mi
}

// Pod-level limits replace the containers' for cpu, memory and hugepages-*;
// overhead is added to non-zero limits only.
func ExampleLimits() {
	pod := &v1.Pod{Spec: v1.PodSpec{
		Containers: []v1.Container{
			{Name: "a", Resources: v1.ResourceRequirements{Limits: list("memory", "1Gi", "ephemeral-storage", "0")}},
			{Name: "b", Resources: v1.ResourceRequirements{Limits: list("memory", "1Gi")}},
		},
		Resources: &v1.ResourceRequirements{Limits: list("memory", "1536Mi")},
		Overhead:  list("memory", "64Mi", "ephemeral-storage", "1Gi"),
	}}
	lims := podresources.Limits(pod, podresources.Options{})
	fmt.Println("memory", lims.Memory(), "ephemeral-storage", lims.StorageEphemeral())
	skip := podresources.Limits(pod, podresources.Options{SkipPodLevelResources: true})
	fmt.Println("containers only: memory", skip.Memory())
	// Output:
	// memory 1600Mi ephemeral-storage 0
	// containers only: memory 2112Mi
}

func ExamplePriority() {
	high := int32(1000)
	fmt.Println(podresources.Priority(&v1.Pod{Spec: v1.PodSpec{Priority: &high}}), podresources.Priority(&v1.Pod{}), podresources.Priority(nil))
	// Output:
	// 1000 0 0
}
