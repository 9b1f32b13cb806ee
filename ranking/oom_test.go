package ranking

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

const gib = int64(1) << 30

func mem(request, limit string) v1.ResourceRequirements {
	var r v1.ResourceRequirements
	if request != "" {
		r.Requests = v1.ResourceList{v1.ResourceMemory: resource.MustParse(request)}
	}
	if limit != "" {
		r.Limits = v1.ResourceList{v1.ResourceMemory: resource.MustParse(limit)}
	}
	return r
}

func oomPod(containers ...v1.Container) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: v1.PodSpec{Containers: containers}}
}

func TestOOMScoreAdjust(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	app := v1.Container{Name: "app", Resources: mem("1Gi", "")}
	small := v1.Container{Name: "small", Resources: mem("256Mi", "")}
	sidecar := v1.Container{Name: "proxy", RestartPolicy: &always, Resources: mem("64Mi", "")}
	plainInit := v1.Container{Name: "setup", Resources: mem("2Gi", "")}
	withSidecar := oomPod(app, small)
	withSidecar.Spec.InitContainers = []v1.Container{sidecar, plainInit}
	nodeCritical := oomPod(app)
	nodeCritical.Spec.Priority = oomPriority(SystemCriticalPriority + 1000)
	nodeCritical.Spec.PriorityClassName = NodeCriticalPriorityClass
	clusterCritical := oomPod(app)
	clusterCritical.Spec.Priority = oomPriority(SystemCriticalPriority)
	clusterCritical.Spec.PriorityClassName = "system-cluster-critical"
	unresolved := oomPod(app)
	unresolved.Spec.PriorityClassName = NodeCriticalPriorityClass // no priority: not critical
	podLevel := oomPod(v1.Container{Name: "a", Resources: mem("1Gi", "")}, v1.Container{Name: "b"})
	podLevel.Spec.Resources = &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceMemory: resource.MustParse("3Gi")}}
	podLevelSidecar := oomPod(v1.Container{Name: "a", Resources: mem("1Gi", "")}, v1.Container{Name: "b", Resources: mem("2Gi", "")})
	podLevelSidecar.Spec.InitContainers = []v1.Container{{Name: "proxy", RestartPolicy: &always, Resources: mem("256Mi", "")}}
	podLevelSidecar.Spec.Resources = &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceMemory: resource.MustParse("4Gi")}}

	tests := []struct {
		name      string
		pod       *v1.Pod
		container *v1.Container
		capacity  int64
		want      int
	}{
		{"Guaranteed", oomPod(v1.Container{Name: "g", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi")},
			Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi")}}}),
			nil, 4 * gib, GuaranteedOOMScoreAdj},
		{"Guaranteed by limits alone, as defaulting makes it", oomPod(v1.Container{Name: "g", Resources: v1.ResourceRequirements{
			Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi")}}}),
			nil, 4 * gib, GuaranteedOOMScoreAdj},
		{"BestEffort", oomPod(v1.Container{Name: "b"}), nil, 4 * gib, BestEffortOOMScoreAdj},
		{"Burstable: a quarter of memory", oomPod(app), nil, 4 * gib, 750},
		{"Burstable: a memory limit alone is the request", oomPod(v1.Container{Name: "l", Resources: mem("", "1Gi")}), nil, 4 * gib, 750},
		{"Burstable: truncating division", oomPod(app), nil, 3 * gib, 667},
		{"Burstable without a memory request scores 999, not 1000", oomPod(v1.Container{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}), nil, 4 * gib, 999},
		{"Burstable requesting all memory scores 3", oomPod(v1.Container{Name: "all", Resources: mem("4Gi", "")}), nil, 4 * gib, 3},
		{"Burstable requesting more than the node has scores 3", oomPod(v1.Container{Name: "more", Resources: mem("8Gi", "")}), nil, 4 * gib, 3},
		{"Burstable on a 1-byte node", oomPod(app), nil, 1, 3},
		{"a capacity of 0 counts as 1", oomPod(app), nil, 0, 3},
		{"a node-critical pod scores as Guaranteed", nodeCritical, nil, 4 * gib, GuaranteedOOMScoreAdj},
		{"a cluster-critical pod scores by QoS", clusterCritical, nil, 4 * gib, 750},
		{"the node-critical class without a resolved priority scores by QoS", unresolved, nil, 4 * gib, 750},
		{"a regular container beside a sidecar", withSidecar, &withSidecar.Spec.Containers[1], 4 * gib, 938},
		{"a sidecar scores no higher than the smallest regular container (985 on its own)", withSidecar, &withSidecar.Spec.InitContainers[0], 4 * gib, 938},
		{"a plain init container scores by its own request", withSidecar, &withSidecar.Spec.InitContainers[1], 4 * gib, 500},
		{"pod-level: the unrequested 2Gi is shared by the two containers", podLevel, &podLevel.Spec.Containers[0], 4 * gib, 500},
		{"pod-level: a container without a request gets its share", podLevel, &podLevel.Spec.Containers[1], 4 * gib, 750},
		{"pod-level with a sidecar: three containers share the unrequested 768Mi", podLevelSidecar, &podLevelSidecar.Spec.Containers[1], 4 * gib, 438},
		{"pod-level sidecar capped by the smallest regular container plus its share (875 on its own)",
			podLevelSidecar, &podLevelSidecar.Spec.InitContainers[0], 4 * gib, 688},
		{"a nil pod", nil, &app, 4 * gib, BestEffortOOMScoreAdj},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.container
			if c == nil && tc.pod != nil {
				c = &tc.pod.Spec.Containers[0]
			}
			assert.Equal(t, tc.want, OOMScoreAdjust(tc.pod, c, tc.capacity, Options{}))
		})
	}
}

func TestOOMScoreAdjustPodLevelGateOff(t *testing.T) {
	p := oomPod(v1.Container{Name: "a", Resources: mem("1Gi", "")}, v1.Container{Name: "b"})
	p.Spec.Resources = &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceMemory: resource.MustParse("3Gi")}}
	assert.Equal(t, 750, OOMScoreAdjust(p, &p.Spec.Containers[0], 4*gib, Options{DisablePodLevelResources: true}))
}

