package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/evictkit/eviction/examples/whatif/internal/gensnap"
)

// FuzzReadSnapshot feeds the decoder arbitrary bytes: it never panics, and
// what it accepts has nodes with names and pods without duplicates.
func FuzzReadSnapshot(f *testing.F) {
	kind, err := os.ReadFile(filepath.Join("testdata", "kind-cluster.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(kind)
	for _, format := range []gensnap.Format{gensnap.JSON, gensnap.YAML} {
		var b bytes.Buffer
		if err := gensnap.Write(&b, gensnap.Config{Nodes: 3, PodsPerNode: 5, Format: format}); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	for _, s := range []string{
		"",
		"---\n",
		"{}",
		`{"kind":"List","items":[{"kind":"Node","apiVersion":"v1","metadata":{"name":"n"}}]}`,
		`{"metadata":{"name":"n"},"kind":"Node","apiVersion":"v1"}{"kind":"Node","apiVersion":"v1","metadata":{"name":"m"}}`,
		"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n\nkind: List\n",
		"apiVersion: v1\nitems:\n  - apiVersion: v1\n    kind: Node\n    metadata: {name: n}\nkind: List\n",
		"items:\n- kind: Node\n  apiVersion: v1\n  metadata: {name: n}\n# comment\n\n- kind: Pod\n  apiVersion: v1\n  metadata: {name: p}\n  spec: {nodeName: n}\nkind: PodList\n",
		"apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\n{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}\n",
		"items:\n-\n  kind: Node\nkind: List\n",
		"{\"kind\":\"Node\",\"items\":[]}",
		"[1,2]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := readSnapshot(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		if len(s.Nodes) == 0 {
			t.Fatal("accepted a snapshot without nodes")
		}
		for _, n := range s.Nodes {
			if n.Name == "" {
				t.Fatal("accepted a node without a name")
			}
			if got, err := s.node(n.Name); err != nil || got != n {
				t.Fatalf("node %q not indexed", n.Name)
			}
		}
	})
}
