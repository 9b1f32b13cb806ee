package ranking

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/thresholds"
)

// metThreshold is one threshold that drove a cycle and the observation of its signal.
type metThreshold struct {
	signal    thresholds.Signal
	quantity  string
	available resource.Quantity
}

func met(signal thresholds.Signal, quantity string, available int64) metThreshold {
	return metThreshold{signal, quantity, *resource.NewQuantity(available, resource.BinarySI)}
}

// split turns ms into what EvictionMessage reads: the thresholds, in order, and the
// observations of their signals.
func split(ms []metThreshold) ([]thresholds.Threshold, thresholds.Observations) {
	var ts []thresholds.Threshold
	obs := thresholds.Observations{}
	for _, m := range ms {
		q := resource.MustParse(m.quantity)
		ts = append(ts, thresholds.Threshold{Signal: m.signal, Value: thresholds.Value{Quantity: &q}})
		a := m.available.DeepCopy()
		obs[m.signal] = thresholds.Observation{Available: &a}
	}
	return ts, obs
}

// TestEvictionMessage covers the message and annotations of a pressure eviction: the
// threshold clause, the pod-level and container clauses for memory and ephemeral-storage,
// and none for inodes and PIDs or for a pod without stats.
func TestEvictionMessage(t *testing.T) {
	memThreshold := []metThreshold{met("pid.available", "10", 5), met("memory.available", "2Gi", int64(mib(1500)))}
	tests := []struct {
		name    string
		res     v1.ResourceName
		pod     *v1.Pod
		usage   map[string]Usage
		met     []metThreshold
		want    string
		wantAnn map[string]string
	}{
		{
			name:  "memory, containers without memory figures: the first threshold on memory",
			res:   v1.ResourceMemory,
			pod:   memPod("p", "100Mi"),
			usage: map[string]Usage{"p": {MemoryWorkingSet: mib(500), Containers: []ContainerUsage{{Name: "c"}}}},
			met:   memThreshold,
			want:  "The node was low on resource: memory. Threshold quantity: 2Gi, available: 1500Mi. ",
			wantAnn: map[string]string{OffendingContainersKey: "", OffendingContainersUsageKey: "",
				StarvedResourceKey: "memory"},
		},
		{
			name:  "pids: the pid threshold, not the memory one before it",
			res:   thresholds.ResourcePIDs,
			pod:   mkPod("p"),
			usage: map[string]Usage{"p": {Processes: 1000}},
			met:   []metThreshold{met("memory.available", "1Gi", 1), {"pid.available", "1200", *resource.NewQuantity(500, resource.DecimalSI)}},
			want:  "The node was low on resource: pids. Threshold quantity: 1200, available: 500. ",
			wantAnn: map[string]string{OffendingContainersKey: "", OffendingContainersUsageKey: "",
				StarvedResourceKey: "pids"},
		},
		{
			name:  "nodefs, container above requests",
			res:   v1.ResourceEphemeralStorage,
			pod:   mkPod("p", containers(ctr("above-requests", rl("ephemeral-storage", "100Mi"), nil))),
			usage: map[string]Usage{"p": {Containers: []ContainerUsage{{Name: "above-requests", Rootfs: FSUsage{UsedBytes: mib(700)}}}}},
			met:   []metThreshold{met("nodefs.available", "2Gi", int64(mib(1536)))},
			want: "The node was low on resource: ephemeral-storage. Threshold quantity: 2Gi, available: 1536Mi. " +
				"Container above-requests was using 700Mi, request is 100Mi, has larger consumption of ephemeral-storage. ",
			wantAnn: map[string]string{OffendingContainersKey: "above-requests", OffendingContainersUsageKey: "700Mi",
				StarvedResourceKey: "ephemeral-storage"},
		},
		{
			name:  "init container over its request",
			res:   v1.ResourceMemory,
			pod:   mkPod("p", initContainers(ctr("init1", rl("memory", "100Mi"), nil)), containers(ctr("main", rl("memory", "1Gi"), nil))),
			usage: map[string]Usage{"p": {Containers: []ContainerUsage{{Name: "init1", MemoryWorkingSet: mib(150)}}}},
			want: "The node was low on resource: memory. " +
				"Container init1 was using 150Mi, request is 100Mi, has larger consumption of memory. ",
			wantAnn: map[string]string{OffendingContainersKey: "init1", OffendingContainersUsageKey: "150Mi",
				StarvedResourceKey: "memory"},
		},
		{
			name: "sidecar over, ephemeral container ignored, no request reads 0, stats order",
			res:  v1.ResourceMemory,
			pod: func() *v1.Pod {
				p := mkPod("p", initContainers(sidecar("side", rl("memory", "200Mi"), nil)),
					containers(ctr("a", nil, nil), ctr("b", rl("memory", "1Gi"), nil)))
				p.Spec.EphemeralContainers = []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug"}}}
				return p
			}(),
			usage: map[string]Usage{"p": {Containers: []ContainerUsage{
				{Name: "debug", MemoryWorkingSet: mib(250)},
				{Name: "b", MemoryWorkingSet: mib(10)},
				{Name: "side", MemoryWorkingSet: mib(250)},
				{Name: "a", MemoryWorkingSet: mib(5)},
			}}},
			want: "The node was low on resource: memory. " +
				"Container side was using 250Mi, request is 200Mi, has larger consumption of memory. " +
				"Container a was using 5Mi, request is 0, has larger consumption of memory. ",
			wantAnn: map[string]string{OffendingContainersKey: "side,a", OffendingContainersUsageKey: "250Mi,5Mi",
				StarvedResourceKey: "memory"},
		},
		{
			name: "pod-level memory request",
			res:  v1.ResourceMemory,
			pod:  mkPod("web", containers(ctr("a", nil, nil), ctr("b", nil, nil)), podResources(rl("memory", "250Mi"), nil)),
			usage: map[string]Usage{"web": {MemoryWorkingSet: mib(600), Containers: []ContainerUsage{
				{Name: "a", MemoryWorkingSet: mib(250)}, {Name: "b", MemoryWorkingSet: mib(350)}}}},
			want: "The node was low on resource: memory. " +
				"Pod web was using 600Mi, request is 250Mi, has larger consumption of memory. " +
				"Container a was using 250Mi, request is 0, has larger consumption of memory. " +
				"Container b was using 350Mi, request is 0, has larger consumption of memory. ",
			wantAnn: map[string]string{OffendingPodKey: "web", OffendingPodUsageKey: "600Mi",
				OffendingContainersKey: "a,b", OffendingContainersUsageKey: "250Mi,350Mi", StarvedResourceKey: "memory"},
		},
		{
			name:  "pod-level clause even below the request",
			res:   v1.ResourceMemory,
			pod:   mkPod("web", containers(ctr("a", nil, nil)), podResources(rl("memory", "250Mi"), nil)),
			usage: map[string]Usage{"web": {MemoryWorkingSet: mib(100)}},
			want: "The node was low on resource: memory. " +
				"Pod web was using 100Mi, request is 250Mi, has larger consumption of memory. ",
			wantAnn: map[string]string{OffendingPodKey: "web", OffendingPodUsageKey: "100Mi",
				OffendingContainersKey: "", OffendingContainersUsageKey: "", StarvedResourceKey: "memory"},
		},
		{
			name:    "no stats: threshold clause only, no annotations",
			res:     v1.ResourceMemory,
			pod:     memPod("p", "1"),
			met:     memThreshold,
			want:    "The node was low on resource: memory. Threshold quantity: 2Gi, available: 1500Mi. ",
			wantAnn: map[string]string{},
		},
		{
			name:  "inodes: no container clause",
			res:   thresholds.ResourceInodes,
			pod:   mkPod("p", containers(ctr("c", nil, nil))),
			usage: map[string]Usage{"p": {Containers: []ContainerUsage{{Name: "c", Rootfs: FSUsage{UsedBytes: 1, InodesUsed: 100}}}}},
			want:  "The node was low on resource: inodes. ",
			wantAnn: map[string]string{OffendingContainersKey: "", OffendingContainersUsageKey: "",
				StarvedResourceKey: "inodes"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.pod.DeepCopy()
			ts, obs := split(tc.met)
			msg, ann := EvictionMessage(tc.res, tc.pod, usageMap(tc.usage), ts, obs, Options{})
			assert.Equal(t, tc.want, msg)
			assert.Equal(t, tc.wantAnn, ann)
			assert.Equal(t, before, tc.pod)
		})
	}
}