func TestOOMScoreAdjustSidecarWithoutRegularContainers(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	p := oomPod()
	p.Spec.InitContainers = []v1.Container{{Name: "proxy", RestartPolicy: &always, Resources: mem("1Gi", "")}}
	// Upstream panics (it reads the first regular container); the sidecar keeps its own score.
	assert.Equal(t, 750, OOMScoreAdjust(p, &p.Spec.InitContainers[0], 4*gib, Options{}))
}

func TestBurstableScoreBeyondInt64(t *testing.T) {
	// 1000 * 2^60 overflows int64; upstream's product wraps, the library's is exact.
	assert.Equal(t, int64(0), burstableScore(1<<60, 1<<60))
	assert.Equal(t, int64(1000-500), burstableScore(1<<60, 1<<61))
	assert.Equal(t, int64(1000-(math.MaxInt64-1000)), burstableScore(math.MaxInt64, 1))
	assert.Equal(t, int64(1000+(math.MaxInt64-1000)), burstableScore(math.MinInt64, 1))
	assert.Equal(t, int64(1500), burstableScore(-(1<<60), 1<<61))
}

// The score lies in [3, 999] for a Burstable pod with non-negative requests, falls as the
// request grows and rises with the node's memory.
func TestPropertyOOMScoreAdjust(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		capacity := rapid.Int64Range(1, 1<<50).Draw(t, "capacity")
		a := rapid.Int64Range(0, 1<<50).Draw(t, "a")
		b := rapid.Int64Range(a, 1<<50).Draw(t, "b")
		burstable := func(req int64) *v1.Pod {
			return oomPod(v1.Container{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: *resource.NewQuantity(req, resource.BinarySI)}}})
		}
		pa, pb := burstable(a), burstable(b)
		sa := OOMScoreAdjust(pa, &pa.Spec.Containers[0], capacity, Options{})
		sb := OOMScoreAdjust(pb, &pb.Spec.Containers[0], capacity, Options{})
		if sa < 3 || sa > 999 || sb < 3 || sb > 999 {
			t.Fatalf("scores %d, %d outside [3, 999]", sa, sb)
		}
		if sb > sa {
			t.Fatalf("request %d scores %d, larger request %d scores %d", a, sa, b, sb)
		}
		if bigger := OOMScoreAdjust(pa, &pa.Spec.Containers[0], capacity*2, Options{}); bigger < sa {
			t.Fatalf("doubling the capacity lowered the score from %d to %d", sa, bigger)
		}
	})
}

func oomPriority(v int32) *int32 { return &v }
