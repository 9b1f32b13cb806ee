package preemption

import (
	"cmp"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Resources is a resource vector in the units NodeResourcesFit compares:
// millicores for cpu and integer units (bytes, devices, pages) for everything
// else. Quantities are rounded up to those units after they have been summed,
// exactly as the scheduler does.
type Resources struct {
	// MilliCPU is the cpu amount in millicores.
	MilliCPU int64
	// Memory is the memory amount in bytes.
	Memory int64
	// EphemeralStorage is the local ephemeral storage amount in bytes.
	EphemeralStorage int64
	// Pods is the pod-count limit of a node. It is always 0 in a pod's requests.
	Pods int64
	// Scalars holds the scalar resources: extended resources
	// ("example.com/gpu"), hugepages-*, attachable-volumes-* and
	// kubernetes.io/-prefixed names. Nil when there are none.
	Scalars map[v1.ResourceName]int64
}

// scalar is one scalar resource amount. Slices of them are kept sorted by name.
type scalar struct {
	name  v1.ResourceName
	value int64
}

// vector is the internal, allocation-free form of [Resources].
type vector struct {
	cpu, mem, eph int64
	scalars       []scalar // sorted by name
}

func (v vector) export() Resources {
	r := Resources{MilliCPU: v.cpu, Memory: v.mem, EphemeralStorage: v.eph}
	if len(v.scalars) > 0 {
		r.Scalars = make(map[v1.ResourceName]int64, len(v.scalars))
		for _, s := range v.scalars {
			r.Scalars[s.name] = s.value
		}
	}
	return r
}

// scalarValue returns the amount of name in a sorted scalar slice (0 if absent).
func scalarValue(s []scalar, name v1.ResourceName) int64 {
	i, ok := slices.BinarySearchFunc(s, name, func(e scalar, n v1.ResourceName) int { return cmp.Compare(e.name, n) })
	if !ok {
		return 0
	}
	return s[i].value
}

// addScalars returns the name-wise sum of two sorted scalar slices.
func addScalars(a, b []scalar) []scalar {
	if len(b) == 0 {
		return a
	}
	out := make([]scalar, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := cmp.Compare(a[i].name, b[j].name); {
		case c < 0:
			out = append(out, a[i])
			i++
		case c > 0:
			out = append(out, b[j])
			j++
		default:
			out = append(out, scalar{a[i].name, a[i].value + b[j].value})
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// PodRequests returns the request vector NodeResourcesFit checks for a pod
// that is being scheduled (the preemptor): the larger of the summed regular
// and sidecar containers and the peak of the init sequence, replaced by the
// pod-level requests for cpu, memory and hugepages-* when those are set, plus
// the pod overhead. Only the spec is read; a "pods" request is ignored and
// negative amounts count as 0.
func PodRequests(pod *v1.Pod) Resources {
	if pod == nil {
		return Resources{}
	}
	return preemptorVector(pod).export()
}

// AssignedPodRequests returns the vector a pod already on a node (bound,
// assumed or nominated) is charged on that node: for each container the
// largest of its spec requests, its status.allocatedResources and its actual
// status.resources (the spec is left out while a resize is Infeasible), with
// pod-level requests and overhead applied as in [PodRequests].
func AssignedPodRequests(pod *v1.Pod) Resources {
	if pod == nil {
		return Resources{}
	}
	return chargedVector(pod).export()
}

// preemptorVector mirrors computePodResourceRequest: spec-only requests, each
// amount raised to at least zero.
func preemptorVector(pod *v1.Pod) vector {
	v := listVector(requestList(pod, false))
	v.cpu, v.mem, v.eph = max(v.cpu, 0), max(v.mem, 0), max(v.eph, 0)
	for i := range v.scalars {
		v.scalars[i].value = max(v.scalars[i].value, 0)
	}
	return v
}

// chargedVector mirrors PodInfo.CalculateResource with InPlacePodVerticalScaling
// (GA) and InPlacePodLevelResourcesVerticalScaling (beta, on) enabled.
func chargedVector(pod *v1.Pod) vector {
	return listVector(requestList(pod, true))
}

// requestList is the pod's aggregated container requests with the pod-level
// requests and the overhead applied; useStatus as in aggregateRequests.
func requestList(pod *v1.Pod, useStatus bool) v1.ResourceList {
	reqs := aggregateRequests(pod, useStatus)
	applyPodLevel(pod, reqs, useStatus)
	addList(reqs, pod.Spec.Overhead)
	return reqs
}

// listVector converts a resource list the way Resource.Add does.
func listVector(l v1.ResourceList) vector {
	var v vector
	for name, q := range l {
		switch name {
		case v1.ResourceCPU:
			v.cpu += q.MilliValue()
		case v1.ResourceMemory:
			v.mem += q.Value()
		case v1.ResourceEphemeralStorage:
			v.eph += q.Value()
		case v1.ResourcePods:
			// A pod count is a capacity, never a request.
		default:
			if isScalarName(name) {
				v.scalars = append(v.scalars, scalar{name, q.Value()})
			}
		}
	}
	slices.SortFunc(v.scalars, func(a, b scalar) int { return cmp.Compare(a.name, b.name) })
	return v
}

// aggregateRequests folds the container requests of a pod: regular containers
// and sidecars are summed, then the result is raised to the peak any init
// container reaches together with the sidecars started before it. With
// useStatus, a pod already admitted is charged the largest of its spec,
// allocated and actuated requests.
func aggregateRequests(pod *v1.Pod, useStatus bool) v1.ResourceList {
	spec := foldContainers(pod, func(c *v1.Container) v1.ResourceList { return c.Resources.Requests })
	if !useStatus {
		return spec
	}
	infeasible := resizeInfeasible(pod)
	if !infeasible && !statusResourcesSet(pod) {
		// Allocated and actuated both fall back to the spec.
		return spec
	}
	var allocated, actuated v1.ResourceList
	if pod.Status.AllocatedResources != nil && pod.Status.Resources != nil && pod.Status.Resources.Requests != nil {
		allocated, actuated = pod.Status.AllocatedResources, pod.Status.Resources.Requests
	} else {
		allocated = foldContainers(pod, func(c *v1.Container) v1.ResourceList {
			return allocatedRequests(c, containerStatus(pod, c.Name), infeasible)
		})
		actuated = foldContainers(pod, func(c *v1.Container) v1.ResourceList {
			return actuatedRequests(c, containerStatus(pod, c.Name), infeasible)
		})
	}
	out := v1.ResourceList{}
	if !infeasible {
		maxList(out, spec)
	}
	maxList(out, actuated)
	maxList(out, allocated)
	return out
}

// statusResourcesSet reports whether the pod status carries allocated or
// actual resources at pod or container level.
func statusResourcesSet(pod *v1.Pod) bool {
	if pod.Status.AllocatedResources != nil || pod.Status.Resources != nil {
		return true
	}
	for _, list := range [][]v1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for i := range list {
			if list[i].AllocatedResources != nil || list[i].Resources != nil {
				return true
			}
		}
	}
	return false
}

func allocatedRequests(c *v1.Container, st *v1.ContainerStatus, infeasible bool) v1.ResourceList {
	switch {
	case st != nil && st.AllocatedResources != nil:
		return st.AllocatedResources
	case infeasible:
		return nil
	}
	return c.Resources.Requests
}

func actuatedRequests(c *v1.Container, st *v1.ContainerStatus, infeasible bool) v1.ResourceList {
	switch {
	case st != nil && st.Resources != nil && st.Resources.Requests != nil:
		return st.Resources.Requests
	case st != nil && st.AllocatedResources != nil:
		return st.AllocatedResources
	case infeasible:
		return nil
	}
	return c.Resources.Requests
}

// foldContainers applies the sidecar-aware container formula to the lists
// that get returns for each container.
func foldContainers(pod *v1.Pod, get func(*v1.Container) v1.ResourceList) v1.ResourceList {
	total := v1.ResourceList{}
	for i := range pod.Spec.Containers {
		addList(total, get(&pod.Spec.Containers[i]))
	}
	if len(pod.Spec.InitContainers) == 0 {
		return total
	}
	sidecars := v1.ResourceList{}
	peak := v1.ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		req := get(c)
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			addList(total, req)
			addList(sidecars, req)
			maxList(peak, sidecars)
			continue
		}
		step := v1.ResourceList{}
		addList(step, req)
		addList(step, sidecars)
		maxList(peak, step)
	}
	maxList(total, peak)
	return total
}

// applyPodLevel replaces cpu, memory and hugepages-* by the pod-level requests
// when the pod sets any of them (PodLevelResources, beta, on by default).
func applyPodLevel(pod *v1.Pod, reqs v1.ResourceList, useStatus bool) {
	if pod.Spec.Resources == nil || !podLevelRequestsSet(pod.Spec.Resources.Requests) {
		return
	}
	effective := pod.Spec.Resources.Requests
	if useStatus && pod.Status.Resources != nil {
		merged := v1.ResourceList{}
		if !resizeInfeasible(pod) {
			maxList(merged, effective)
		}
		maxList(merged, pod.Status.Resources.Requests)
		maxList(merged, pod.Status.AllocatedResources)
		effective = merged
	}
	for name, q := range effective {
		if podLevelResource(name) {
			reqs[name] = q
		}
	}
}

func podLevelRequestsSet(l v1.ResourceList) bool {
	for name := range l {
		if podLevelResource(name) {
			return true
		}
	}
	return false
}

func podLevelResource(name v1.ResourceName) bool {
	return name == v1.ResourceCPU || name == v1.ResourceMemory || strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix)
}

