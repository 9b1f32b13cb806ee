package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The snapshot is decoded in one pass, straight into the typed objects:
//
//   - JSON (input whose first character is { or [) is read with
//     encoding/json's Decoder: a document field by field (a List's items
//     one at a time), each item of a List whole, with one call. The spec
//     and status of an object are decoded into the union of the three
//     kinds' (specIn, statusIn), so that they need not wait for the kind,
//     and the object is assembled from the union once its kind is known.
//     The input is never held whole.
//   - YAML is read line by line. A List in the form kubectl prints (items:
//     then one "- " line per item at column 0) is cut into its items, each
//     converted to JSON on its own (sigs.k8s.io/yaml) and decoded as above,
//     so only one item's text is held at a time. Any other document is
//     converted whole.
//
// Fields that no scenario reads are skipped while decoding (the shadow types
// below): metadata.managedFields, the last-applied-configuration annotation,
// a node's image list and volume bookkeeping, a container's command, env,
// probes and mounts, a container status's image, state and IDs. The parts
// that repeat from object to object (a pod's labels, owner, containers,
// tolerations, affinity, host IPs; a node's capacity) are decoded once per
// distinct text and shared, read-only (intern.go); pods are allocated a
// block at a time, and the decoder reuses its scratch objects: on a cluster
// of small pods the decoded snapshot takes about 1.5 times its JSON.

// skipped is a JSON value decoded into nothing.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// lastApplied is the annotation kubectl apply keeps: a copy of the object.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// The fields of type shared are decoded once per distinct text and shared
// between the objects that have it (see intern.go).

// timeIn is a metav1.Time decoded as metav1.Time decodes it, but without
// a second encoding/json pass over a text that has no escapes.
type timeIn struct{ metav1.Time }

func (t *timeIn) UnmarshalJSON(b []byte) error {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' || bytes.IndexByte(b, '\\') >= 0 {
		return t.Time.UnmarshalJSON(b)
	}
	pt, err := time.Parse(time.RFC3339, string(b[1:len(b)-1]))
	if err != nil {
		return err
	}
	t.Time.Time = pt.Local()
	return nil
}

type metaIn struct {
	metav1.ObjectMeta
	CreationTimestamp timeIn                          `json:"creationTimestamp"`
	ManagedFields     skipped                         `json:"managedFields"`
	Labels            shared[map[string]string]       `json:"labels"`
	Annotations       shared[map[string]string]       `json:"annotations"` // without lastApplied
	OwnerReferences   shared[[]metav1.OwnerReference] `json:"ownerReferences"`
}

func (m *metaIn) bind(t *tables) {
	m.Labels.t, m.Annotations.t, m.OwnerReferences.t = t.labels, t.annotations, t.owners
}

func (m *metaIn) object() metav1.ObjectMeta {
	om := m.ObjectMeta
	om.CreationTimestamp = m.CreationTimestamp.Time
	om.Labels, om.Annotations, om.OwnerReferences = m.Labels.v, m.Annotations.v, m.OwnerReferences.v
	return om
}

type nodeStatusIn struct {
	corev1.NodeStatus
	Capacity        shared[corev1.ResourceList] `json:"capacity"`
	Allocatable     shared[corev1.ResourceList] `json:"allocatable"`
	Images          skipped                     `json:"images"`
	VolumesInUse    skipped                     `json:"volumesInUse"`
	VolumesAttached skipped                     `json:"volumesAttached"`
	RuntimeHandlers skipped                     `json:"runtimeHandlers"`
}

func (s *nodeStatusIn) bind(t *tables) { s.Capacity.t, s.Allocatable.t = t.resources, t.resources }

func (s *nodeStatusIn) status() corev1.NodeStatus {
	st := s.NodeStatus
	st.Capacity, st.Allocatable = s.Capacity.v, s.Allocatable.v
	return st
}

