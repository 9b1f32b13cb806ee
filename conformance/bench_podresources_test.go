package conformance_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/evictkit/eviction/podresources"
)

// benchResourcePod is a typical pod: two containers, a sidecar, an init
// container, overhead, and a container status after a resize.
func benchResourcePod() *v1.Pod {
	l := func(kv ...string) v1.ResourceList {
		out := v1.ResourceList{}
		for i := 0; i+1 < len(kv); i += 2 {
			out[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return out
	}
	always := v1.ContainerRestartPolicyAlways
	c := func(name string, req, lim v1.ResourceList) v1.Container {
		return v1.Container{Name: name, Resources: v1.ResourceRequirements{Requests: req, Limits: lim}}
	}
	proxy := c("proxy", l("cpu", "100m", "memory", "64Mi"), l("memory", "128Mi"))
	proxy.RestartPolicy = &always
	return &v1.Pod{
		Spec: v1.PodSpec{
			InitContainers: []v1.Container{proxy, c("migrate", l("cpu", "1", "memory", "128Mi"), nil)},
			Containers: []v1.Container{
				c("app", l("cpu", "500m", "memory", "256Mi", "ephemeral-storage", "1Gi"), l("memory", "512Mi")),
				c("log", l("cpu", "50m", "memory", "32Mi"), l("memory", "64Mi")),
			},
			Overhead: l("cpu", "10m", "memory", "10Mi"),
		},
		Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{
			{Name: "app", AllocatedResources: l("cpu", "750m", "memory", "256Mi")},
		}},
	}
}

// BenchmarkPodRequests compares podresources with component-helpers
// PodRequests and PodLimits on one typical pod: the whole map (spec only,
// and with status resources as the scheduler charges a bound pod), and the
// one-resource path against reading one key of upstream's map.
func BenchmarkPodRequests(b *testing.B) {
	pod := benchResourcePod()
	status := resourcehelper.PodResourcesOptions{UseStatusResources: true, InPlacePodLevelResourcesVerticalScalingEnabled: true}
	b.Run("requests/upstream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
		}
	})
	b.Run("requests/evictkit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			podresources.Requests(pod, podresources.Options{})
		}
	})
	b.Run("requests-status/upstream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resourcehelper.PodRequests(pod, status)
		}
	})
	b.Run("requests-status/evictkit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			podresources.Requests(pod, podresources.Options{UseStatusResources: true})
		}
	})
	b.Run("limits/upstream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resourcehelper.PodLimits(pod, resourcehelper.PodResourcesOptions{})
		}
	})
	b.Run("limits/evictkit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			podresources.Limits(pod, podresources.Options{})
		}
	})
	b.Run("one-resource/upstream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})[v1.ResourceMemory]
		}
	})
	b.Run("one-resource/evictkit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			podresources.Request(pod, v1.ResourceMemory, podresources.Options{})
		}
	})
}
