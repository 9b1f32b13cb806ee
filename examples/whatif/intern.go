package main

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A snapshot repeats itself: the replicas of a Deployment carry the same
// containers, tolerations, owner and labels, the pods of a node the same
// host IPs, most nodes the same capacity. The decoder decodes each distinct
// JSON text of those parts once and hands every object that has it the same
// value: a map, slice or pointer shared between objects, which nothing in
// whatif writes to (the scenarios read the snapshot and change copies; the
// tests check that every scenario leaves it as decoded). It also keeps one
// copy of each string that repeats. On a cluster of small pods this takes
// the decoded snapshot from 3.5 to 1.5 times its JSON (see the whatif part
// of BENCHMARKS.md).

// interner interns the strings that repeat across a snapshot's objects
// (namespaces, node names, tolerations, images, condition types and
// reasons), so that the decoded snapshot holds one copy of each.
type interner map[string]string

func (t interner) of(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := t[s]; ok {
		return v
	}
	t[s] = s
	return s
}

// partTable holds the values decoded from each distinct JSON text of one part.
type partTable[T any] struct {
	values map[string]T
	// decode decodes a text not met before, interning its strings.
	decode func(raw []byte) (T, error)
}

func newPartTable[T any](decode func(raw []byte) (T, error)) *partTable[T] {
	return &partTable[T]{values: map[string]T{}, decode: decode}
}

// shared is a part of an object decoded through a table: objects whose part
// has the same JSON text share one decoded value, read-only.
type shared[T any] struct {
	t *partTable[T]
	v T
}

// UnmarshalJSON looks the text up and decodes it if it is new. null leaves
// the zero value, as encoding/json does for maps, slices and pointers.
func (s *shared[T]) UnmarshalJSON(raw []byte) error {
	if string(raw) == "null" {
		var zero T
		s.v = zero
		return nil
	}
	if v, ok := s.t.values[string(raw)]; ok {
		s.v = v
		return nil
	}
	v, err := s.t.decode(raw)
	if err != nil {
		return err
	}
	s.t.values[string(raw)] = v
	s.v = v
	return nil
}

// tables are a decoder's tables of shared parts and strings.
type tables struct {
	strings     interner
	names       *partTable[string]            // kinds and API versions
	labels      *partTable[map[string]string] // labels, node selectors
	annotations *partTable[map[string]string] // without the last-applied copy
	owners      *partTable[[]metav1.OwnerReference]
	containers  *partTable[[]corev1.Container]
	tolerations *partTable[[]corev1.Toleration]
	affinity    *partTable[*corev1.Affinity]
	security    *partTable[*corev1.PodSecurityContext]
	resources   *partTable[corev1.ResourceList]
	requirement *partTable[*corev1.ResourceRequirements]
	hostIPs     *partTable[[]corev1.HostIP]
}

// decodeWith returns a table's decode function: encoding/json into a T,
// then intern interns its strings.
func decodeWith[T any](intern func(*T)) func([]byte) (T, error) {
	return func(raw []byte) (T, error) {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return v, err
		}
		if intern != nil {
			intern(&v)
		}
		return v, nil
	}
}

func newTables() *tables {
	t := &tables{strings: interner{}}
	t.names = newPartTable(decodeWith[string](nil))
	// The values of labels and annotations are not interned: a value that
	// repeats mostly does so within the same labels, shared whole.
	t.labels = newPartTable(decodeWith[map[string]string](nil))
	t.annotations = newPartTable(decodeWith(func(m *map[string]string) { delete(*m, lastApplied) }))
	t.owners = newPartTable(decodeWith(func(os *[]metav1.OwnerReference) {
		for i := range *os {
			o := &(*os)[i]
			o.APIVersion, o.Kind, o.Name = t.strings.of(o.APIVersion), t.strings.of(o.Kind), t.strings.of(o.Name)
			o.UID = types.UID(t.strings.of(string(o.UID)))
		}
	}))
	t.containers = newPartTable(func(raw []byte) ([]corev1.Container, error) {
		var in []containerIn
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, err
		}
		cs := containers(in)
		for i := range cs {
			c := &cs[i]
			c.Name, c.Image = t.strings.of(c.Name), t.strings.of(c.Image)
			c.ImagePullPolicy = corev1.PullPolicy(t.strings.of(string(c.ImagePullPolicy)))
			c.TerminationMessagePath = t.strings.of(c.TerminationMessagePath)
			c.TerminationMessagePolicy = corev1.TerminationMessagePolicy(t.strings.of(string(c.TerminationMessagePolicy)))
		}
		return cs, nil
	})
	t.tolerations = newPartTable(decodeWith(func(ts *[]corev1.Toleration) {
		for i := range *ts {
			tol := &(*ts)[i]
			tol.Key, tol.Value = t.strings.of(tol.Key), t.strings.of(tol.Value)
			tol.Operator, tol.Effect = corev1.TolerationOperator(t.strings.of(string(tol.Operator))), corev1.TaintEffect(t.strings.of(string(tol.Effect)))
		}
	}))
	t.affinity = newPartTable(decodeWith[*corev1.Affinity](nil))
	t.security = newPartTable(decodeWith[*corev1.PodSecurityContext](nil))
	t.resources = newPartTable(decodeWith[corev1.ResourceList](nil))
	t.requirement = newPartTable(decodeWith[*corev1.ResourceRequirements](nil))
	t.hostIPs = newPartTable(decodeWith(func(ips *[]corev1.HostIP) {
		for i := range *ips {
			(*ips)[i].IP = t.strings.of((*ips)[i].IP)
		}
	}))
	return t
}

// meta interns the strings of an object's metadata that its shared parts
// do not hold.
func (t *tables) meta(m *metav1.ObjectMeta) {
	m.Namespace = t.strings.of(m.Namespace)
	m.GenerateName = t.strings.of(m.GenerateName)
}

// pod interns the strings of a pod that its shared parts do not hold.
func (t *tables) pod(p *corev1.Pod) {
	t.meta(&p.ObjectMeta)
	s := &p.Spec
	of := t.strings.of
	s.NodeName, s.PriorityClassName, s.SchedulerName = of(s.NodeName), of(s.PriorityClassName), of(s.SchedulerName)
	s.ServiceAccountName, s.DeprecatedServiceAccount = of(s.ServiceAccountName), of(s.DeprecatedServiceAccount)
	s.RestartPolicy, s.DNSPolicy = corev1.RestartPolicy(of(string(s.RestartPolicy))), corev1.DNSPolicy(of(string(s.DNSPolicy)))
	st := &p.Status
	st.Phase, st.QOSClass = corev1.PodPhase(of(string(st.Phase))), corev1.PodQOSClass(of(string(st.QOSClass)))
	st.HostIP = of(st.HostIP)
	for i := range st.Conditions {
		c := &st.Conditions[i]
		c.Type, c.Status = corev1.PodConditionType(of(string(c.Type))), corev1.ConditionStatus(of(string(c.Status)))
		c.Reason, c.Message = of(c.Reason), of(c.Message)
	}
	for _, cs := range [][]corev1.ContainerStatus{st.ContainerStatuses, st.InitContainerStatuses} {
		for i := range cs {
			cs[i].Name = of(cs[i].Name)
		}
	}
}
