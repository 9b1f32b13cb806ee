package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/examples/whatif/internal/gensnap"
)

// sharingConfigs are generated clusters of every shape, small enough for
// the race detector.
func sharingConfigs() map[string]gensnap.Config {
	out := map[string]gensnap.Config{}
	for _, shape := range gensnap.Shapes {
		c := gensnap.Config{Nodes: 31, PodsPerNode: 12, Shape: shape, Compact: shape != gensnap.Large}
		out[string(shape)] = c
		if shape == gensnap.Large {
			c.Format = gensnap.YAML
			out["large-yaml"] = c
		}
	}
	return out
}

// The decoder, which decodes each distinct text of the parts that repeat
// once and shares the result, gives the objects encoding/json gives (the
// reference decode of the benchmarks), but for the fields it skips because
// no scenario reads them.
func TestDecodeIsTheReferenceDecode(t *testing.T) {
	for name, c := range sharingConfigs() {
		t.Run(name, func(t *testing.T) {
			if c.Format == gensnap.YAML {
				c.Format = gensnap.JSON // the reference reads JSON
			}
			file := filepath.Join(t.TempDir(), "snapshot.json")
			var b bytes.Buffer
			if err := gensnap.Write(&b, c); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := readSnapshot(&b, file)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := referenceJSON(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range ref.nodes {
				n.Status.Images = nil
			}
			for _, p := range ref.pods {
				for _, cs := range [][]corev1.ContainerStatus{p.Status.ContainerStatuses, p.Status.InitContainerStatuses} {
					for i := range cs {
						cs[i].State, cs[i].Image, cs[i].ImageID, cs[i].ContainerID = corev1.ContainerState{}, "", "", ""
					}
				}
			}
			if len(s.Pods) == 0 || len(s.PDBs) == 0 {
				t.Fatalf("%d pods, %d PDBs: the case tests nothing", len(s.Pods), len(s.PDBs))
			}
			if !reflect.DeepEqual(s.Nodes, ref.nodes) {
				t.Error("nodes differ from encoding/json's")
			}
			if len(s.Pods) != len(ref.pods) {
				t.Fatalf("%d pods, encoding/json %d", len(s.Pods), len(ref.pods))
			}
			for i := range s.Pods {
				if !reflect.DeepEqual(s.Pods[i], ref.pods[i]) {
					t.Fatalf("pod %s differs from encoding/json's:\n%+v\n%+v", podKey(s.Pods[i]), s.Pods[i], ref.pods[i])
				}
			}
			if !reflect.DeepEqual(s.PDBs, ref.pdbs) {
				t.Error("PDBs differ from encoding/json's")
			}
		})
	}
}

// The replicas of a Deployment share one copy of their containers,
// tolerations, owner reference and labels.
func TestDecodeSharesWhatRepeats(t *testing.T) {
	s := generated(t, gensnap.Config{Nodes: 31, PodsPerNode: 12, Shape: gensnap.Namespaces})
	byOwner := map[string][]*corev1.Pod{}
	for _, p := range s.Pods {
		if len(p.OwnerReferences) == 1 && p.OwnerReferences[0].Kind == "ReplicaSet" {
			byOwner[p.OwnerReferences[0].Name] = append(byOwner[p.OwnerReferences[0].Name], p)
		}
	}
	checked := 0
	for rs, pods := range byOwner {
		a := pods[0]
		for _, b := range pods[1:] {
			checked++
			if &a.Spec.Containers[0] != &b.Spec.Containers[0] || &a.Spec.Tolerations[0] != &b.Spec.Tolerations[0] ||
				&a.OwnerReferences[0] != &b.OwnerReferences[0] || reflect.ValueOf(a.Labels).UnsafePointer() != reflect.ValueOf(b.Labels).UnsafePointer() {
				t.Errorf("replicas %s and %s of %s do not share their parts", a.Name, b.Name, rs)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no Deployment with two replicas: the test proves nothing")
	}
}

// No scenario writes to the snapshot, whose objects share their parts: after
// every scenario the snapshot is the one decoded afresh.
func TestScenariosLeaveTheSharedSnapshot(t *testing.T) {
	dir := t.TempDir()
	preemptor := filepath.Join(dir, "preemptor.yaml")
	if err := os.WriteFile(preemptor, []byte(preemptorYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range sharingConfigs() {
		t.Run(name, func(t *testing.T) {
			s, fresh := generated(t, c), generated(t, c)
			for _, sc := range scenarios() {
				args := sc.args(c, preemptor)
				var err error
				switch sc.name {
				case "node-down", "node-down-zone":
					_, err = nodeDown(s, "generated", settings{}, args[1:], false)
				case "taint":
					_, err = taintNode(s, "generated", settings{}, args[1], args[2])
				case "pressure":
					_, err = pressure(s, "generated", args[1], pressureInput{signals: args[3:]}, nil, false)
				case "preempt":
					_, err = preempt(s, "generated", args[1], nil, false)
				}
				if err != nil {
					t.Fatalf("%s: %v", sc.name, err)
				}
				if !reflect.DeepEqual(s, fresh) {
					t.Fatalf("%s changed the snapshot", sc.name)
				}
			}
		})
	}
}
