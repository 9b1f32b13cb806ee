package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evictkit/eviction/examples/whatif/internal/gensnap"
)

// scaleConfig is the generated cluster of TestScale for a shape: for the
// large shape 1,000 nodes in three zones, with fewer pods per node than the
// benchmarks' 30 to keep the test within seconds; for the small-pod shapes
// 300 nodes of 30 pods, in JSON without white space. Under the race
// detector, which scripts/check uses for one of its two runs of the tests,
// a tenth of the nodes (at least 60). WHATIF_SCALE_NODES and
// WHATIF_SCALE_PODS set other counts, for profiling.
func scaleConfig(t *testing.T, shape gensnap.Shape) gensnap.Config {
	c := gensnap.Config{Nodes: 300, PodsPerNode: 30, Shape: shape, Compact: true}
	if shape == gensnap.Large {
		c = gensnap.Config{Nodes: 1000, Zones: 3, PodsPerNode: 10}
	}
	if raceDetector {
		c.Nodes = max(c.Nodes/10, 60)
	}
	for env, v := range map[string]*int{"WHATIF_SCALE_NODES": &c.Nodes, "WHATIF_SCALE_PODS": &c.PodsPerNode} {
		if s := os.Getenv(env); s != "" {
			if err := json.Unmarshal([]byte(s), v); err != nil {
				t.Fatalf("%s=%q: %v", env, s, err)
			}
		}
	}
	return c
}

// TestScale runs every scenario on a generated snapshot of every shape:
// node-down through the command line on the file, the others on the
// snapshot it decoded.
func TestScale(t *testing.T) {
	for _, shape := range gensnap.Shapes {
		t.Run(string(shape), func(t *testing.T) { testScale(t, scaleConfig(t, shape)) })
	}
}

func testScale(t *testing.T, c gensnap.Config) {
	dir := t.TempDir()
	file := filepath.Join(dir, "snapshot.json")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := gensnap.Write(f, c); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	s, err := readSnapshot(f, file)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	preemptor := filepath.Join(dir, "preemptor.yaml")
	if err := os.WriteFile(preemptor, []byte(preemptorYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	zone := gensnap.ZoneNodes(c, 1)
	worker := gensnap.Worker(c)
	pods := len(s.podsOn(worker))
	if pods == 0 {
		t.Fatalf("worker %q runs no pod", worker)
	}
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			args := sc.args(c, preemptor)
			var out []byte
			if sc.name == "node-down" {
				out = []byte(mustRun(t, "", append([]string{"-f", file, "-o", "json"}, args...)...))
			} else {
				var r report
				var err error
				switch sc.name {
				case "node-down-zone":
					r, err = nodeDown(s.clone(), file, settings{}, args[1:], false)
				case "taint":
					r, err = taintNode(s.clone(), file, settings{}, args[1], args[2])
				case "pressure":
					r, err = pressure(s.clone(), file, args[1], pressureInput{signals: args[3:]}, nil, false)
				case "preempt":
					r, err = preempt(s.clone(), file, args[1], nil, false, &preemptFlags{})
				}
				if err != nil {
					t.Fatal(err)
				}
				if out, err = json.Marshal(r.jsonValue()); err != nil {
					t.Fatal(err)
				}
			}
			var doc struct {
				Nodes []struct {
					Name        string `json:"name"`
					Pods        int    `json:"pods"`
					PodsEvicted int    `json:"podsEvicted"`
				} `json:"nodes"`
				Outcome string `json:"outcome"`
				Pods    []any  `json:"pods"`
			}
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			switch sc.name {
			case "node-down", "taint":
				if len(doc.Nodes) != 1 || doc.Nodes[0].Pods != pods || doc.Nodes[0].PodsEvicted == 0 {
					t.Errorf("nodes %+v, want one with %d pods, some evicted", doc.Nodes, pods)
				}
			case "node-down-zone":
				// A whole zone down while the others are up keeps the normal
				// rate: its nodes are tainted one by one and their pods go.
				evicted := 0
				for _, n := range doc.Nodes {
					evicted += n.PodsEvicted
				}
				if len(doc.Nodes) != len(zone) || evicted == 0 {
					t.Errorf("%d nodes, %d pods evicted; want %d nodes and evictions", len(doc.Nodes), evicted, len(zone))
				}
			case "pressure":
				if len(doc.Pods) != pods {
					t.Errorf("%d pods ranked, want %d", len(doc.Pods), pods)
				}
			case "preempt":
				if doc.Outcome != "preempts" {
					t.Errorf("outcome %q, want preempts", doc.Outcome)
				}
			}
		})
	}
}

// TestDecodeFormsAgree decodes the same generated snapshot from kubectl's
// JSON and YAML forms, and from one document per object, and gets the same
// objects.
func TestDecodeFormsAgree(t *testing.T) {
	c := gensnap.Config{Nodes: 30, Zones: 3, PodsPerNode: 12}
	if raceDetector {
		c.Nodes = 12
	}
	read := func(c gensnap.Config) *snapshot {
		var b bytes.Buffer
		if err := gensnap.Write(&b, c); err != nil {
			t.Fatal(err)
		}
		s, err := readSnapshot(&b, string(c.Format))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	c.Format = gensnap.JSON
	fromJSON := read(c)
	c.Format = gensnap.YAML
	fromYAML := read(c)
	if !reflect.DeepEqual(fromJSON, fromYAML) {
		t.Error("JSON and YAML decode differently")
	}
	// The same objects as separate YAML documents of indented JSON.
	var stream strings.Builder
	for _, objs := range []any{fromJSON.Nodes, fromJSON.Pods, fromJSON.PDBs} {
		v := reflect.ValueOf(objs)
		for i := 0; i < v.Len(); i++ {
			b, err := json.MarshalIndent(v.Index(i).Interface(), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			stream.WriteString("---\n" + string(b) + "\n")
		}
	}
	fromDocs, err := readSnapshot(strings.NewReader(stream.String()), "documents")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, fromDocs) {
		t.Error("one document per object decodes differently")
	}
	if len(fromJSON.Nodes) != c.Nodes || len(fromJSON.Pods) == 0 || len(fromJSON.PDBs) == 0 {
		t.Errorf("%d nodes, %d pods, %d PDBs", len(fromJSON.Nodes), len(fromJSON.Pods), len(fromJSON.PDBs))
	}
}
