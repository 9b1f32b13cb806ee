package conformance_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/podresources"
)

// podResourcesOptions lists every combination of the options that change an
// answer, each with the component-helpers options it stands for.
func podResourcesOptions() []struct {
	ours     podresources.Options
	upstream resourcehelper.PodResourcesOptions
} {
	nonMissing := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("100m"),
		v1.ResourceMemory: resource.MustParse("200Mi"),
	}
	var out []struct {
		ours     podresources.Options
		upstream resourcehelper.PodResourcesOptions
	}
	for bits := range 1 << 6 {
		on := func(i int) bool { return bits&(1<<i) != 0 }
		o := podresources.Options{
			UseStatusResources:          on(0),
			IgnorePodLevelStatus:        on(1),
			ExcludeOverhead:             on(2),
			SkipPodLevelResources:       on(3),
			SkipContainerLevelResources: on(4),
		}
		if on(5) {
			o.NonMissingContainerRequests = nonMissing
		}
		out = append(out, struct {
			ours     podresources.Options
			upstream resourcehelper.PodResourcesOptions
		}{o, resourcehelper.PodResourcesOptions{
			UseStatusResources: o.UseStatusResources,
			InPlacePodLevelResourcesVerticalScalingEnabled: !o.IgnorePodLevelStatus,
			ExcludeOverhead:             o.ExcludeOverhead,
			SkipPodLevelResources:       o.SkipPodLevelResources,
			SkipContainerLevelResources: o.SkipContainerLevelResources,
			NonMissingContainerRequests: o.NonMissingContainerRequests,
		}})
	}
	return out
}

// resizedPod draws a pod as gen.Pod does, with pod-level resources (hugepages
// among them) and overhead, and adds what in-place resize leaves in its
// status: container and pod-level allocated and actual resources, and a
// PodResizePending condition.
func resizedPod() *rapid.Generator[*v1.Pod] {
	return rapid.Custom(func(t *rapid.T) *v1.Pod {
		pod := gen.Pod("p", gen.PodOptions{PodLevel: true, Overhead: true}).Draw(t, "pod")
		if pod.Spec.Resources != nil && rapid.IntRange(0, 3).Draw(t, "hugepages?") == 0 {
			q := gen.Quantity(2*gen.Mi, 3).Draw(t, "hugepages")
			if pod.Spec.Resources.Limits == nil {
				pod.Spec.Resources.Limits = v1.ResourceList{}
			}
			pod.Spec.Resources.Limits["hugepages-2Mi"] = q
		}
		list := func(label string) v1.ResourceList {
			if !rapid.Bool().Draw(t, label+"?") {
				return nil
			}
			l := v1.ResourceList{}
			for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, "hugepages-2Mi", "example.com/gpu"} {
				if rapid.IntRange(0, 2).Draw(t, label+"."+string(name)+"?") == 0 {
					l[name] = *resource.NewQuantity(int64(rapid.IntRange(0, 4).Draw(t, label+"."+string(name))), resource.DecimalSI)
					if name == v1.ResourceCPU {
						l[name] = *resource.NewMilliQuantity(int64(rapid.IntRange(0, 8).Draw(t, label+".cpu"))*50, resource.DecimalSI)
					} else if name == v1.ResourceMemory || name == "hugepages-2Mi" {
						l[name] = gen.Quantity(50*gen.Mi, 8).Draw(t, label+"."+string(name)+".bytes")
					}
				}
			}
			return l
		}
		requirements := func(label string) *v1.ResourceRequirements {
			if !rapid.Bool().Draw(t, label+"?") {
				return nil
			}
			return &v1.ResourceRequirements{Requests: list(label + ".requests"), Limits: list(label + ".limits")}
		}
		statuses := func(ctrs []v1.Container, label string) []v1.ContainerStatus {
			var out []v1.ContainerStatus
			for i := range ctrs {
				if rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("%s%d?", label, i)) == 0 {
					continue
				}
				name := ctrs[i].Name
				if rapid.IntRange(0, 5).Draw(t, fmt.Sprintf("%s%d.stranger?", label, i)) == 0 {
					name += "-gone"
				}
				out = append(out, v1.ContainerStatus{
					Name:               name,
					AllocatedResources: list(fmt.Sprintf("%s%d.allocated", label, i)),
					Resources:          requirements(fmt.Sprintf("%s%d.resources", label, i)),
				})
			}
			return out
		}
		if rapid.IntRange(0, 3).Draw(t, "status?") > 0 {
			pod.Status.ContainerStatuses = statuses(pod.Spec.Containers, "cs")
			pod.Status.InitContainerStatuses = statuses(pod.Spec.InitContainers, "ics")
			pod.Status.AllocatedResources = list("allocated")
			pod.Status.Resources = requirements("resources")
		}
		switch rapid.IntRange(0, 3).Draw(t, "resize") {
		case 1:
			pod.Status.Conditions = append(pod.Status.Conditions, v1.PodCondition{Type: v1.PodResizePending, Reason: v1.PodReasonInfeasible})
		case 2:
			pod.Status.Conditions = append(pod.Status.Conditions, v1.PodCondition{Type: v1.PodResizePending, Reason: v1.PodReasonDeferred})
		}
		return pod
	})
}