type containerIn struct {
	corev1.Container
	Command        skipped `json:"command"`
	Args           skipped `json:"args"`
	Env            skipped `json:"env"`
	EnvFrom        skipped `json:"envFrom"`
	VolumeMounts   skipped `json:"volumeMounts"`
	VolumeDevices  skipped `json:"volumeDevices"`
	LivenessProbe  skipped `json:"livenessProbe"`
	ReadinessProbe skipped `json:"readinessProbe"`
	StartupProbe   skipped `json:"startupProbe"`
	Lifecycle      skipped `json:"lifecycle"`
}

type podSpecIn struct {
	corev1.PodSpec
	Containers          shared[[]corev1.Container]           `json:"containers"`
	InitContainers      shared[[]corev1.Container]           `json:"initContainers"`
	EphemeralContainers skipped                              `json:"ephemeralContainers"`
	Tolerations         shared[[]corev1.Toleration]          `json:"tolerations"`
	Affinity            shared[*corev1.Affinity]             `json:"affinity"`
	NodeSelector        shared[map[string]string]            `json:"nodeSelector"`
	SecurityContext     shared[*corev1.PodSecurityContext]   `json:"securityContext"`
	Overhead            shared[corev1.ResourceList]          `json:"overhead"`
	Resources           shared[*corev1.ResourceRequirements] `json:"resources"`
}

func (s *podSpecIn) bind(t *tables) {
	s.Containers.t, s.InitContainers.t, s.Tolerations.t = t.containers, t.containers, t.tolerations
	s.Affinity.t, s.NodeSelector.t, s.SecurityContext.t = t.affinity, t.labels, t.security
	s.Overhead.t, s.Resources.t = t.resources, t.requirement
}

func containers(in []containerIn) []corev1.Container {
	if in == nil {
		return nil
	}
	out := make([]corev1.Container, len(in))
	for i := range in {
		out[i] = in[i].Container
	}
	return out
}

func (s *podSpecIn) spec() corev1.PodSpec {
	spec := s.PodSpec
	spec.Containers, spec.InitContainers, spec.Tolerations = s.Containers.v, s.InitContainers.v, s.Tolerations.v
	spec.Affinity, spec.NodeSelector, spec.SecurityContext = s.Affinity.v, s.NodeSelector.v, s.SecurityContext.v
	spec.Overhead, spec.Resources = s.Overhead.v, s.Resources.v
	return spec
}

type containerStatusIn struct {
	corev1.ContainerStatus
	State                    skipped `json:"state"`
	LastTerminationState     skipped `json:"lastState"`
	Image                    skipped `json:"image"`
	ImageID                  skipped `json:"imageID"`
	ContainerID              skipped `json:"containerID"`
	VolumeMounts             skipped `json:"volumeMounts"`
	User                     skipped `json:"user"`
	AllocatedResourcesStatus skipped `json:"allocatedResourcesStatus"`
}

type podStatusIn struct {
	corev1.PodStatus
	ContainerStatuses          []containerStatusIn     `json:"containerStatuses"`
	InitContainerStatuses      []containerStatusIn     `json:"initContainerStatuses"`
	EphemeralContainerStatuses skipped                 `json:"ephemeralContainerStatuses"`
	HostIPs                    shared[[]corev1.HostIP] `json:"hostIPs"`
	StartTime                  *timeIn                 `json:"startTime"`
}

func (s *podStatusIn) bind(t *tables) { s.HostIPs.t = t.hostIPs }

func statuses(in []containerStatusIn) []corev1.ContainerStatus {
	if in == nil {
		return nil
	}
	out := make([]corev1.ContainerStatus, len(in))
	for i := range in {
		out[i] = in[i].ContainerStatus
	}
	return out
}

func (s *podStatusIn) status() corev1.PodStatus {
	st := s.PodStatus
	st.ContainerStatuses = statuses(s.ContainerStatuses)
	st.InitContainerStatuses = statuses(s.InitContainerStatuses)
	st.HostIPs = s.HostIPs.v
	if s.StartTime != nil {
		st.StartTime = &s.StartTime.Time
	}
	return st
}

// place says where an error is: the input's name, the document and the item
// of a List (0: none).
type place struct {
	name      string
	doc, item int
}

func (p place) String() string {
	s := fmt.Sprintf("%s: document %d", p.name, p.doc)
	if p.item > 0 {
		s += fmt.Sprintf(", item %d", p.item)
	}
	return s
}

