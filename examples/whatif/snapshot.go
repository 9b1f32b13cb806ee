package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// embeddedSnapshot is a synthetic but realistic cluster in the shape that
// `kubectl get nodes,pods,pdb -A -o yaml` prints: 3 zones, 12 nodes (one a
// tainted GPU node), 97 pods of every QoS class and priority, DaemonSets,
// the default 300 s tolerations, and 6 PodDisruptionBudgets.
//
//go:embed snapshot.yaml
var embeddedSnapshot []byte

// parseEmbedded parses the embedded snapshot once; callers get a clone.
var parseEmbedded = sync.OnceValues(func() (*snapshot, error) {
	return readSnapshot(bytes.NewReader(embeddedSnapshot), "embedded snapshot")
})

// snapshot is the cluster state a scenario runs on.
type snapshot struct {
	Nodes []*corev1.Node
	Pods  []*corev1.Pod
	PDBs  []*policyv1.PodDisruptionBudget
}

// errInput marks problems with the input the user gave (exit code 2). Errors
// made by badInput match it with errors.Is without repeating its text.
var errInput = errors.New("bad input")

// inputError is an error about the user's input: its message is the wrapped
// error's, and errors.Is(err, errInput) holds.
type inputError struct{ err error }

func (e inputError) Error() string        { return e.err.Error() }
func (e inputError) Unwrap() error        { return e.err }
func (e inputError) Is(target error) bool { return target == errInput }

// badInput formats an error about the user's input (see errInput).
func badInput(format string, args ...any) error {
	return inputError{fmt.Errorf(format, args...)}
}

// clone returns a deep copy of s.
func (s *snapshot) clone() *snapshot {
	c := &snapshot{}
	for _, n := range s.Nodes {
		c.Nodes = append(c.Nodes, n.DeepCopy())
	}
	for _, p := range s.Pods {
		c.Pods = append(c.Pods, p.DeepCopy())
	}
	for _, p := range s.PDBs {
		c.PDBs = append(c.PDBs, p.DeepCopy())
	}
	return c
}

// node returns the node with the given name.
func (s *snapshot) node(name string) (*corev1.Node, error) {
	for _, n := range s.Nodes {
		if n.Name == name {
			return n, nil
		}
	}
	return nil, badInput("unknown node %q (the snapshot has %s)", name, joinMax(s.sortedNodeNames(), 6))
}

// podsOn returns the pods bound to the node that have not finished, in
// snapshot order.
func (s *snapshot) podsOn(node string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range s.Pods {
		if p.Spec.NodeName == node && !finished(p) {
			out = append(out, p)
		}
	}
	return out
}

// finished reports whether the pod has succeeded or failed: such a pod
// holds nothing on its node, and nothing is left to evict.
func finished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// readSnapshot decodes what `kubectl get nodes,pods,pdb -A -o yaml` prints (a
// v1 List), or a stream of YAML or JSON documents each holding a Node, Pod,
// PodDisruptionBudget or a List of them. name labels errors.
func readSnapshot(r io.Reader, name string) (*snapshot, error) {
	s := &snapshot{}
	docs := utilyaml.NewYAMLReader(bufio.NewReader(r))
	for i := 1; ; i++ {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, badInput("%s: %v", name, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		raw, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, badInput("%s: document %d: %v", name, i, err)
		}
		if string(bytes.TrimSpace(raw)) == "null" {
			continue // a document holding only comments
		}
		if err := s.add(raw, fmt.Sprintf("%s: document %d", name, i)); err != nil {
			return nil, err
		}
	}
	if len(s.Nodes) == 0 {
		return nil, badInput("%s: no nodes in the input (want the output of kubectl get nodes,pods,pdb -A -o yaml)", name)
	}
	seen := map[string]bool{}
	for _, n := range s.Nodes {
		if n.Name == "" {
			return nil, badInput("%s: a Node has no metadata.name", name)
		}
		if seen[n.Name] {
			return nil, badInput("%s: node %q appears twice", name, n.Name)
		}
		seen[n.Name] = true
	}
	pods := map[string]bool{}
	for _, p := range s.Pods {
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		key := podKey(p)
		if p.Name == "" {
			return nil, badInput("%s: a Pod has no metadata.name", name)
		}
		if pods[key] {
			return nil, badInput("%s: pod %s appears twice", name, key)
		}
		pods[key] = true
	}
	return s, nil
}

// add decodes one object (or list of objects) in JSON form.
func (s *snapshot) add(raw []byte, where string) error {
	var meta struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return badInput("%s: not a Kubernetes object: %v", where, err)
	}
	decode := func(into any) error {
		if err := json.Unmarshal(raw, into); err != nil {
			return badInput("%s: %s: %v", where, meta.Kind, err)
		}
		return nil
	}
	switch {
	case strings.HasSuffix(meta.Kind, "List"):
		for j, item := range meta.Items {
			if err := s.add(item, fmt.Sprintf("%s, item %d", where, j+1)); err != nil {
				return err
			}
		}
		return nil
	case meta.APIVersion == "v1" && meta.Kind == "Node":
		n := &corev1.Node{}
		if err := decode(n); err != nil {
			return err
		}
		s.Nodes = append(s.Nodes, n)
	case meta.APIVersion == "v1" && meta.Kind == "Pod":
		p := &corev1.Pod{}
		if err := decode(p); err != nil {
			return err
		}
		s.Pods = append(s.Pods, p)
	case meta.APIVersion == "policy/v1" && meta.Kind == "PodDisruptionBudget":
		p := &policyv1.PodDisruptionBudget{}
		if err := decode(p); err != nil {
			return err
		}
		s.PDBs = append(s.PDBs, p)
	case meta.Kind == "":
		return badInput("%s: no kind (want Node, Pod, PodDisruptionBudget or a List of them)", where)
	default:
		return badInput("%s: kind %s %s is not one of v1 Node, v1 Pod, policy/v1 PodDisruptionBudget", where, meta.APIVersion, meta.Kind)
	}
	return nil
}

// t0 is the time the scenarios start from: the latest Ready heartbeat of any
// node, else the latest node or pod creation time, else the Unix epoch.
func (s *snapshot) t0() time.Time {
	var t time.Time
	for _, n := range s.Nodes {
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.LastHeartbeatTime.After(t) {
				t = c.LastHeartbeatTime.Time
			}
		}
	}
	if !t.IsZero() {
		return t.UTC()
	}
	for _, n := range s.Nodes {
		t = later(t, n.CreationTimestamp.Time)
	}
	for _, p := range s.Pods {
		t = later(t, p.CreationTimestamp.Time)
	}
	if t.IsZero() {
		t = time.Unix(0, 0) // the timelines use the zero time for "never"
	}
	return t.UTC()
}

// sortedNodeNames returns the node names in name order.
func (s *snapshot) sortedNodeNames() []string {
	names := make([]string, 0, len(s.Nodes))
	for _, n := range s.Nodes {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	return names
}
