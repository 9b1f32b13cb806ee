package conformance_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/qos"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/ranking"
)

func TestOOMScoreAdjust(t *testing.T) {
	withGate(t, features.PodLevelResources, "podLevelResources", []bool{true, false}, func(t *testing.T, on bool) {
		opts := ranking.Options{DisablePodLevelResources: !on}
		rapid.Check(t, func(t *rapid.T) {
			pod := pressurePod(t)
			// Memory requests and limits the generator does not draw:
			// fractional bytes (rounded up) and amounts beyond 50Mi steps.
			for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
				for i := range list {
					if rapid.IntRange(0, 4).Draw(t, "odd?") > 0 {
						continue
					}
					c := &list[i]
					if c.Resources.Requests == nil {
						c.Resources.Requests = v1.ResourceList{}
					}
					c.Resources.Requests[v1.ResourceMemory] = *resource.NewMilliQuantity(rapid.Int64Range(0, 1<<45).Draw(t, "milli"), resource.DecimalSI)
				}
			}
			capacity := rapid.OneOf(rapid.Int64Range(1, 4*gen.Mi), rapid.Int64Range(1, 1<<35),
				rapid.SampledFrom([]int64{256 * gen.Mi, 1 << 30, 16 << 30, 1 << 40})).Draw(t, "capacity")
			defaulted := apiDefaulted(t, pod)
			for i := range pod.Spec.InitContainers {
				want := qos.GetContainerOOMScoreAdjust(defaulted, &defaulted.Spec.InitContainers[i], capacity)
				if got := ranking.OOMScoreAdjust(pod, &pod.Spec.InitContainers[i], capacity, opts); got != want {
					t.Fatalf("OOMScoreAdjust(%s, init %d, %d): upstream %d, evictkit %d (defaulted: %s)", show(pod), i, capacity, want, got, show(defaulted.Spec))
				}
			}
			for i := range pod.Spec.Containers {
				want := qos.GetContainerOOMScoreAdjust(defaulted, &defaulted.Spec.Containers[i], capacity)
				if got := ranking.OOMScoreAdjust(pod, &pod.Spec.Containers[i], capacity, opts); got != want {
					t.Fatalf("OOMScoreAdjust(%s, container %d, %d): upstream %d, evictkit %d (defaulted: %s)", show(pod), i, capacity, want, got, show(defaulted.Spec))
				}
			}
		})
	})
}