// decoder adds what it decodes to s.
type decoder struct {
	s    *snapshot
	name string
	t    *tables
	// free holds objects to reuse: one per level of nesting (a List and
	// its items) serves the whole input.
	free []*object
	// pods is where the next pods go: allocated a block at a time, they
	// cost the heap fewer objects.
	pods []corev1.Pod
	// dra, when not nil, takes the DRA objects (device-taint; see dra.go).
	dra *draObjects
}

// podBlock is how many pods the decoder allocates at once.
const podBlock = 256

func (d *decoder) newPod() *corev1.Pod {
	if len(d.pods) == 0 {
		d.pods = make([]corev1.Pod, podBlock)
	}
	p := &d.pods[0]
	d.pods = d.pods[1:]
	return p
}

// object returns a cleared object bound to the decoder's tables.
func (d *decoder) object() *object {
	var o *object
	if n := len(d.free); n > 0 {
		o, d.free = d.free[n-1], d.free[:n-1]
	} else {
		o = &object{}
	}
	o.APIVersion.t, o.Kind.t = d.t.names, d.t.names
	o.Meta.bind(d.t)
	o.Spec.podSpecIn.bind(d.t)
	o.Status.podStatusIn.bind(d.t)
	o.Status.deeperNodeStatus.bind(d.t)
	return o
}

// release clears o for reuse: what was decoded into it now belongs to the
// objects added to the snapshot.
func (d *decoder) release(o *object) {
	*o = object{}
	d.free = append(d.free, o)
}

// object is one Kubernetes object being decoded: its spec and status are
// decoded before its kind is known, into the union of the three kinds'.
type object struct {
	APIVersion shared[string] `json:"apiVersion"`
	Kind       shared[string] `json:"kind"`
	Meta       metaIn         `json:"metadata"`
	Spec       specIn         `json:"spec"`
	Status     statusIn       `json:"status"`
	// Items are the items of a List inside a List (decoded whole); the
	// items of a List at the top of a JSON document are streamed.
	Items    json.RawMessage `json:"items"`
	hasItems bool
	// held are the parts of a top-level document of a DRA snapshot (dra.go).
	held heldParts
}

// specIn is the spec of a Node, a Pod or a PodDisruptionBudget: the three
// have no field name in common, so one struct decodes any of them before
// the kind is known (TestUnionsHoldEveryField).
type specIn struct {
	podSpecIn
	corev1.NodeSpec
	policyv1.PodDisruptionBudgetSpec
}

// statusIn is the status of a Node, a Pod or a PodDisruptionBudget. The
// field names two of them share (phase, observedGeneration, conditions)
// are decoded here, and handed to the kind's status once it is known; the
// others are distinct (TestUnionsHoldEveryField). The node's status sits one
// level deeper than the pod's, which shadows nothing of it but keeps the
// shared names at distinct depths for go vet.
type statusIn struct {
	podStatusIn
	deeperNodeStatus
	policyv1.PodDisruptionBudgetStatus
	Phase              string        `json:"phase"`
	ObservedGeneration int64         `json:"observedGeneration"`
	Conditions         []conditionIn `json:"conditions"`
}

type deeperNodeStatus struct{ nodeStatusIn }

// conditionIn is a condition of a Node, a Pod or a PodDisruptionBudget: it
// has the fields of all three.
type conditionIn struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	ObservedGeneration int64  `json:"observedGeneration"`
	LastProbeTime      timeIn `json:"lastProbeTime"`
	LastHeartbeatTime  timeIn `json:"lastHeartbeatTime"`
	LastTransitionTime timeIn `json:"lastTransitionTime"`
	Reason             string `json:"reason"`
	Message            string `json:"message"`
}

// conditions converts the decoded conditions to the kind's.
func conditions[T any](in []conditionIn, convert func(c *conditionIn) T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i := range in {
		out[i] = convert(&in[i])
	}
	return out
}

