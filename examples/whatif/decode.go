package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The snapshot is decoded in one pass, straight into the typed objects:
//
//   - JSON (input whose first character is { or [) is read token by token
//     with encoding/json's Decoder: the List and each item's apiVersion and
//     kind are read as tokens, and each item's metadata, spec and status are
//     decoded into the Node, Pod or PodDisruptionBudget they belong to. The
//     input is never held whole.
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

type metaIn struct {
	metav1.ObjectMeta
	ManagedFields   skipped                         `json:"managedFields"`
	Labels          shared[map[string]string]       `json:"labels"`
	Annotations     shared[map[string]string]       `json:"annotations"` // without lastApplied
	OwnerReferences shared[[]metav1.OwnerReference] `json:"ownerReferences"`
}

func (m *metaIn) bind(t *tables) {
	m.Labels.t, m.Annotations.t, m.OwnerReferences.t = t.labels, t.annotations, t.owners
}

func (m *metaIn) object() metav1.ObjectMeta {
	om := m.ObjectMeta
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
	o.meta.bind(d.t)
	o.nodeStatus.bind(d.t)
	o.podSpec.bind(d.t)
	o.podStatus.bind(d.t)
	return o
}

// release clears o for reuse: what was decoded into it now belongs to the
// objects added to the snapshot.
func (d *decoder) release(o *object) {
	*o = object{}
	d.free = append(d.free, o)
}

// object is one Kubernetes object being decoded.
type object struct {
	apiVersion, kind string
	meta             metaIn
	node             *corev1.Node
	nodeStatus       nodeStatusIn
	podSpec          podSpecIn
	podStatus        podStatusIn
	pdb              *policyv1.PodDisruptionBudget
	// deferred holds the parts met before the kind.
	deferred []deferredField
	hasItems bool
}

type deferredField struct {
	key string
	raw json.RawMessage
}

// target returns where the field key of an object of the current kind
// goes, nil if it is not known (yet) or not kept.
func (o *object) target(key string) any {
	switch key {
	case "metadata":
		if o.kind == "Node" || o.kind == "Pod" || o.kind == "PodDisruptionBudget" {
			return &o.meta
		}
	case "spec":
		switch o.kind {
		case "Node":
			return &o.newNode().Spec
		case "Pod":
			return &o.podSpec
		case "PodDisruptionBudget":
			return &o.newPDB().Spec
		}
	case "status":
		switch o.kind {
		case "Node":
			return &o.nodeStatus
		case "Pod":
			return &o.podStatus
		case "PodDisruptionBudget":
			return &o.newPDB().Status
		}
	}
	return nil
}

func (o *object) newNode() *corev1.Node {
	if o.node == nil {
		o.node = &corev1.Node{}
	}
	return o.node
}

func (o *object) newPDB() *policyv1.PodDisruptionBudget {
	if o.pdb == nil {
		o.pdb = &policyv1.PodDisruptionBudget{}
	}
	return o.pdb
}

// jsonValue decodes one JSON object from dec (a Node, Pod, PDB or a List of
// them) and adds it to the snapshot.
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
	decodeInto := func(v any) error {
		if err := dec.Decode(v); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			what := o.kind
			if what == "" {
				what = "not a Kubernetes object"
			}
			return badInput("%s: %s: %v", at, what, err)
		}
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return badInput("%s: %v", at, err)
		}
		key, _ := tok.(string)
		switch key {
		case "apiVersion":
			err = decodeInto(&o.apiVersion)
		case "kind":
			err = decodeInto(&o.kind)
		case "items":
			o.hasItems = true
			err = d.jsonItems(dec, at)
		case "metadata", "spec", "status":
			if t := o.target(key); t != nil {
				err = decodeInto(t)
				break
			}
			var raw json.RawMessage
			if err = decodeInto(&raw); err == nil {
				o.deferred = append(o.deferred, deferredField{key, raw})
			}
		default:
			err = decodeInto(&skipped{})
		}
		if err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return badInput("%s: %v", at, err)
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
		if err := d.jsonValue(dec, place{at.name, at.doc, i}); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	if err != nil {
		return badInput("%s: %v", at, err)
	}
	return nil
}

// add checks the object's kind and adds it to the snapshot.
func (d *decoder) add(o *object, at place) error {
	switch {
	case strings.HasSuffix(o.kind, "List"):
		return nil
	case o.hasItems:
		return badInput("%s: kind %q has items but is not a List", at, o.kind)
	case o.kind == "":
		return badInput("%s: no kind (want Node, Pod, PodDisruptionBudget or a List of them)", at)
	}
	want := map[string]string{"Node": "v1", "Pod": "v1", "PodDisruptionBudget": "policy/v1"}[o.kind]
	if want == "" || o.apiVersion != want {
		return badInput("%s: kind %s %s is not one of v1 Node, v1 Pod, policy/v1 PodDisruptionBudget", at, o.apiVersion, o.kind)
	}
	for _, f := range o.deferred {
		if err := json.Unmarshal(f.raw, o.target(f.key)); err != nil {
			return badInput("%s: %s: %v", at, o.kind, err)
		}
	}
	switch o.kind {
	case "Node":
		n := o.newNode()
		n.TypeMeta = metav1.TypeMeta{APIVersion: o.apiVersion, Kind: o.kind}
		n.ObjectMeta = o.meta.object()
		n.Status = o.nodeStatus.status()
		d.s.Nodes = append(d.s.Nodes, n)
	case "Pod":
		p := d.newPod()
		p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		p.ObjectMeta = o.meta.object()
		p.Spec = o.podSpec.spec()
		p.Status = o.podStatus.status()
		d.t.pod(p)
		d.s.Pods = append(d.s.Pods, p)
	case "PodDisruptionBudget":
		p := o.newPDB()
		p.TypeMeta = metav1.TypeMeta{APIVersion: o.apiVersion, Kind: o.kind}
		p.ObjectMeta = o.meta.object()
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
	if err := d.jsonValue(dec, at); err != nil {
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
	d := &decoder{s: s, name: name, t: newTables()}
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
