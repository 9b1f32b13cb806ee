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

// TestOOMScoreAdjustExceptions asserts the library's answer beside
// upstream's where the two differ on purpose, on inputs the kubelet never
// sees.
func TestOOMScoreAdjustExceptions(t *testing.T) {
	burstable := func(memory resource.Quantity) *v1.Pod {
		return &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: memory}}}}}}
	}
	upstream := func(pod *v1.Pod, c *v1.Container, capacity int64) (score int, panicked bool) {
		defer func() { panicked = recover() != nil }()
		return qos.GetContainerOOMScoreAdjust(pod, c, capacity), false
	}

	// 1000 * 1Ei overflows int64: upstream's product wraps, the library's
	// is exact (1Ei of 2Ei is half the node: 500).
	huge := burstable(resource.MustParse("1Ei"))
	if want, _ := upstream(huge, &huge.Spec.Containers[0], 2<<60); want == 500 {
		t.Fatalf("upstream no longer wraps: %d", want)
	}
	if got := ranking.OOMScoreAdjust(huge, &huge.Spec.Containers[0], 2<<60, ranking.Options{}); got != 500 {
		t.Fatalf("evictkit %d, want 500", got)
	}

	// A capacity of 0: upstream divides by zero; the library counts 1 byte.
	small := burstable(resource.MustParse("1Mi"))
	if _, panicked := upstream(small, &small.Spec.Containers[0], 0); !panicked {
		t.Fatal("upstream no longer panics on a zero capacity")
	}
	if got := ranking.OOMScoreAdjust(small, &small.Spec.Containers[0], 0, ranking.Options{}); got != 3 {
		t.Fatalf("evictkit %d, want 3", got)
	}

	// A sidecar in a pod without regular containers: upstream indexes the
	// empty container list; the library keeps the sidecar's own score.
	always := v1.ContainerRestartPolicyAlways
	lone := &v1.Pod{Spec: v1.PodSpec{InitContainers: []v1.Container{{Name: "proxy", RestartPolicy: &always,
		Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceMemory: resource.MustParse("1Gi")}}}}}}
	if _, panicked := upstream(lone, &lone.Spec.InitContainers[0], 4<<30); !panicked {
		t.Fatal("upstream no longer panics on a sidecar without regular containers")
	}
	if got := ranking.OOMScoreAdjust(lone, &lone.Spec.InitContainers[0], 4<<30, ranking.Options{}); got != 750 {
		t.Fatalf("evictkit %d, want 750", got)
	}
}