func nodeCondition(c *conditionIn) corev1.NodeCondition {
	return corev1.NodeCondition{Type: corev1.NodeConditionType(c.Type), Status: corev1.ConditionStatus(c.Status),
		LastHeartbeatTime: c.LastHeartbeatTime.Time, LastTransitionTime: c.LastTransitionTime.Time, Reason: c.Reason, Message: c.Message}
}

func podCondition(c *conditionIn) corev1.PodCondition {
	return corev1.PodCondition{Type: corev1.PodConditionType(c.Type), ObservedGeneration: c.ObservedGeneration,
		Status: corev1.ConditionStatus(c.Status), LastProbeTime: c.LastProbeTime.Time, LastTransitionTime: c.LastTransitionTime.Time,
		Reason: c.Reason, Message: c.Message}
}

func condition(c *conditionIn) metav1.Condition {
	return metav1.Condition{Type: c.Type, Status: metav1.ConditionStatus(c.Status), ObservedGeneration: c.ObservedGeneration,
		LastTransitionTime: c.LastTransitionTime.Time, Reason: c.Reason, Message: c.Message}
}

// knownKind reports whether whatif reads objects of the kind.
func knownKind(kind string) bool {
	return kind == "Node" || kind == "Pod" || kind == "PodDisruptionBudget"
}

// decodeError is the error of decoding (part of) o.
func decodeError(o *object, at place, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	var what string
	switch kind := o.Kind.v; {
	case kind == "":
		what = "not a Kubernetes object"
	case !knownKind(kind) && !strings.HasSuffix(kind, "List"):
		// The fields of other kinds are not whatif's to judge.
		return badInput("%s: kind %s %s is not one of v1 Node, v1 Pod, policy/v1 PodDisruptionBudget", at, o.APIVersion.v, kind)
	default:
		what = kind
	}
	return badInput("%s: %s: %v", at, what, err)
}

// jsonValue decodes one JSON object from dec (a Node, Pod, PDB or a List of
// them) and adds it to the snapshot, field by field: the items of a List
// are decoded one at a time, and never held together.
func (d *decoder) jsonValue(dec *json.Decoder, at place) error {
	tok, err := dec.Token()
	if err != nil {
		return badInput("%s: %v", at, err)
	}
	if tok != json.Delim('{') {
		return badInput("%s: not a Kubernetes object (want a JSON object, got %v)", at, tok)
	}
	o := d.object()
	defer d.release(o)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return badInput("%s: %v", at, err)
		}
		key, _ := tok.(string)
		var v any
		switch key {
		case "apiVersion":
			v = &o.APIVersion
		case "kind":
			v = &o.Kind
		case "items":
			o.hasItems = true
			if err := d.jsonItems(dec, at); err != nil {
				return err
			}
			continue
		case "metadata":
			v = &o.Meta
		case "spec":
			v = &o.Spec
		case "status":
			v = &o.Status
		default:
			v = &skipped{}
		}
		if h := d.held(o, key); h != nil {
			v = h
		}
		if err := dec.Decode(v); err != nil {
			return decodeError(o, at, err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return badInput("%s: %v", at, err)
	}
	if taken, err := d.takeHeld(o, at); taken || err != nil {
		return err
	}
	return d.add(o, at)
}

