package main

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
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
	// DRA holds the DRA objects when the scenario reads them (device-taint;
	// see dra.go), nil otherwise.
	DRA *draObjects

	// The index, built once by index: nodes by name, and each node's pods
	// that have not finished, in snapshot order.
	byName map[string]*corev1.Node
	onNode map[string][]*corev1.Pod
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
	c.index()
	return c
}

// index builds the index of nodes by name and of pods by node.
func (s *snapshot) index() {
	s.byName = make(map[string]*corev1.Node, len(s.Nodes))
	for _, n := range s.Nodes {
		if _, dup := s.byName[n.Name]; !dup {
			s.byName[n.Name] = n
		}
	}
	s.onNode = make(map[string][]*corev1.Pod, len(s.Nodes))
	for _, p := range s.Pods {
		if p.Spec.NodeName != "" && !finished(p) {
			s.onNode[p.Spec.NodeName] = append(s.onNode[p.Spec.NodeName], p)
		}
	}
}

// node returns the node with the given name.
func (s *snapshot) node(name string) (*corev1.Node, error) {
	if n, ok := s.byName[name]; ok {
		return n, nil
	}
	return nil, badInput("unknown node %q (the snapshot has %s)", name, joinMax(s.sortedNodeNames(), 6))
}

// podsOn returns the pods bound to the node that have not finished, in
// snapshot order, in a slice the caller may reorder.
func (s *snapshot) podsOn(node string) []*corev1.Pod {
	return slices.Clone(s.onNode[node])
}

// finished reports whether the pod has succeeded or failed: such a pod
// holds nothing on its node, and nothing is left to evict.
func finished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// readSnapshot decodes what `kubectl get nodes,pods,pdb -A -o yaml` (or -o
// json) prints (a v1 List), or a stream of YAML or JSON documents each
// holding a Node, Pod, PodDisruptionBudget or a List of them (see
// decode.go). name labels errors.
func readSnapshot(r io.Reader, name string) (*snapshot, error) {
	return readSnapshotOf(&snapshot{}, r, name)
}

// readSnapshotOf is readSnapshot into s, which may ask for the DRA objects
// too (s.DRA not nil).
func readSnapshotOf(s *snapshot, r io.Reader, name string) (*snapshot, error) {
	if err := decodeSnapshot(s, r, name); err != nil {
		return nil, err
	}
	if len(s.Nodes) == 0 {
		what := "nodes,pods,pdb"
		if s.DRA != nil {
			what = draKubectlKinds
		}
		return nil, badInput("%s: no nodes in the input (want the output of kubectl get %s -A -o yaml)", name, what)
	}
	seen := make(map[string]bool, len(s.Nodes))
	for _, n := range s.Nodes {
		if n.Name == "" {
			return nil, badInput("%s: a Node has no metadata.name", name)
		}
		if seen[n.Name] {
			return nil, badInput("%s: node %q appears twice", name, n.Name)
		}
		seen[n.Name] = true
	}
	type key struct{ namespace, name string }
	pods := make(map[key]bool, len(s.Pods))
	for _, p := range s.Pods {
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		if p.Name == "" {
			return nil, badInput("%s: a Pod has no metadata.name", name)
		}
		k := key{p.Namespace, p.Name}
		if pods[k] {
			return nil, badInput("%s: pod %s appears twice", name, podKey(p))
		}
		pods[k] = true
	}
	s.index()
	return s, nil
}

// limitMemory keeps the heap of a run on an input of size bytes within
// about 3.5 times that size: the decoded objects take one to two times the
// size of their JSON or YAML, and the garbage collector, which by default
// lets the heap grow to twice what is live, collects sooner as the heap
// nears the limit. Small inputs keep the default.
func limitMemory(size int64) {
	const floor = 256 << 20
	if limit := size / 2 * 7; limit > floor {
		debug.SetMemoryLimit(limit)
	}
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
