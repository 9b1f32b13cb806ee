package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"io"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
)

// The DRA objects of a snapshot (resource.k8s.io) are read by device-taint
// only. In its snapshot the decoder takes them aside (draObjects): each
// List item, and each document, is first held as its JSON text, and an
// item of the resource.k8s.io group is decoded whole into its API type;
// the others go on to the decoder of nodes, pods and PDBs. The other
// scenarios pay nothing for this: their decoder skips resource.k8s.io
// objects, so one snapshot serves every scenario. (It skips them in a List
// and in YAML documents; a resource.k8s.io object alone at the top of a
// JSON input is decoded field by field into the union of the other kinds'
// fields, and one that does not fit it, such as a ResourceSlice with a
// node selector, is an error there.)

// embeddedDRASnapshot is the snapshot device-taint reads without -f: three
// nodes, two with GPUs published by a DRA driver in a pool per node, a
// network-attached pool of NICs, pods whose claims are allocated on them
// with various tolerations, a device with a taint of its own and a
// DeviceTaintRule of effect None.
//
//go:embed dra-snapshot.yaml
var embeddedDRASnapshot []byte

// draGroup is the API group of the DRA objects.
const draGroup = "resource.k8s.io"

// isDRA reports whether apiVersion is of the resource.k8s.io group.
func isDRA(apiVersion string) bool { return strings.HasPrefix(apiVersion, draGroup+"/") }

// draObjects are the DRA objects of a snapshot, in input order.
type draObjects struct {
	Slices []*resourcev1.ResourceSlice
	Claims []*resourcev1.ResourceClaim
	// Rules are the DeviceTaintRules: resource.k8s.io/v1 and v1beta2 have
	// the same fields, and k8s.io/api v0.36 has only v1beta2's type.
	Rules []*resourcev1beta2.DeviceTaintRule
}

// add decodes one DRA object from its JSON text. Kinds that device-taint
// does not read (DeviceClass, ResourceClaimTemplate, …) are skipped.
func (o *draObjects) add(apiVersion, kind string, raw []byte, at place) error {
	v1 := apiVersion == draGroup+"/v1"
	var err error
	switch {
	case kind == "ResourceSlice" && v1:
		s := &resourcev1.ResourceSlice{}
		if err = json.Unmarshal(raw, s); err == nil {
			o.Slices = append(o.Slices, s)
		}
	case kind == "ResourceClaim" && v1:
		c := &resourcev1.ResourceClaim{}
		if err = json.Unmarshal(raw, c); err == nil {
			if c.Namespace == "" {
				c.Namespace = "default"
			}
			o.Claims = append(o.Claims, c)
		}
	case kind == "DeviceTaintRule" && (v1 || apiVersion == draGroup+"/v1beta2"):
		r := &resourcev1beta2.DeviceTaintRule{}
		if err = json.Unmarshal(raw, r); err == nil {
			o.Rules = append(o.Rules, r)
		}
	case kind == "ResourceSlice" || kind == "ResourceClaim" || kind == "DeviceTaintRule":
		return badInput("%s: kind %s %s: device-taint reads %s/v1 ResourceSlices, ResourceClaims and DeviceTaintRules (or v1beta2 DeviceTaintRules)",
			at, apiVersion, kind, draGroup)
	}
	if err != nil {
		return badInput("%s: %s: %v", at, kind, err)
	}
	return nil
}

// draHead is the kind of an object held as JSON text.
type draHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// draItem reads one JSON value from dec. A DRA object is added to d.dra
// (taken true); any other value is returned for the usual decoding.
func (d *decoder) draItem(dec *json.Decoder, at place) (raw json.RawMessage, taken bool, err error) {
	if err := dec.Decode(&raw); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, false, badInput("%s: %v", at, err)
	}
	var head draHead
	if json.Unmarshal(raw, &head) != nil || !isDRA(head.APIVersion) {
		return raw, false, nil
	}
	return nil, true, d.dra.add(head.APIVersion, head.Kind, raw, at)
}

// heldParts are the metadata, spec and status of a document at the top of
// a JSON input, held as text until its kind is known (DRA snapshots only).
type heldParts struct {
	Metadata, Spec, Status json.RawMessage
}

// held returns where jsonValue puts the document's field key: nil for the
// usual place (the other fields, and outside DRA snapshots).
func (d *decoder) held(o *object, key string) any {
	if d.dra == nil {
		return nil
	}
	switch key {
	case "metadata":
		return &o.held.Metadata
	case "spec":
		return &o.held.Spec
	case "status":
		return &o.held.Status
	}
	return nil
}

// takeHeld ends a top-level JSON document of a DRA snapshot: a DRA object
// is added to d.dra (taken true); any other object's held parts are
// decoded into o for the usual path.
func (d *decoder) takeHeld(o *object, at place) (taken bool, err error) {
	if d.dra == nil {
		return false, nil
	}
	h := o.held
	if isDRA(o.APIVersion.v) {
		raw, err := json.Marshal(struct {
			draHead
			Metadata json.RawMessage `json:"metadata,omitempty"`
			Spec     json.RawMessage `json:"spec,omitempty"`
			Status   json.RawMessage `json:"status,omitempty"`
		}{draHead{o.APIVersion.v, o.Kind.v}, h.Metadata, h.Spec, h.Status})
		if err != nil {
			return true, badInput("%s: %s: %v", at, o.Kind.v, err)
		}
		return true, d.dra.add(o.APIVersion.v, o.Kind.v, raw, at)
	}
	for _, p := range []struct {
		raw json.RawMessage
		v   any
	}{{h.Metadata, &o.Meta}, {h.Spec, &o.Spec}, {h.Status, &o.Status}} {
		if p.raw == nil {
			continue
		}
		if err := json.Unmarshal(p.raw, p.v); err != nil {
			return true, decodeError(o, at, err)
		}
	}
	return false, nil
}

// loadDRASnapshot is loadSnapshot for device-taint: it also reads the DRA
// objects, and without -f it reads the embedded DRA snapshot.
func loadDRASnapshot(file string, stdin io.Reader) (*snapshot, string, error) {
	read := func(r io.Reader, name string) (*snapshot, error) {
		return readSnapshotOf(&snapshot{DRA: &draObjects{}}, r, name)
	}
	if file == "" {
		s, err := read(bytes.NewReader(embeddedDRASnapshot), "embedded DRA snapshot")
		return s, "the embedded DRA snapshot", err
	}
	return readNamed(file, stdin, read)
}

// draKubectlKinds is what kubectl get lists for a device-taint snapshot.
const draKubectlKinds = "nodes,pods,resourceslices,resourceclaims,devicetaintrules"
