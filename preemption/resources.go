package preemption

import (
	"cmp"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/evictkit/eviction/podresources"
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
// that is being scheduled (the preemptor): [podresources.Requests] with the
// default options (the sidecar-aware container aggregate, replaced by the
// pod-level requests for cpu, memory and hugepages-* when those are set, plus
// the pod overhead) in the units of [Resources]. Only the spec is read; a
// "pods" request is ignored and negative amounts count as 0.
func PodRequests(pod *v1.Pod) Resources {
	if pod == nil {
		return Resources{}
	}
	return preemptorVector(pod).export()
}

// AssignedPodRequests returns the vector a pod already on a node (bound,
// assumed or nominated) is charged on that node: [podresources.Requests]
// with UseStatusResources, that is for each resource the largest of the spec
// requests, the allocated and the actual resources of the status (the spec
// left out while a resize is Infeasible), with pod-level requests and
// overhead applied as in [PodRequests].
func AssignedPodRequests(pod *v1.Pod) Resources {
	if pod == nil {
		return Resources{}
	}
	return chargedVector(pod).export()
}

// preemptorVector mirrors computePodResourceRequest: spec-only requests, each
// amount raised to at least zero.
func preemptorVector(pod *v1.Pod) vector {
	v := requestVector(pod, podresources.Options{})
	v.cpu, v.mem, v.eph = max(v.cpu, 0), max(v.mem, 0), max(v.eph, 0)
	for i := range v.scalars {
		v.scalars[i].value = max(v.scalars[i].value, 0)
	}
	return v
}

// chargedVector mirrors PodInfo.CalculateResource with InPlacePodVerticalScaling
// (GA) and InPlacePodLevelResourcesVerticalScaling (beta, on) enabled.
func chargedVector(pod *v1.Pod) vector {
	return requestVector(pod, podresources.Options{UseStatusResources: true})
}

// requestVector is listVector of [podresources.Requests] under opts, without
// the map: a snapshot of a large cluster computes it for every pod.
func requestVector(pod *v1.Pod, opts podresources.Options) vector {
	var v vector
	for name, q := range podresources.AllRequests(pod, opts) {
		v.add(name, q)
	}
	v.sortScalars()
	return v
}

// resourcesVector converts a Resources, keeping the scalars the scheduler
// tracks.
func resourcesVector(r Resources) vector {
	v := vector{cpu: r.MilliCPU, mem: r.Memory, eph: r.EphemeralStorage}
	for name, value := range r.Scalars {
		if isScalarName(name) {
			v.scalars = append(v.scalars, scalar{name, value})
		}
	}
	v.sortScalars()
	return v
}

// listVector converts a resource list the way Resource.Add does.
func listVector(l v1.ResourceList) vector {
	var v vector
	for name, q := range l {
		v.add(name, q)
	}
	v.sortScalars()
	return v
}

// add adds one resource of a list to v the way Resource.Add does.
func (v *vector) add(name v1.ResourceName, q resource.Quantity) {
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

// sortScalars orders the scalars by name, whatever order the list had.
func (v *vector) sortScalars() {
	slices.SortFunc(v.scalars, func(a, b scalar) int { return cmp.Compare(a.name, b.name) })
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
