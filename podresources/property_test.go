package podresources_test

import (
	"fmt"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/podresources"
)

var names = []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage, "hugepages-2Mi", "example.com/gpu"}

// amounts draws a sparse list of small amounts.
func amounts(t *rapid.T, label string) v1.ResourceList {
	l := v1.ResourceList{}
	for _, n := range names {
		if rapid.IntRange(0, 2).Draw(t, label+"."+string(n)+"?") == 0 {
			l[n] = *resource.NewMilliQuantity(int64(rapid.IntRange(0, 4000).Draw(t, label+"."+string(n))), resource.DecimalSI)
		}
	}
	return l
}

// validContainer draws a container whose limit, where set, is at least its
// request, and whose request is set wherever its limit is.
func validContainer(t *rapid.T, name string) v1.Container {
	req := amounts(t, name+".req")
	lim := v1.ResourceList{}
	for n, q := range req {
		if rapid.Bool().Draw(t, name+".lim."+string(n)+"?") {
			l := q.DeepCopy()
			l.Add(*resource.NewMilliQuantity(int64(rapid.IntRange(0, 1000).Draw(t, name+".lim."+string(n))), resource.DecimalSI))
			lim[n] = l
		}
	}
	return ctr(name, req, lim)
}

// randomPod draws containers, sidecars, pod-level resources, overhead and
// container status.
func randomPod(valid bool) *rapid.Generator[*v1.Pod] {
	return rapid.Custom(func(t *rapid.T) *v1.Pod {
		draw := func(name string) v1.Container {
			if valid {
				return validContainer(t, name)
			}
			return ctr(name, amounts(t, name+".req"), amounts(t, name+".lim"))
		}
		pod := &v1.Pod{}
		for i := range rapid.IntRange(0, 3).Draw(t, "containers") {
			pod.Spec.Containers = append(pod.Spec.Containers, draw(fmt.Sprintf("c%d", i)))
		}
		always := v1.ContainerRestartPolicyAlways
		for i := range rapid.IntRange(0, 3).Draw(t, "init") {
			c := draw(fmt.Sprintf("i%d", i))
			if rapid.Bool().Draw(t, fmt.Sprintf("i%d.sidecar", i)) {
				c.RestartPolicy = &always
			}
			pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
		}
		if !valid && rapid.IntRange(0, 2).Draw(t, "podLevel?") == 0 {
			pod.Spec.Resources = &v1.ResourceRequirements{Requests: amounts(t, "pod.req"), Limits: amounts(t, "pod.lim")}
		}
		if rapid.Bool().Draw(t, "overhead?") {
			pod.Spec.Overhead = amounts(t, "overhead")
		}
		if !valid && rapid.Bool().Draw(t, "status?") {
			for _, c := range pod.Spec.Containers {
				pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, v1.ContainerStatus{
					Name: c.Name, AllocatedResources: amounts(t, c.Name+".allocated"),
				})
			}
		}
		return pod
	})
}

func drawOptions(t *rapid.T) podresources.Options {
	o := podresources.Options{
		UseStatusResources:          rapid.Bool().Draw(t, "status"),
		IgnorePodLevelStatus:        rapid.Bool().Draw(t, "ignorePodLevelStatus"),
		ExcludeOverhead:             rapid.Bool().Draw(t, "excludeOverhead"),
		SkipPodLevelResources:       rapid.Bool().Draw(t, "skipPodLevel"),
		SkipContainerLevelResources: rapid.Bool().Draw(t, "skipContainers"),
	}
	if rapid.Bool().Draw(t, "nonMissing?") {
		o.NonMissingContainerRequests = list("cpu", "100m", "memory", "200Mi")
	}
	return o
}

// The one-resource forms agree with the maps, key by key, and nothing
// modifies the pod.
func TestPropertyOneResourceAgreesWithMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pod := randomPod(false).Draw(t, "pod")
		opts := drawOptions(t)
		before := pod.DeepCopy()
		reqs, lims := podresources.Requests(pod, opts), podresources.Limits(pod, opts)
		for _, n := range append(names, "pods") {
			q, ok := podresources.Request(pod, n, opts)
			w, wok := reqs[n]
			if ok != wok || q.Cmp(w) != 0 {
				t.Fatalf("Request(%s) = %s %v, Requests has %s %v", n, q.String(), ok, w.String(), wok)
			}
			q, ok = podresources.Limit(pod, n, opts)
			w, wok = lims[n]
			if ok != wok || q.Cmp(w) != 0 {
				t.Fatalf("Limit(%s) = %s %v, Limits has %s %v", n, q.String(), ok, w.String(), wok)
			}
		}
		if !reflect.DeepEqual(before, pod) {
			t.Fatal("pod modified")
		}
	})
}

