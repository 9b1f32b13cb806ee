package conformance_test

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/nodepressure"
	"github.com/evictkit/eviction/ranking"
)

// pressurePod draws a pod for the eviction manager's admission and the
// OOM score: any QoS class (status.qosClass sometimes set), critical by
// priority or as a static or mirror pod, with a priority class name, and
// tolerations near the node-pressure taints.
func pressurePod(t *rapid.T) *v1.Pod {
	pod := gen.Pod("p", gen.PodOptions{PodLevel: true, Overhead: true, Priorities: []*int32{
		nil, gen.Int32(0), gen.Int32(1000), gen.Int32(ranking.SystemCriticalPriority - 1),
		gen.Int32(ranking.SystemCriticalPriority), gen.Int32(ranking.SystemCriticalPriority + 1000)}}).Draw(t, "pod")
	if rapid.IntRange(0, 9).Draw(t, "status?") == 0 {
		pod.Status.QOSClass = rapid.SampledFrom([]v1.PodQOSClass{v1.PodQOSBestEffort, v1.PodQOSBurstable, v1.PodQOSGuaranteed}).Draw(t, "status")
	}
	pod.Spec.PriorityClassName = rapid.SampledFrom([]string{"", "system-node-critical", "system-cluster-critical", "high"}).Draw(t, "class")
	switch rapid.IntRange(0, 7).Draw(t, "source") {
	case 0:
		pod.Annotations = map[string]string{ranking.ConfigSourceAnnotationKey: rapid.SampledFrom([]string{"file", "http", "api", ""}).Draw(t, "source")}
	case 1:
		pod.Annotations = map[string]string{ranking.ConfigMirrorAnnotationKey: "hash", ranking.ConfigSourceAnnotationKey: "api"}
	}
	taints := []v1.Taint{
		{Key: v1.TaintNodeMemoryPressure, Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodeDiskPressure, Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodeMemoryPressure, Value: "1", Effect: v1.TaintEffectNoExecute},
	}
	pod.Spec.Tolerations = gen.TolerationsNear(taints, 3).Draw(t, "tolerations")
	return pod
}

// pressureConditions draws the node conditions of a cycle: none, one or
// several of the pressure conditions, in any order, repeats included.
func pressureConditions(t *rapid.T) []v1.NodeConditionType {
	return rapid.SliceOfN(rapid.SampledFrom([]v1.NodeConditionType{
		v1.NodeMemoryPressure, v1.NodeDiskPressure, v1.NodePIDPressure}), 0, 3).Draw(t, "conditions")
}

func TestAdmit(t *testing.T) {
	withGate(t, features.PodLevelResources, "podLevelResources", []bool{true, false}, func(t *testing.T, on bool) {
		opts := ranking.Options{DisablePodLevelResources: !on}
		rapid.Check(t, func(t *rapid.T) {
			pod := pressurePod(t)
			conditions := pressureConditions(t)
			// The kubelet admits pods as the API server stores them.
			want := eviction.NewAdmitter(conditions).Admit(context.Background(), &lifecycle.PodAdmitAttributes{Pod: apiDefaulted(t, pod)})
			got := nodepressure.Admit(conditions, pod, opts)
			if got.Admit != want.Admit || got.Reason != want.Reason || got.Message != want.Message {
				t.Fatalf("Admit(%v, %s):\nupstream %+v\nevictkit %+v", conditions, show(pod), want, got)
			}
		})
	})
}
