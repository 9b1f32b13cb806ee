package preemption_test

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/preemption"
)

// FuzzPreemptQuantities feeds arbitrary quantities (negative, fractional,
// huge) and priorities through the request vectors, the victim search and
// the whole decision: nothing may panic, a preemptor's request is never
// negative, a node's Requested is the sum of what its pods are charged, and
// a victim is always of lower priority than the preemptor.
func FuzzPreemptQuantities(f *testing.F) {
	for _, s := range [][4]string{
		{"500m", "300m", "200m", "500"},
		{"0", "0", "0", "0"},
		{"-1", "1", "2", "3"},
		{"9223372036854775807", "1e18", "1Ei", "1m"},
		{"0.5m", "0.4m", "100m", "1n"},
		{"1Pi", "-1Pi", "123456789", "3"},
	} {
		f.Add(s[0], s[1], s[2], s[3], int32(1000), int32(0), int32(100))
	}
	f.Fuzz(func(t *testing.T, preCPU, aCPU, bMem, allocCPU string, preP, aP, bP int32) {
		parse := func(s string) (resource.Quantity, bool) {
			q, err := resource.ParseQuantity(s)
			return q, err == nil
		}
		qs := make([]resource.Quantity, 4)
		for i, s := range []string{preCPU, aCPU, bMem, allocCPU} {
			q, ok := parse(s)
			if !ok {
				t.Skip()
			}
			qs[i] = q
		}
		pod := func(name string, p int32, l v1.ResourceList) *v1.Pod {
			x := mkPod(name, prio(p))
			x.Spec.Containers[0].Resources.Requests = l
			x.Spec.InitContainers = []v1.Container{sidecar("s", l), container("i", l)}
			x.Spec.Overhead = l
			return x
		}
		pre := pod("pre", preP, v1.ResourceList{v1.ResourceCPU: qs[0], v1.ResourceMemory: qs[0], "example.com/x": qs[0]})
		a := pod("a", aP, v1.ResourceList{v1.ResourceCPU: qs[1]})
		b := pod("b", bP, v1.ResourceList{v1.ResourceMemory: qs[2], "example.com/x": qs[2]})
		b.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", AllocatedResources: v1.ResourceList{v1.ResourceCPU: qs[3]}}}
		node := &v1.Node{}
		node.Name = "n1"
		node.Status.Allocatable = v1.ResourceList{
			v1.ResourceCPU: qs[3], v1.ResourceMemory: qs[3], v1.ResourcePods: qs[1], "example.com/x": qs[3],
		}
		s, err := preemption.NewNodeSnapshot(node, []*v1.Pod{a, b}, []*v1.Pod{pod("nom", bP, nil)})
		if err != nil {
			t.Fatal(err)
		}
		req := preemption.PodRequests(pre)
		if req.MilliCPU < 0 || req.Memory < 0 || req.EphemeralStorage < 0 || req.Scalars["example.com/x"] < 0 {
			t.Fatalf("negative preemptor request %+v", req)
		}
		if got, want := s.Requested(), sumResources(preemption.AssignedPodRequests(a), preemption.AssignedPodRequests(b)); !reflect.DeepEqual(got, want) {
			t.Fatalf("Requested %+v, sum of the pods' charges %+v", got, want)
		}
		opts := preemption.Options{Workers: 1}
		victims, ok := preemption.SelectVictims(pre, s, preemption.PDBs{}, now, opts)
		if ok {
			for _, v := range victims.Pods {
				if *v.Spec.Priority >= preP {
					t.Fatalf("victim %s priority %d >= %d", v.Name, *v.Spec.Priority, preP)
				}
			}
		}
		r, err := preemption.Evaluate(pre, []preemption.NodeSnapshot{s}, preemption.PDBs{}, now, opts)
		if (err == nil) != (r.Code == preemption.Success) {
			t.Fatalf("code %v with error %v", r.Code, err)
		}
	})
}

// sumResources adds resource vectors name by name; Scalars stays nil when
// no vector has any.
func sumResources(rs ...preemption.Resources) preemption.Resources {
	var out preemption.Resources
	for _, r := range rs {
		out.MilliCPU += r.MilliCPU
		out.Memory += r.Memory
		out.EphemeralStorage += r.EphemeralStorage
		for name, v := range r.Scalars {
			if out.Scalars == nil {
				out.Scalars = map[v1.ResourceName]int64{}
			}
			out.Scalars[name] += v
		}
	}
	return out
}