// AllRequests yields exactly the map of Requests, each resource once.
func TestPropertyAllRequestsIsTheMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pod := randomPod(false).Draw(t, "pod")
		opts := drawOptions(t)
		want := podresources.Requests(pod, opts)
		got := v1.ResourceList{}
		for name, q := range podresources.AllRequests(pod, opts) {
			if _, dup := got[name]; dup {
				t.Fatalf("%s yielded twice", name)
			}
			got[name] = q
		}
		if len(got) != len(want) {
			t.Fatalf("AllRequests yields %v, Requests is %v", got, want)
		}
		for name, w := range want {
			if q, ok := got[name]; !ok || q.Cmp(w) != 0 {
				t.Fatalf("AllRequests yields %s for %s, Requests has %s", q.String(), name, w.String())
			}
		}
		for range podresources.AllRequests(pod, opts) {
			break // stopping early must not panic
		}
	})
}

// Without pod-level resources, the pod requests at least what any one of
// its containers requests (a regular one runs beside the others, an init
// one at its own step).
func TestPropertyRequestsCoverEachContainer(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pod := randomPod(false).Draw(t, "pod")
		pod.Spec.Resources = nil
		reqs := podresources.Requests(pod, podresources.Options{ExcludeOverhead: true})
		for _, list := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
			for _, c := range list {
				for n, q := range c.Resources.Requests {
					got, ok := reqs[n]
					if !ok || got.Cmp(q) < 0 {
						t.Fatalf("%s requests %s %s, the pod %s", c.Name, q.String(), n, got.String())
					}
				}
			}
		}
	})
}

// Overhead is added exactly when it is not excluded: to every request, and
// to every non-zero limit.
func TestPropertyOverheadAddedUnlessExcluded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pod := randomPod(false).Draw(t, "pod")
		opts := drawOptions(t)
		opts.ExcludeOverhead = false
		excl := opts
		excl.ExcludeOverhead = true
		for _, n := range names {
			with, wok := podresources.Request(pod, n, opts)
			without, _ := podresources.Request(pod, n, excl)
			want := without.DeepCopy()
			ov, hasOv := pod.Spec.Overhead[n]
			if hasOv {
				want.Add(ov)
			}
			if wok && with.Cmp(want) != 0 {
				t.Fatalf("request %s: %s with overhead, %s without, overhead %s", n, with.String(), without.String(), ov.String())
			}
			lwith, _ := podresources.Limit(pod, n, opts)
			lwithout, lok := podresources.Limit(pod, n, excl)
			want = lwithout.DeepCopy()
			if hasOv && lok && !lwithout.IsZero() {
				want.Add(ov)
			}
			if lwith.Cmp(want) != 0 {
				t.Fatalf("limit %s: %s with overhead, %s without, overhead %s", n, lwith.String(), lwithout.String(), ov.String())
			}
		}
	})
}

// In a valid pod (each container's limit at least its request, a request
// wherever there is a limit) the pod's limit is at least its request, for
// every resource both set.
func TestPropertyLimitsCoverRequests(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pod := randomPod(true).Draw(t, "pod")
		opts := podresources.Options{ExcludeOverhead: true}
		for _, n := range names {
			req, rok := podresources.Request(pod, n, opts)
			lim, lok := podresources.Limit(pod, n, opts)
			every := true
			for _, list := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
				for _, c := range list {
					if _, ok := c.Resources.Limits[n]; !ok {
						if _, has := c.Resources.Requests[n]; has {
							every = false
						}
					}
				}
			}
			if rok && lok && every && lim.Cmp(req) < 0 {
				t.Fatalf("%s: limit %s below request %s", n, lim.String(), req.String())
			}
		}
	})
}
