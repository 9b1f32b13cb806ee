package nodepressure

import (
	"testing"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/ranking"
)

func int32p(v int32) *int32 { return &v }

func admitPod(name string, mutate ...func(*v1.Pod)) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c"}}}}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func requests(p *v1.Pod) {
	p.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceMemory: resource.MustParse("64Mi")}
}

func tolerate(tols ...v1.Toleration) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.Tolerations = tols }
}

func TestAdmit(t *testing.T) {
	memory := []v1.NodeConditionType{v1.NodeMemoryPressure}
	disk := []v1.NodeConditionType{v1.NodeDiskPressure}
	pid := []v1.NodeConditionType{v1.NodePIDPressure}
	both := []v1.NodeConditionType{v1.NodeMemoryPressure, v1.NodeDiskPressure}
	mp := v1.TaintNodeMemoryPressure

	bestEffort := admitPod("best-effort")
	burstable := admitPod("burstable", requests)
	critical := admitPod("critical", func(p *v1.Pod) { p.Spec.Priority = int32p(ranking.SystemCriticalPriority) })
	static := admitPod("static", func(p *v1.Pod) { p.Annotations = map[string]string{ranking.ConfigSourceAnnotationKey: "file"} })
	tolerant := admitPod("tolerant", tolerate(v1.Toleration{Key: mp, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}))
	tolerateAll := admitPod("tolerate-all", tolerate(v1.Toleration{Operator: v1.TolerationOpExists}))
	tolerateEmptyValue := admitPod("equal-empty", tolerate(v1.Toleration{Key: mp, Operator: v1.TolerationOpEqual}))
	wrongEffect := admitPod("no-execute", tolerate(v1.Toleration{Key: mp, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute}))
	diskTolerant := admitPod("disk-tolerant", tolerate(v1.Toleration{Key: v1.TaintNodeDiskPressure, Operator: v1.TolerationOpExists}))
	numeric := admitPod("numeric", tolerate(v1.Toleration{Key: mp, Operator: v1.TolerationOpGt, Value: "0"}))
	statusBurstable := admitPod("status-burstable", func(p *v1.Pod) { p.Status.QOSClass = v1.PodQOSBurstable })

	const memMsg = "The node had condition: [MemoryPressure]. "
	tests := []struct {
		name       string
		conditions []v1.NodeConditionType
		pod        *v1.Pod
		msg        string // "" = admitted
	}{
		{"no pressure admits a BestEffort pod", nil, bestEffort, ""},
		{"no pressure admits a nil pod", []v1.NodeConditionType{}, nil, ""},
		{"memory pressure admits a Burstable pod", memory, burstable, ""},
		{"memory pressure rejects a BestEffort pod", memory, bestEffort, memMsg},
		{"memory pressure rejects a nil pod", memory, nil, memMsg},
		{"memory pressure admits a BestEffort pod tolerating the taint", memory, tolerant, ""},
		{"a toleration of every taint counts", memory, tolerateAll, ""},
		{"Equal with an empty value matches the taint's empty value", memory, tolerateEmptyValue, ""},
		{"a NoExecute toleration does not match the NoSchedule taint", memory, wrongEffect, memMsg},
		{"a disk-pressure toleration does not help under memory pressure", memory, diskTolerant, memMsg},
		{"a numeric toleration never matches the valueless taint", memory, numeric, memMsg},
		{"status.qosClass counts", memory, statusBurstable, ""},
		{"memory pressure admits a critical BestEffort pod", memory, critical, ""},
		{"disk pressure rejects a Burstable pod", disk, burstable, "The node had condition: [DiskPressure]. "},
		{"disk pressure rejects a pod tolerating memory pressure", disk, tolerant, "The node had condition: [DiskPressure]. "},
		{"disk pressure admits a static pod", disk, static, ""},
		{"PID pressure rejects a Burstable pod", pid, burstable, "The node had condition: [PIDPressure]. "},
		{"PID pressure admits a critical pod", pid, critical, ""},
		{"memory and disk pressure reject a Burstable pod", both, burstable, "The node had condition: [MemoryPressure DiskPressure]. "},
		{"a repeated memory pressure counts as two conditions", []v1.NodeConditionType{v1.NodeMemoryPressure, v1.NodeMemoryPressure}, burstable,
			"The node had condition: [MemoryPressure MemoryPressure]. "},
		{"an unknown condition rejects", []v1.NodeConditionType{"Other"}, burstable, "The node had condition: [Other]. "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Admit(tc.conditions, tc.pod, ranking.Options{})
			if tc.msg == "" {
				assert.Equal(t, Admission{Admit: true}, got)
				return
			}
			assert.Equal(t, Admission{Reason: "Evicted", Message: tc.msg}, got)
		})
	}
}

func TestAdmitPodLevelResources(t *testing.T) {
	// Pod-level requests make the pod Burstable, unless the gate is off.
	p := admitPod("pod-level", func(p *v1.Pod) {
		p.Spec.Resources = &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceMemory: resource.MustParse("64Mi")}}
	})
	memory := []v1.NodeConditionType{v1.NodeMemoryPressure}
	assert.True(t, Admit(memory, p, ranking.Options{}).Admit)
	assert.False(t, Admit(memory, p, ranking.Options{DisablePodLevelResources: true}).Admit)
}

func TestAdmitDoesNotModify(t *testing.T) {
	conditions := []v1.NodeConditionType{v1.NodeDiskPressure, v1.NodeMemoryPressure}
	p := admitPod("p")
	before := p.DeepCopy()
	Admit(conditions, p, ranking.Options{})
	assert.Equal(t, before, p)
	assert.Equal(t, []v1.NodeConditionType{v1.NodeDiskPressure, v1.NodeMemoryPressure}, conditions)
}