// jsonItems decodes a List's items.
func (d *decoder) jsonItems(dec *json.Decoder, at place) error {
	tok, err := dec.Token()
	if err != nil {
		return badInput("%s: %v", at, err)
	}
	if tok == nil {
		return nil // "items": null
	}
	if tok != json.Delim('[') {
		return badInput("%s: items is not a list", at)
	}
	for i := 1; dec.More(); i++ {
		if err := d.jsonObject(dec, place{at.name, at.doc, i}); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	if err != nil {
		return badInput("%s: %v", at, err)
	}
	return nil
}

// jsonObject decodes one JSON object from dec whole (a Node, Pod, PDB or a
// List of them) and adds it to the snapshot. It is the way for a List's
// items: one call to encoding/json each, where reading field by field costs
// a call and an error value per field (the Decoder reports the end of every
// value read alone as a syntax error it then drops).
func (d *decoder) jsonObject(dec *json.Decoder, at place) error {
	if d.dra != nil {
		raw, taken, err := d.draItem(dec, at)
		if taken || err != nil {
			return err
		}
		dec = json.NewDecoder(bytes.NewReader(raw))
	}
	o := d.object()
	defer d.release(o)
	if err := dec.Decode(o); err != nil {
		if isDRA(o.APIVersion.v) {
			return nil // not this scenario's (dra.go); Decode read the whole object
		}
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field == "" {
			return badInput("%s: not a Kubernetes object (want a JSON object, got %s)", at, te.Value)
		}
		return decodeError(o, at, err)
	}
	if o.Items != nil {
		o.hasItems = true
		if err := d.jsonItems(json.NewDecoder(bytes.NewReader(o.Items)), at); err != nil {
			return err
		}
	}
	return d.add(o, at)
}

// add checks the object's kind and adds it to the snapshot.
func (d *decoder) add(o *object, at place) error {
	kind, apiVersion := o.Kind.v, o.APIVersion.v
	switch {
	case strings.HasSuffix(kind, "List"):
		return nil
	case o.hasItems:
		return badInput("%s: kind %q has items but is not a List", at, kind)
	case kind == "":
		return badInput("%s: no kind (want Node, Pod, PodDisruptionBudget or a List of them)", at)
	case isDRA(apiVersion):
		return nil // device-taint reads these (dra.go)
	}
	want := map[string]string{"Node": "v1", "Pod": "v1", "PodDisruptionBudget": "policy/v1"}[kind]
	if want == "" || apiVersion != want {
		return badInput("%s: kind %s %s is not one of v1 Node, v1 Pod, policy/v1 PodDisruptionBudget", at, apiVersion, kind)
	}
	switch kind {
	case "Node":
		n := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}, ObjectMeta: o.Meta.object(),
			Spec: o.Spec.NodeSpec, Status: o.Status.nodeStatusIn.status()}
		n.Status.Phase = corev1.NodePhase(o.Status.Phase)
		n.Status.Conditions = conditions(o.Status.Conditions, nodeCondition)
		d.s.Nodes = append(d.s.Nodes, n)
	case "Pod":
		p := d.newPod()
		p.TypeMeta = metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
		p.ObjectMeta = o.Meta.object()
		p.Spec = o.Spec.podSpecIn.spec()
		p.Status = o.Status.podStatusIn.status()
		p.Status.Phase, p.Status.ObservedGeneration = corev1.PodPhase(o.Status.Phase), o.Status.ObservedGeneration
		p.Status.Conditions = conditions(o.Status.Conditions, podCondition)
		d.t.pod(p)
		d.s.Pods = append(d.s.Pods, p)
	case "PodDisruptionBudget":
		p := &policyv1.PodDisruptionBudget{TypeMeta: metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}, ObjectMeta: o.Meta.object(),
			Spec: o.Spec.PodDisruptionBudgetSpec, Status: o.Status.PodDisruptionBudgetStatus}
		p.Status.ObservedGeneration = o.Status.ObservedGeneration
		p.Status.Conditions = conditions(o.Status.Conditions, condition)
		d.s.PDBs = append(d.s.PDBs, p)
	}
	return nil
}

// jsonDocuments decodes the JSON values of r one after the other.
func (d *decoder) jsonDocuments(r io.Reader, doc int) error {
	dec := json.NewDecoder(r)
	for ; ; doc++ {
		if err := d.jsonValue(dec, place{d.name, doc, 0}); err != nil {
			return err
		}
		if !dec.More() {
			// More reports false at the end of the input, and before a
			// stray closing delimiter.
			if _, err := dec.Token(); !errors.Is(err, io.EOF) {
				return badInput("%s: unexpected data after the object", place{d.name, doc, 0})
			}
			return nil
		}
	}
}

