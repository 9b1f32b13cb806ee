package podresources_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/podresources"
)

func ctr(name string, requests, limits v1.ResourceList) v1.Container {
	return v1.Container{Name: name, Resources: v1.ResourceRequirements{Requests: requests, Limits: limits}}
}

func sidecar(name string, requests, limits v1.ResourceList) v1.Container {
	always := v1.ContainerRestartPolicyAlways
	c := ctr(name, requests, limits)
	c.RestartPolicy = &always
	return c
}

func infeasible() v1.PodCondition {
	return v1.PodCondition{Type: v1.PodResizePending, Reason: v1.PodReasonInfeasible}
}

// show renders a list with sorted keys, for comparisons.
func show(l v1.ResourceList) map[string]string {
	out := map[string]string{}
	for _, n := range slices.Sorted(maps.Keys(l)) {
		q := l[n]
		out[string(n)] = q.String()
	}
	return out
}

func TestRequests(t *testing.T) {
	status := v1.PodStatus{
		ContainerStatuses: []v1.ContainerStatus{{Name: "c", AllocatedResources: list("memory", "2Gi"),
			Resources: &v1.ResourceRequirements{Requests: list("memory", "3Gi")}}},
	}
	for _, tc := range []struct {
		name   string
		spec   v1.PodSpec
		status v1.PodStatus
		opts   podresources.Options
		want   map[string]string
	}{
		{name: "no containers: empty", want: map[string]string{}},
		{
			name: "sidecar before an init container counts beside it",
			spec: v1.PodSpec{
				InitContainers: []v1.Container{sidecar("s", list("memory", "50Mi"), nil), ctr("i", list("memory", "200Mi"), nil)},
				Containers:     []v1.Container{ctr("c", list("memory", "100Mi"), nil)},
			},
			want: map[string]string{"memory": "250Mi"},
		},
		{
			name: "a key set only by an init container is present, even at zero",
			spec: v1.PodSpec{
				InitContainers: []v1.Container{ctr("i", list("example.com/gpu", "0"), nil)},
				Containers:     []v1.Container{ctr("c", list("cpu", "1"), nil)},
			},
			want: map[string]string{"cpu": "1", "example.com/gpu": "0"},
		},
		{
			name: "overhead is added to every request, and adds keys",
			spec: v1.PodSpec{Containers: []v1.Container{ctr("c", list("cpu", "1"), nil)}, Overhead: list("cpu", "100m", "memory", "10Mi")},
			want: map[string]string{"cpu": "1100m", "memory": "10Mi"},
		},
		{
			name: "exclude overhead",
			spec: v1.PodSpec{Containers: []v1.Container{ctr("c", list("cpu", "1"), nil)}, Overhead: list("cpu", "100m", "memory", "10Mi")},
			opts: podresources.Options{ExcludeOverhead: true},
			want: map[string]string{"cpu": "1"},
		},
		{
			name: "pod-level requests replace cpu and memory, not ephemeral-storage",
			spec: v1.PodSpec{
				Containers: []v1.Container{ctr("c", list("cpu", "1", "memory", "1Gi", "ephemeral-storage", "1Gi"), nil)},
				Resources:  &v1.ResourceRequirements{Requests: list("memory", "3Gi", "ephemeral-storage", "5Gi")},
			},
			want: map[string]string{"cpu": "1", "memory": "3Gi", "ephemeral-storage": "1Gi"},
		},
		{
			name: "skip pod-level resources",
			spec: v1.PodSpec{
				Containers: []v1.Container{ctr("c", list("memory", "1Gi"), nil)},
				Resources:  &v1.ResourceRequirements{Requests: list("memory", "3Gi")},
			},
			opts: podresources.Options{SkipPodLevelResources: true},
			want: map[string]string{"memory": "1Gi"},
		},
		{
			name: "pod-level limits alone leave the requests to the containers",
			spec: v1.PodSpec{
				Containers: []v1.Container{ctr("c", list("memory", "1Gi"), nil)},
				Resources:  &v1.ResourceRequirements{Limits: list("memory", "3Gi")},
			},
			want: map[string]string{"memory": "1Gi"},
		},
		{
			name: "skip container-level resources keeps pod-level and overhead",
			spec: v1.PodSpec{
				Containers: []v1.Container{ctr("c", list("cpu", "1", "memory", "1Gi"), nil)},
				Resources:  &v1.ResourceRequirements{Requests: list("memory", "3Gi")},
				Overhead:   list("cpu", "100m"),
			},
			opts: podresources.Options{SkipContainerLevelResources: true},
			want: map[string]string{"memory": "3Gi", "cpu": "100m"},
		},
		{
			name: "non-missing requests stand in for missing ones, not explicit zeros",
			spec: v1.PodSpec{Containers: []v1.Container{
				ctr("a", nil, nil), ctr("b", list("cpu", "0"), nil),
			}},
			opts: podresources.Options{NonMissingContainerRequests: list("cpu", "100m", "memory", "200Mi")},
			want: map[string]string{"cpu": "100m", "memory": "400Mi"},
		},
		{
			name:   "status ignored by default",
			spec:   v1.PodSpec{Containers: []v1.Container{ctr("c", list("memory", "1Gi"), nil)}},
			status: status,
			want:   map[string]string{"memory": "1Gi"},
		},
		{
			name:   "status resources: the largest of spec, allocated and actuated",
			spec:   v1.PodSpec{Containers: []v1.Container{ctr("c", list("memory", "1Gi"), nil)}},
			status: status,
			opts:   podresources.Options{UseStatusResources: true},
			want:   map[string]string{"memory": "3Gi"},
		},
		{
			name: "status resources: an infeasible resize leaves the spec out",
			spec: v1.PodSpec{Containers: []v1.Container{ctr("c", list("memory", "8Gi"), nil)}},
			status: v1.PodStatus{Conditions: []v1.PodCondition{infeasible()},
				ContainerStatuses: []v1.ContainerStatus{{Name: "c", AllocatedResources: list("memory", "2Gi")}}},
			opts: podresources.Options{UseStatusResources: true},
			want: map[string]string{"memory": "2Gi"},
		},
		{
			name: "status resources: pod-level status replaces the container statuses",
			spec: v1.PodSpec{Containers: []v1.Container{ctr("c", list("memory", "1Gi"), nil)}},
			status: v1.PodStatus{
				ContainerStatuses:  []v1.ContainerStatus{{Name: "c", AllocatedResources: list("memory", "9Gi")}},
				AllocatedResources: list("memory", "2Gi"),
				Resources:          &v1.ResourceRequirements{Requests: list("memory", "1500Mi")},
			},
			opts: podresources.Options{UseStatusResources: true},
			want: map[string]string{"memory": "2Gi"},
		},
		{
			name: "status resources without the pod-level gate read the containers",
			spec: v1.PodSpec{Containers: []v1.Container{ctr("c", list("memory", "1Gi"), nil)}},
			status: v1.PodStatus{
				ContainerStatuses:  []v1.ContainerStatus{{Name: "c", AllocatedResources: list("memory", "9Gi")}},
				AllocatedResources: list("memory", "2Gi"),
				Resources:          &v1.ResourceRequirements{Requests: list("memory", "1500Mi")},
			},
			opts: podresources.Options{UseStatusResources: true, IgnorePodLevelStatus: true},
			want: map[string]string{"memory": "9Gi"},
		},
		{
			name: "status resources: pod-level requests raised to the pod-level status",
			spec: v1.PodSpec{
				Containers: []v1.Container{ctr("c", nil, nil)},
				Resources:  &v1.ResourceRequirements{Requests: list("cpu", "1")},
			},
			status: v1.PodStatus{Resources: &v1.ResourceRequirements{Requests: list("cpu", "2")}},
			opts:   podresources.Options{UseStatusResources: true},
			want:   map[string]string{"cpu": "2"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{Spec: tc.spec, Status: tc.status}
			before := pod.DeepCopy()
			assert.Equal(t, tc.want, show(podresources.Requests(pod, tc.opts)))
			assert.Equal(t, before, pod, "pod modified")
		})
	}
}

