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
