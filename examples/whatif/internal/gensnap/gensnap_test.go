package gensnap

import (
	"bytes"
	"encoding/json"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestWriteIsKubectlForm checks that the streamed output is what
// marshalling the whole List at once gives, as kubectl does: JSON indented
// by four spaces with sorted keys, YAML by sigs.k8s.io/yaml.
func TestWriteIsKubectlForm(t *testing.T) {
	var j, y bytes.Buffer
	if err := Write(&j, Config{Nodes: 12, PodsPerNode: 12}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&y, Config{Nodes: 12, PodsPerNode: 12, Format: YAML}); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(j.Bytes()))
	dec.UseNumber()
	var list any
	if err := dec.Decode(&list); err != nil {
		t.Fatal(err)
	}
	want, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	if got := j.String(); got != string(want)+"\n" {
		t.Errorf("JSON is not in kubectl's form")
	}
	wantYAML, err := yaml.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	if y.String() != string(wantYAML) {
		t.Errorf("YAML is not in kubectl's form")
	}
	items := list.(map[string]any)["items"].([]any)
	kinds := map[string]int{}
	for _, it := range items {
		kinds[it.(map[string]any)["kind"].(string)]++
	}
	if kinds["Node"] != 12 || kinds["Pod"] == 0 || kinds["PodDisruptionBudget"] == 0 {
		t.Errorf("kinds %v", kinds)
	}
}

// TestShapes checks what each small-pod shape promises, and that its
// compact JSON is its indented JSON without the white space.
func TestShapes(t *testing.T) {
	for _, shape := range []Shape{Small, Namespaces, Uneven, Sparse} {
		t.Run(string(shape), func(t *testing.T) {
			small := Config{Nodes: 12, Shape: shape}
			var indented, compactSmall bytes.Buffer
			if err := Write(&indented, small); err != nil {
				t.Fatal(err)
			}
			small.Compact = true
			if err := Write(&compactSmall, small); err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := json.Compact(&want, indented.Bytes()); err != nil {
				t.Fatal(err)
			}
			if compactSmall.String() != want.String()+"\n" {
				t.Error("the compact JSON is not the indented JSON without white space")
			}
			c := Config{Nodes: 93, Shape: shape, Compact: true}
			var compact bytes.Buffer
			if err := Write(&compact, c); err != nil {
				t.Fatal(err)
			}
			var raw struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(compact.Bytes(), &raw); err != nil {
				t.Fatal(err)
			}
			var list struct {
				Items []struct {
					Kind     string `json:"kind"`
					Metadata struct {
						Name      string            `json:"name"`
						Namespace string            `json:"namespace"`
						Labels    map[string]string `json:"labels"`
					} `json:"metadata"`
					Spec struct {
						NodeName      string `json:"nodeName"`
						Unschedulable bool   `json:"unschedulable"`
					} `json:"spec"`
				} `json:"items"`
			}
			if err := json.Unmarshal(compact.Bytes(), &list); err != nil {
				t.Fatal(err)
			}
			nodes, pods, pdbs, podBytes := 0, 0, 0, 0
			zones, onNode, namespaces := map[string]int{}, map[string]int{}, map[string]bool{}
			cordoned, names := map[string]bool{}, map[string]bool{}
			for i, it := range list.Items {
				switch it.Kind {
				case "Node":
					nodes++
					zones[it.Metadata.Labels["topology.kubernetes.io/zone"]]++
					cordoned[it.Metadata.Name] = it.Spec.Unschedulable
				case "Pod":
					pods++
					podBytes += len(raw.Items[i])
					if key := it.Metadata.Namespace + "/" + it.Metadata.Name; names[key] {
						t.Errorf("pod %s appears twice", key)
					} else {
						names[key] = true
					}
					onNode[it.Spec.NodeName]++
					namespaces[it.Metadata.Namespace] = true
				case "PodDisruptionBudget":
					pdbs++
				}
			}
			if perPod := podBytes / pods; perPod < 800 || perPod > 1000 {
				t.Errorf("%d bytes per pod, want about 900", perPod)
			}
			empty := 0
			for name, off := range cordoned {
				if onNode[name] == 0 {
					empty++
					if !off {
						t.Errorf("node %s runs no pod but is not cordoned", name)
					}
				}
			}
			worker := Worker(c)
			if worker == "" || onNode[worker] != 30 || cordoned[worker] {
				t.Errorf("worker %q runs %d pods", worker, onNode[worker])
			}
			switch shape {
			case Small:
				if pdbs < nodes/6 || pdbs > nodes/4 || len(namespaces) > 15 {
					t.Errorf("%d PDBs, %d namespaces for %d nodes", pdbs, len(namespaces), nodes)
				}
			case Namespaces:
				if pdbs < 6*nodes || len(namespaces) < 3*nodes {
					t.Errorf("%d PDBs, %d namespaces for %d nodes", pdbs, len(namespaces), nodes)
				}
			case Uneven:
				// 93 nodes: 3 rounds of 31, node 13 (of zone a) without a
				// zone.
				want := map[string]int{"region-1a": 47, "region-1b": 24, "region-1c": 12, "region-1d": 6, "region-1e": 3, "": 1}
				for z, n := range want {
					if zones[z] != n {
						t.Errorf("zones %v, want %v", zones, want)
						break
					}
				}
				if got := len(ZoneNodes(c, 1)); got != want["region-1b"] {
					t.Errorf("ZoneNodes of zone 1: %d nodes, want %d", got, want["region-1b"])
				}
			case Sparse:
				// Two in five of the worker nodes (all but the three
				// control-plane ones).
				if empty != (nodes-3)*2/5 {
					t.Errorf("%d of %d nodes empty", empty, nodes)
				}
			}
			if shape != Sparse && empty != 0 {
				t.Errorf("%d nodes run no pod", empty)
			}
		})
	}
}

// A pod whose generated name another pod of its namespace has already gets
// another suffix; the first keeps its own.
func TestUniqueName(t *testing.T) {
	g := &generator{}
	first, again, elsewhere := g.uniqueName("shop", "web-7d9c8-abcde"), g.uniqueName("shop", "web-7d9c8-abcde"), g.uniqueName("data", "web-7d9c8-abcde")
	if first != "web-7d9c8-abcde" || elsewhere != first {
		t.Errorf("first %q, in another namespace %q: want both unchanged", first, elsewhere)
	}
	if again == first || len(again) != len(first) || again[:len(again)-5] != "web-7d9c8-" {
		t.Errorf("the second gets %q, want another five-character suffix", again)
	}
}