func TestEvictionMessageGateOff(t *testing.T) {
	pod := mkPod("web", containers(ctr("a", nil, nil)), podResources(rl("memory", "250Mi"), nil))
	msg, ann := EvictionMessage(v1.ResourceMemory, pod,
		usageMap(map[string]Usage{"web": {MemoryWorkingSet: mib(600)}}), nil, nil, Options{DisablePodLevelResources: true})
	assert.Equal(t, "The node was low on resource: memory. ", msg)
	assert.NotContains(t, ann, OffendingPodKey)
}

// TestEvictedStatus covers the status the kubelet writes for an eviction: phase, reason,
// message and the DisruptionTarget condition.
func TestEvictedStatus(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	earlier := metav1.NewTime(now.Add(-time.Hour))
	msg := "The node was low on resource: memory. "
	pod := mkPod("p")
	pod.Generation = 7
	pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
	before := pod.DeepCopy()

	st := EvictedStatus(pod, msg, now)
	assert.Equal(t, before, pod)
	assert.Equal(t, v1.PodFailed, st.Phase)
	assert.Equal(t, "Evicted", st.Reason)
	assert.Equal(t, msg, st.Message)
	assert.True(t, IsEvicted(st))
	require.Len(t, st.Conditions, 2)
	assert.Equal(t, v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, ObservedGeneration: 7,
		LastTransitionTime: metav1.NewTime(now), Reason: "TerminationByKubelet", Message: msg}, st.Conditions[1])

	// An existing True condition keeps its transition time and is replaced in place.
	pod.Status.Conditions = []v1.PodCondition{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, LastTransitionTime: earlier, Reason: "Other"}}
	st = EvictedStatus(pod, msg, now)
	require.Len(t, st.Conditions, 1)
	assert.Equal(t, earlier, st.Conditions[0].LastTransitionTime)
	assert.Equal(t, "TerminationByKubelet", st.Conditions[0].Reason)
	// An existing False condition transitions now.
	pod.Status.Conditions[0].Status = v1.ConditionFalse
	st = EvictedStatus(pod, msg, now)
	assert.Equal(t, metav1.NewTime(now), st.Conditions[0].LastTransitionTime)

	ls := LocalStorageEvictedStatus(pod, "m")
	assert.True(t, IsEvicted(ls))
	assert.Equal(t, pod.Status.Conditions, ls.Conditions, "no condition added")
	assert.False(t, IsEvicted(v1.PodStatus{Phase: v1.PodFailed}))
	assert.False(t, IsEvicted(v1.PodStatus{Reason: Reason}))
	assert.True(t, IsEvicted(EvictedStatus(nil, "", now)))
}
