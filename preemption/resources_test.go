package preemption_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/preemption"
)

func rl(kv ...string) v1.ResourceList {
	l := v1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

func container(name string, requests v1.ResourceList) v1.Container {
	return v1.Container{Name: name, Resources: v1.ResourceRequirements{Requests: requests}}
}

func sidecar(name string, requests v1.ResourceList) v1.Container {
	always := v1.ContainerRestartPolicyAlways
	c := container(name, requests)
	c.RestartPolicy = &always
	return c
}

func podWith(spec v1.PodSpec, status v1.PodStatus) *v1.Pod {
	p := mkPod("p")
	p.Spec = spec
	p.Status = status
	return p
}

// TestPodRequests covers the request vector of a preemptor: init containers,
// sidecars, pod-level requests and overhead, and the NodeResourcesFit
// conversion rules.
func TestPodRequests(t *testing.T) {
	for _, c := range []struct {
		name string
		pod  *v1.Pod
		want preemption.Resources
	}{
		{
			name: "an init container above the containers' sum sets the request",
			pod: podWith(v1.PodSpec{
				InitContainers: []v1.Container{container("i", rl("cpu", "400m"))},
				Containers:     []v1.Container{container("a", rl("cpu", "100m")), container("b", rl("cpu", "100m"))},
			}, v1.PodStatus{}),
			want: preemption.Resources{MilliCPU: 400},
		},
		{
			name: "sidecars run beside later init containers; overhead is added",
			pod: podWith(v1.PodSpec{
				InitContainers: []v1.Container{sidecar("s", rl("cpu", "100m")), container("i", rl("cpu", "300m"))},
				Containers:     []v1.Container{container("a", rl("cpu", "200m"))},
				Overhead:       rl("cpu", "50m"),
			}, v1.PodStatus{}),
			want: preemption.Resources{MilliCPU: 450},
		},
		{
			name: "pod-level requests replace cpu only",
			pod: podWith(v1.PodSpec{
				Resources:  &v1.ResourceRequirements{Requests: rl("cpu", "1")},
				Containers: []v1.Container{container("a", rl("cpu", "100m", "memory", "1Mi")), container("b", rl("cpu", "100m", "memory", "1Mi"))},
			}, v1.PodStatus{}),
			want: preemption.Resources{MilliCPU: 1000, Memory: 2 << 20},
		},
		{
			name: "pod-level hugepages count, other pod-level names do not",
			pod: podWith(v1.PodSpec{
				Resources:  &v1.ResourceRequirements{Requests: rl("hugepages-2Mi", "4Mi", "ephemeral-storage", "1Gi")},
				Containers: []v1.Container{container("a", rl("ephemeral-storage", "1Ki"))},
			}, v1.PodStatus{}),
			want: preemption.Resources{EphemeralStorage: 1024, Scalars: map[v1.ResourceName]int64{"hugepages-2Mi": 4 << 20}},
		},
		{
			name: "quantities are summed before rounding up",
			pod: podWith(v1.PodSpec{Containers: []v1.Container{
				container("a", rl("memory", "500m", "cpu", "0.4m")), container("b", rl("memory", "500m", "cpu", "0.4m")),
			}}, v1.PodStatus{}),
			want: preemption.Resources{MilliCPU: 1, Memory: 1},
		},
		{
			name: "scalar names: extended, kubernetes.io/-prefixed, attachable volumes; pods and unknown names ignored",
			pod: podWith(v1.PodSpec{Containers: []v1.Container{container("a", rl(
				"example.com/gpu", "2", "kubernetes.io/batch", "1", "attachable-volumes-csi", "3",
				"pods", "5", "foo", "1", "requests.example.com/x", "1",
			))}}, v1.PodStatus{}),
			want: preemption.Resources{Scalars: map[v1.ResourceName]int64{
				"example.com/gpu": 2, "kubernetes.io/batch": 1, "attachable-volumes-csi": 3,
			}},
		},
		{
			name: "the preemptor's status is not read",
			pod: podWith(v1.PodSpec{Containers: []v1.Container{container("a", rl("cpu", "100m"))}},
				v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "a", AllocatedResources: rl("cpu", "900m")}}}),
			want: preemption.Resources{MilliCPU: 100},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, preemption.PodRequests(c.pod))
		})
	}
	assert.Equal(t, preemption.Resources{}, preemption.PodRequests(nil))
}