func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spec   v1.PodSpec
		status v1.PodStatus
		opts   podresources.Options
		want   map[string]string
	}{
		{
			name: "init containers by peak, sidecars summed, explicit zero kept",
			spec: v1.PodSpec{
				InitContainers: []v1.Container{ctr("i", nil, list("memory", "3Gi")), sidecar("s", nil, list("memory", "1Gi"))},
				Containers:     []v1.Container{ctr("c", nil, list("memory", "1Gi", "cpu", "0"))},
			},
			want: map[string]string{"memory": "3Gi", "cpu": "0"},
		},
		{
			name: "overhead only on non-zero limits, and adds no key",
			spec: v1.PodSpec{
				Containers: []v1.Container{ctr("c", nil, list("memory", "1Gi", "cpu", "0"))},
				Overhead:   list("memory", "64Mi", "cpu", "100m", "ephemeral-storage", "1Gi"),
			},
			want: map[string]string{"memory": "1088Mi", "cpu": "0"},
		},
		{
			name: "exclude overhead",
			spec: v1.PodSpec{Containers: []v1.Container{ctr("c", nil, list("memory", "1Gi"))}, Overhead: list("memory", "64Mi")},
			opts: podresources.Options{ExcludeOverhead: true},
			want: map[string]string{"memory": "1Gi"},
		},
		{
			name: "pod-level requests alone make pod-level limits apply (none here)",
			spec: v1.PodSpec{
				Containers: []v1.Container{ctr("c", nil, list("memory", "1Gi"))},
				Resources:  &v1.ResourceRequirements{Requests: list("memory", "512Mi")},
			},
			want: map[string]string{"memory": "1Gi"},
		},
		{
			name: "skip pod-level resources",
			spec: v1.PodSpec{
				Containers: []v1.Container{ctr("c", nil, list("memory", "1Gi"))},
				Resources:  &v1.ResourceRequirements{Limits: list("memory", "3Gi")},
			},
			opts: podresources.Options{SkipPodLevelResources: true},
			want: map[string]string{"memory": "1Gi"},
		},
		{
			name: "skip container-level resources does not apply to limits",
			spec: v1.PodSpec{Containers: []v1.Container{ctr("c", nil, list("memory", "1Gi"))}},
			opts: podresources.Options{SkipContainerLevelResources: true},
			want: map[string]string{"memory": "1Gi"},
		},
		{
			name: "status resources: actuated limits raise the spec",
			spec: v1.PodSpec{Containers: []v1.Container{ctr("c", nil, list("memory", "1Gi"))}},
			status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "c",
				Resources: &v1.ResourceRequirements{Limits: list("memory", "2Gi", "cpu", "1")}}}},
			opts: podresources.Options{UseStatusResources: true},
			want: map[string]string{"memory": "2Gi", "cpu": "1"},
		},
		{
			name: "status resources: an infeasible resize keeps the actuated limits only",
			spec: v1.PodSpec{Containers: []v1.Container{ctr("c", nil, list("memory", "8Gi"))}},
			status: v1.PodStatus{Conditions: []v1.PodCondition{infeasible()}, ContainerStatuses: []v1.ContainerStatus{{Name: "c",
				Resources: &v1.ResourceRequirements{Limits: list("memory", "2Gi")}}}},
			opts: podresources.Options{UseStatusResources: true},
			want: map[string]string{"memory": "2Gi"},
		},
		{
			name: "status resources: pod-level status limits replace the containers'",
			spec: v1.PodSpec{Containers: []v1.Container{ctr("c", nil, list("memory", "1Gi"))}},
			status: v1.PodStatus{
				ContainerStatuses: []v1.ContainerStatus{{Name: "c", Resources: &v1.ResourceRequirements{Limits: list("memory", "9Gi")}}},
				Resources:         &v1.ResourceRequirements{Limits: list("memory", "2Gi")},
			},
			opts: podresources.Options{UseStatusResources: true},
			want: map[string]string{"memory": "2Gi"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{Spec: tc.spec, Status: tc.status}
			before := pod.DeepCopy()
			assert.Equal(t, tc.want, show(podresources.Limits(pod, tc.opts)))
			assert.Equal(t, before, pod, "pod modified")
		})
	}
}