// sameList reports whether two resource lists have the same keys, and equal
// quantities printed the same way under each.
func sameList(a, b v1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, qa := range a {
		qb, ok := b[name]
		if !ok || qa.Cmp(qb) != 0 || qa.String() != qb.String() {
			return false
		}
	}
	return true
}

func showList(l v1.ResourceList) string {
	names := slices.Sorted(maps.Keys(l))
	s := "{"
	for i, n := range names {
		if i > 0 {
			s += " "
		}
		q := l[n]
		s += string(n) + "=" + q.String()
	}
	return s + "}"
}

// TestPodResources compares podresources.Requests and Limits, and their
// one-resource forms Request and Limit, with component-helpers PodRequests
// and PodLimits under every combination of the options, over random pods
// with sidecars, pod-level resources, overhead and in-place resize status.
func TestPodResources(t *testing.T) {
	combos := podResourcesOptions()
	rapid.Check(t, func(t *rapid.T) {
		pod := resizedPod().Draw(t, "pod")
		before := pod.DeepCopy()
		for _, c := range combos {
			wantReq := resourcehelper.PodRequests(pod.DeepCopy(), c.upstream)
			gotReq := podresources.Requests(pod, c.ours)
			if !sameList(wantReq, gotReq) {
				t.Fatalf("Requests(%s, %+v):\nupstream %s\nevictkit %s", show(pod), c.ours, showList(wantReq), showList(gotReq))
			}
			wantLim := resourcehelper.PodLimits(pod.DeepCopy(), c.upstream)
			gotLim := podresources.Limits(pod, c.ours)
			if !sameList(wantLim, gotLim) {
				t.Fatalf("Limits(%s, %+v):\nupstream %s\nevictkit %s", show(pod), c.ours, showList(wantLim), showList(gotLim))
			}
			for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage, "hugepages-2Mi", "example.com/gpu", "inodes"} {
				q, ok := podresources.Request(pod, name, c.ours)
				w, wok := wantReq[name]
				if ok != wok || (ok && (q.Cmp(w) != 0 || q.String() != w.String())) {
					t.Fatalf("Request(%s, %s, %+v) = %s, %v; upstream %s, %v", show(pod), name, c.ours, q.String(), ok, w.String(), wok)
				}
				q, ok = podresources.Limit(pod, name, c.ours)
				w, wok = wantLim[name]
				if ok != wok || (ok && (q.Cmp(w) != 0 || q.String() != w.String())) {
					t.Fatalf("Limit(%s, %s, %+v) = %s, %v; upstream %s, %v", show(pod), name, c.ours, q.String(), ok, w.String(), wok)
				}
			}
		}
		if !apiequality.Semantic.DeepEqual(before, pod) {
			t.Fatalf("pod modified: %s", show(pod))
		}
	})
}