// TestAssignedPodRequests covers what a pod already on a node is charged:
// max(spec, allocated, actual) per container, as the scheduler cache does
// with InPlacePodVerticalScaling.
func TestAssignedPodRequests(t *testing.T) {
	spec := v1.PodSpec{Containers: []v1.Container{container("a", rl("cpu", "500m", "memory", "100"))}}
	infeasible := []v1.PodCondition{{Type: v1.PodResizePending, Reason: v1.PodReasonInfeasible}}
	for _, c := range []struct {
		name string
		pod  *v1.Pod
		want preemption.Resources
	}{
		{
			name: "spec only",
			pod:  podWith(spec, v1.PodStatus{}),
			want: preemption.Resources{MilliCPU: 500, Memory: 100},
		},
		{
			name: "allocated above spec",
			pod: podWith(spec, v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{
				{Name: "a", AllocatedResources: rl("cpu", "700m", "memory", "50")},
			}}),
			want: preemption.Resources{MilliCPU: 700, Memory: 100},
		},
		{
			name: "actual above spec",
			pod: podWith(spec, v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{
				{Name: "a", Resources: &v1.ResourceRequirements{Requests: rl("cpu", "800m")}},
			}}),
			want: preemption.Resources{MilliCPU: 800, Memory: 100},
		},
		{
			name: "an infeasible resize leaves the spec out",
			pod: podWith(spec, v1.PodStatus{Conditions: infeasible, ContainerStatuses: []v1.ContainerStatus{
				{Name: "a", AllocatedResources: rl("cpu", "200m", "memory", "50"), Resources: &v1.ResourceRequirements{Requests: rl("cpu", "200m", "memory", "50")}},
			}}),
			want: preemption.Resources{MilliCPU: 200, Memory: 50},
		},
		{
			name: "pod-level status maps replace the container statuses",
			pod: podWith(spec, v1.PodStatus{
				AllocatedResources: rl("cpu", "900m"),
				Resources:          &v1.ResourceRequirements{Requests: rl("cpu", "300m")},
				ContainerStatuses:  []v1.ContainerStatus{{Name: "a", AllocatedResources: rl("cpu", "2")}},
			}),
			want: preemption.Resources{MilliCPU: 900, Memory: 100},
		},
		{
			name: "pod-level requests with status: the largest of spec and status",
			pod: podWith(v1.PodSpec{
				Resources:  &v1.ResourceRequirements{Requests: rl("cpu", "1")},
				Containers: []v1.Container{container("a", rl("cpu", "100m"))},
			}, v1.PodStatus{Resources: &v1.ResourceRequirements{Requests: rl("cpu", "1500m")}}),
			want: preemption.Resources{MilliCPU: 1500},
		},
		{
			name: "init container statuses are found too",
			pod: podWith(v1.PodSpec{
				InitContainers: []v1.Container{sidecar("s", rl("cpu", "100m"))},
				Containers:     []v1.Container{container("a", rl("cpu", "100m"))},
			}, v1.PodStatus{InitContainerStatuses: []v1.ContainerStatus{{Name: "s", AllocatedResources: rl("cpu", "400m")}}}),
			want: preemption.Resources{MilliCPU: 500},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, preemption.AssignedPodRequests(c.pod))
		})
	}
	assert.Equal(t, preemption.Resources{}, preemption.AssignedPodRequests(nil))
}

func TestNodeSnapshotAccessors(t *testing.T) {
	node := mkNode("n1", "2", "1Gi", 10, "example.com/gpu", "4", "foo", "9")
	a := mkPod("a", reqs("cpu", "100m", "example.com/gpu", "1"))
	b := mkPod("b", reqs("memory", "1Mi", "example.com/gpu", "2", "hugepages-1Gi", "1Gi"))
	nom := mkPod("nom", req("1", ""))
	s, err := preemption.NewNodeSnapshot(node, []*v1.Pod{a, b}, []*v1.Pod{nom})
	assert.NoError(t, err)
	assert.Equal(t, "n1", s.Name())
	assert.Same(t, node, s.Node())
	assert.Equal(t, []*v1.Pod{a, b}, s.Pods())
	assert.Equal(t, []*v1.Pod{nom}, s.NominatedPods())
	assert.Equal(t, preemption.Resources{
		MilliCPU: 2000, Memory: 1 << 30, Pods: 10,
		Scalars: map[v1.ResourceName]int64{"example.com/gpu": 4},
	}, s.Allocatable())
	assert.Equal(t, preemption.Resources{
		MilliCPU: 100, Memory: 1 << 20,
		Scalars: map[v1.ResourceName]int64{"example.com/gpu": 3, "hugepages-1Gi": 1 << 30},
	}, s.Requested())

	var zero preemption.NodeSnapshot
	assert.Empty(t, zero.Name())
	assert.Nil(t, zero.Pods())
	assert.Nil(t, zero.NominatedPods())
}