// yamlStream decodes YAML documents, cutting kubectl's Lists into items.
func (d *decoder) yamlStream(br *bufio.Reader) error {
	var rest, item bytes.Buffer
	for doc := 1; ; doc++ {
		rest.Reset()
		item.Reset()
		items, inItems, fast := 0, false, true
		at := place{d.name, doc, 0}
		flush := func() error {
			if items == 0 {
				return nil
			}
			err := d.yamlDoc(item.Bytes(), place{d.name, doc, items})
			item.Reset()
			return err
		}
		eof := false
		for {
			line, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				long := append([]byte(nil), line...)
				for errors.Is(err, bufio.ErrBufferFull) {
					line, err = br.ReadSlice('\n')
					long = append(long, line...)
				}
				line = long
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return badInput("%s: %v", at, err)
			}
			eof = err != nil
			if len(line) == 0 && eof {
				break
			}
			if separator(line) {
				break
			}
			if inItems {
				switch {
				case bytes.HasPrefix(line, []byte("- ")) || bytes.Equal(bytes.TrimRight(line, " \r\n"), []byte("-")):
					if err := flush(); err != nil {
						return err
					}
					items++
					item.Write(line[min(2, len(line)):])
					if len(line) < 2 || line[1] != ' ' {
						item.WriteByte('\n')
					}
					goto next
				case bytes.HasPrefix(line, []byte("  ")), len(bytes.TrimSpace(line)) == 0, line[0] == '#':
					if items == 0 {
						// Indented items: not kubectl's form; convert the
						// document whole.
						fast, inItems = false, false
						rest.WriteString("items:\n")
						rest.Write(line)
						goto next
					}
					if bytes.HasPrefix(line, []byte("  ")) {
						line = line[2:]
					}
					item.Write(line)
					goto next
				default:
					if err := flush(); err != nil {
						return err
					}
					inItems = false
				}
			}
			if fast && bytes.Equal(bytes.TrimRight(line, " \r\n"), []byte("items:")) {
				inItems = true
				goto next
			}
			rest.Write(line)
		next:
			if eof {
				break
			}
		}
		if err := flush(); err != nil {
			return err
		}
		if err := d.yamlRest(rest.Bytes(), items, at); err != nil {
			return err
		}
		if eof {
			return nil
		}
	}
}

// separator reports whether line starts a new YAML document.
func separator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) && !bytes.HasPrefix(line, []byte("...")) {
		return false
	}
	return len(line) == 3 || line[3] == ' ' || line[3] == '\n' || line[3] == '\r' || line[3] == '\t'
}

// yamlRest decodes what is left of a document once its items are cut out
// (all of it when there were none).
func (d *decoder) yamlRest(doc []byte, items int, at place) error {
	if items == 0 {
		if len(bytes.TrimSpace(doc)) == 0 {
			return nil
		}
		return d.yamlDoc(doc, at)
	}
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		return badInput("%s: %v", at, err)
	}
	if !strings.HasSuffix(meta.Kind, "List") {
		return badInput("%s: kind %q has items but is not a List", at, meta.Kind)
	}
	return nil
}

// yamlDoc decodes one YAML document (or one List item) holding an object.
func (d *decoder) yamlDoc(doc []byte, at place) error {
	raw := doc
	if t := bytes.TrimSpace(doc); len(t) == 0 || t[0] != '{' {
		var err error
		if raw, err = yaml.YAMLToJSON(doc); err != nil {
			return badInput("%s: %v", at, err)
		}
		if string(bytes.TrimSpace(raw)) == "null" {
			return nil // a document holding only comments
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := d.jsonObject(dec, at); err != nil {
		return err
	}
	if dec.More() {
		return badInput("%s: unexpected data after the object", at)
	}
	return nil
}

// decodeSnapshot decodes r into s: JSON values when the input starts with
// { or [, YAML documents otherwise.
func decodeSnapshot(s *snapshot, r io.Reader, name string) error {
	d := &decoder{s: s, name: name, t: newTables(), dra: s.DRA}
	const size = 1 << 16
	br := bufio.NewReaderSize(r, size)
	// Look at the first character that is not white space, consuming
	// nothing: YAML's indentation matters.
	for n := 1; n <= size; n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			if errors.Is(err, io.EOF) {
				return nil // empty, or only white space
			}
			return badInput("%s: %v", name, err)
		}
		switch b[n-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return d.jsonDocuments(br, 1)
		}
		return d.yamlStream(br)
	}
	return d.yamlStream(br)
}