func TestNilPod(t *testing.T) {
	assert.Empty(t, podresources.Requests(nil, podresources.Options{}))
	assert.Empty(t, podresources.Limits(nil, podresources.Options{}))
	_, ok := podresources.Request(nil, v1.ResourceCPU, podresources.Options{})
	assert.False(t, ok)
	_, ok = podresources.Limit(nil, v1.ResourceCPU, podresources.Options{})
	assert.False(t, ok)
	assert.False(t, podresources.HasPodLevelResources(nil))
	assert.False(t, podresources.IsSidecar(nil))
}

func TestPodLevelHelpers(t *testing.T) {
	for _, name := range []v1.ResourceName{"cpu", "memory", "hugepages-2Mi", "hugepages-1Gi"} {
		assert.True(t, podresources.IsPodLevelResource(name), name)
	}
	for _, name := range []v1.ResourceName{"ephemeral-storage", "example.com/gpu", "pods", "hugepages"} {
		assert.False(t, podresources.IsPodLevelResource(name), name)
	}
	only := func(r *v1.ResourceRequirements) *v1.Pod { return &v1.Pod{Spec: v1.PodSpec{Resources: r}} }
	unsupported := only(&v1.ResourceRequirements{Requests: list("ephemeral-storage", "1Gi")})
	assert.False(t, podresources.HasPodLevelResources(unsupported))
	limits := only(&v1.ResourceRequirements{Limits: list("memory", "1Gi")})
	assert.True(t, podresources.HasPodLevelResources(limits))
	assert.True(t, podresources.HasPodLevelLimits(limits))
	assert.False(t, podresources.HasPodLevelRequests(limits))
	assert.True(t, podresources.HasPodLevelSet(limits.Spec.Resources))
	assert.False(t, podresources.HasPodLevelSet(nil))
}

func TestIsResizeInfeasible(t *testing.T) {
	assert.False(t, podresources.IsResizeInfeasible(nil), "a nil pod")
	pod := &v1.Pod{}
	assert.False(t, podresources.IsResizeInfeasible(pod))
	pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Reason: v1.PodReasonDeferred}, infeasible()}
	assert.False(t, podresources.IsResizeInfeasible(pod), "only the first PodResizePending condition counts")
	pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady}, infeasible()}
	assert.True(t, podresources.IsResizeInfeasible(pod))
}
