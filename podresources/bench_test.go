package podresources_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/podresources"
)

// benchPod is a typical pod: two containers, a sidecar, an init container,
// overhead, and container status after a resize.
func benchPod() *v1.Pod {
	return &v1.Pod{
		Spec: v1.PodSpec{
			InitContainers: []v1.Container{
				sidecar("proxy", list("cpu", "100m", "memory", "64Mi"), list("memory", "128Mi")),
				ctr("migrate", list("cpu", "1", "memory", "128Mi"), nil),
			},
			Containers: []v1.Container{
				ctr("app", list("cpu", "500m", "memory", "256Mi", "ephemeral-storage", "1Gi"), list("memory", "512Mi")),
				ctr("log", list("cpu", "50m", "memory", "32Mi"), list("memory", "64Mi")),
			},
			Overhead: list("cpu", "10m", "memory", "10Mi"),
		},
		Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{
			{Name: "app", AllocatedResources: list("cpu", "750m", "memory", "256Mi")},
		}},
	}
}

// BenchmarkRequest is the one-resource path a ranking loop takes, beside the
// whole map.
func BenchmarkRequest(b *testing.B) {
	pod := benchPod()
	for _, o := range []struct {
		name string
		opts podresources.Options
	}{{"spec", podresources.Options{}}, {"status", podresources.Options{UseStatusResources: true}}} {
		b.Run("Request/"+o.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if q, ok := podresources.Request(pod, v1.ResourceMemory, o.opts); !ok || q.IsZero() {
					b.Fatal("no memory request")
				}
			}
		})
		b.Run("AllRequests/"+o.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for range podresources.AllRequests(pod, o.opts) {
					n++
				}
				if n == 0 {
					b.Fatal("no requests")
				}
			}
		})
		b.Run("Requests/"+o.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(podresources.Requests(pod, o.opts)) == 0 {
					b.Fatal("no requests")
				}
			}
		})
	}
}

// TestRequestAllocatesNothing holds the one-resource path to its promise.
func TestRequestAllocatesNothing(t *testing.T) {
	pod := benchPod()
	for _, opts := range []podresources.Options{{}, {UseStatusResources: true}} {
		if n := testing.AllocsPerRun(100, func() {
			podresources.Request(pod, v1.ResourceMemory, opts)
			podresources.Limit(pod, v1.ResourceMemory, opts)
			var milli int64
			for _, q := range podresources.AllRequests(pod, opts) {
				milli += q.MilliValue()
			}
		}); n != 0 {
			t.Errorf("Request, Limit and AllRequests with %+v: %v allocations, want 0", opts, n)
		}
	}
}