// TestPodResourcesUpstreamTableGaps runs the kinds of case of
// component-helpers' own resource tests that the library used to answer
// differently (it had no limits with status resources, no way to exclude
// overhead or to skip pod-level resources): each case states the expected
// list and is also checked against upstream.
func TestPodResourcesUpstreamTableGaps(t *testing.T) {
	l := func(kv ...string) v1.ResourceList {
		out := v1.ResourceList{}
		for i := 0; i+1 < len(kv); i += 2 {
			out[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return out
	}
	always := v1.ContainerRestartPolicyAlways
	limited := func(name, cpu string) v1.Container {
		return v1.Container{Name: name, Resources: v1.ResourceRequirements{Limits: l("cpu", cpu), Requests: l("cpu", cpu)}}
	}
	actual := func(name, cpu string) v1.ContainerStatus {
		return v1.ContainerStatus{Name: name, Resources: &v1.ResourceRequirements{Limits: l("cpu", cpu), Requests: l("cpu", cpu)}}
	}
	sidecar := limited("s", "1")
	sidecar.RestartPolicy = &always
	withStatus := podresources.Options{UseStatusResources: true}
	for _, tc := range []struct {
		name   string
		limits bool // Limits, else Requests
		pod    v1.Pod
		opts   podresources.Options
		want   v1.ResourceList
	}{
		{
			name: "limits with status resources: a pod scaled up is charged its larger actual limits", limits: true,
			pod: v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{limited("c", "1")}},
				Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{actual("c", "2")}}},
			opts: withStatus, want: l("cpu", "2"),
		},
		{
			name: "limits with status resources: a pod being scaled down keeps its larger spec limits", limits: true,
			pod: v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{limited("c", "4")}},
				Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{actual("c", "2")}}},
			opts: withStatus, want: l("cpu", "4"),
		},
		{
			name: "limits without status resources: the spec alone", limits: true,
			pod: v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{limited("c", "1")}},
				Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{actual("c", "2")}}},
			want: l("cpu", "1"),
		},
		{
			name: "limits with status resources: a scaled-up sidecar counts beside the containers", limits: true,
			pod: v1.Pod{Spec: v1.PodSpec{InitContainers: []v1.Container{sidecar}, Containers: []v1.Container{limited("c", "1")}},
				Status: v1.PodStatus{InitContainerStatuses: []v1.ContainerStatus{actual("s", "3")}}},
			opts: withStatus, want: l("cpu", "4"),
		},
		{
			name: "limits with status resources: an infeasible resize charges the actual limits only", limits: true,
			pod: v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{limited("c", "8")}},
				Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{actual("c", "2")},
					Conditions: []v1.PodCondition{{Type: v1.PodResizePending, Reason: v1.PodReasonInfeasible}}}},
			opts: withStatus, want: l("cpu", "2"),
		},
		{
			name: "limits excluding overhead", limits: true,
			pod:  v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{limited("c", "1")}, Overhead: l("cpu", "500m")}},
			opts: podresources.Options{ExcludeOverhead: true}, want: l("cpu", "1"),
		},
		{
			name: "requests excluding overhead",
			pod:  v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{limited("c", "1")}, Overhead: l("cpu", "500m", "memory", "1Gi")}},
			opts: podresources.Options{ExcludeOverhead: true}, want: l("cpu", "1"),
		},
		{
			name: "requests skipping pod-level resources: the containers' aggregate stands",
			pod: v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{limited("c", "1")},
				Resources: &v1.ResourceRequirements{Requests: l("cpu", "3")}}},
			opts: podresources.Options{SkipPodLevelResources: true}, want: l("cpu", "1"),
		},
		{
			name: "limits skipping pod-level resources: the containers' aggregate stands", limits: true,
			pod: v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{limited("c", "1")},
				Resources: &v1.ResourceRequirements{Limits: l("cpu", "3")}}},
			opts: podresources.Options{SkipPodLevelResources: true}, want: l("cpu", "1"),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := resourcehelper.PodResourcesOptions{
				UseStatusResources: tc.opts.UseStatusResources,
				InPlacePodLevelResourcesVerticalScalingEnabled: true,
				ExcludeOverhead:       tc.opts.ExcludeOverhead,
				SkipPodLevelResources: tc.opts.SkipPodLevelResources,
			}
			got, want := podresources.Requests(&tc.pod, tc.opts), resourcehelper.PodRequests(&tc.pod, up)
			if tc.limits {
				got, want = podresources.Limits(&tc.pod, tc.opts), resourcehelper.PodLimits(&tc.pod, up)
			}
			if !sameList(want, got) || !sameList(tc.want, got) {
				t.Fatalf("evictkit %s, upstream %s, expected %s", showList(got), showList(want), showList(tc.want))
			}
		})
	}
}