func resizeInfeasible(pod *v1.Pod) bool {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == v1.PodResizePending {
			return pod.Status.Conditions[i].Reason == v1.PodReasonInfeasible
		}
	}
	return false
}

func containerStatus(pod *v1.Pod, name string) *v1.ContainerStatus {
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == name {
			return &pod.Status.ContainerStatuses[i]
		}
	}
	for i := range pod.Status.InitContainerStatuses {
		if pod.Status.InitContainerStatuses[i].Name == name {
			return &pod.Status.InitContainerStatuses[i]
		}
	}
	return nil
}

// addList adds src into dst name by name, with exact quantity arithmetic.
func addList(dst, src v1.ResourceList) {
	for name, q := range src {
		cur, ok := dst[name]
		if !ok {
			dst[name] = q.DeepCopy()
			continue
		}
		cur.Add(q)
		dst[name] = cur
	}
}

// maxList raises dst to src name by name.
func maxList(dst, src v1.ResourceList) {
	for name, q := range src {
		if cur, ok := dst[name]; !ok || q.Cmp(cur) > 0 {
			dst[name] = q.DeepCopy()
		}
	}
}

// isScalarName reports whether the scheduler tracks name as a scalar
// resource (IsScalarResourceName).
func isScalarName(name v1.ResourceName) bool {
	s := string(name)
	return isExtendedName(name) ||
		strings.HasPrefix(s, v1.ResourceHugePagesPrefix) ||
		strings.Contains(s, v1.ResourceDefaultNamespacePrefix) ||
		strings.HasPrefix(s, v1.ResourceAttachableVolumesPrefix)
}

// isExtendedName reports whether name is an extended resource: it has a
// domain outside kubernetes.io and is a valid quota name once prefixed with
// "requests.".
func isExtendedName(name v1.ResourceName) bool {
	s := string(name)
	if !strings.Contains(s, "/") || strings.Contains(s, v1.ResourceDefaultNamespacePrefix) ||
		strings.HasPrefix(s, v1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(v1.DefaultResourceRequestsPrefix+s)) == 0
}
