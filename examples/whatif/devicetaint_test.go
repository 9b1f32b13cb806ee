package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/evictkit/eviction/examples/internal/golden"
)

// TestGoldenDeviceTaint runs device-taint on the embedded DRA snapshot and
// compares its output with testdata/NAME.golden; go test -update rewrites
// them.
func TestGoldenDeviceTaint(t *testing.T) {
	pool := []string{"device-taint", "--driver", "gpu.example.com", "--pool", "gpu-node-1", "gpu.example.com/maintenance:NoExecute"}
	none := []string{"device-taint", "--driver", "gpu.example.com", "--pool", "gpu-node-1", "--device", "gpu-0", "--device", "gpu-3", "--effect", "None"}
	for _, tc := range []struct {
		name string
		args []string
		// must are lines the output has whatever -update writes: the rules
		// the case is there to show.
		must []string
	}{
		{"device-taint-pool", pool, []string{
			"+0s      ml/llm-train-0                evicted: claim llm-train-0-gpu-8vz2x, device gpu-node-1/gpu-0: does not tolerate the taint",
			"only counts for scheduling",
			"+10m0s   ml/llm-train-1                evicted: claim llm-train-1-gpu-k4tzn, device gpu-node-1/gpu-1: tolerates the taint for 600s",
			"ml/inference-6f8b9c7d5-2xk8p  stays: claim inference-gpu, device gpu-node-1/gpu-2: tolerates the taint forever",
			"+0s      rule/whatif                   status EvictionInProgress=True PodsPendingEviction: 3 pods need to be evicted in 1 namespace.",
			"+10m10s  rule/whatif                   status EvictionInProgress=False Completed: 3 pods evicted since starting the controller.",
			"+50m0s   batch/render-0", "already in the snapshot",
		}},
		{"device-taint-pool-json", append([]string{"-o", "json"}, pool...), []string{`"why": "toleration-ends"`}},
		{"device-taint-none", none, []string{
			"status EvictionInProgress=False NoEffect: 1 published device selected. 1 allocated device selected. 1 pod would be evicted in 1 namespace if the effect was NoExecute.",
			"ml/llm-train-0                stays: claim llm-train-0-gpu-8vz2x, device gpu-node-1/gpu-0: effect None evicts nothing; with NoExecute it would be evicted at once",
		}},
		{"device-taint-none-json", append([]string{"-o", "json"}, none...), []string{`"reason": "NoEffect"`, `"ifNoExecute": {`}},
		{"device-taint-driver", []string{"device-taint", "--driver", "nic.example.com"}, []string{
			"every device of driver nic.example.com with whatif.evictkit.dev/device-taint:NoExecute",
			"ml/etl-0", "ml/llm-train-0",
		}},
		{"device-taint-noschedule", []string{"device-taint", "--driver", "gpu.example.com", "--pool", "gpu-node-2", "--device", "gpu-0", "gpu.example.com/maintenance:NoSchedule"}, []string{
			"OtherEffect: Eviction only happens for the NoExecute effect.",
			"effect NoSchedule evicts nothing; with NoExecute it would be evicted at once",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := []byte(mustRun(t, "", tc.args...))
			golden.Check(t, tc.name+".golden", out)
			golden.Contains(t, out, tc.must...)
		})
	}
}

// dtDoc is the part of device-taint's JSON document the tests read.
type dtDoc struct {
	Notes  []string `json:"notes"`
	Events []struct {
		AfterSeconds *float64 `json:"afterSeconds"`
		Kind         string   `json:"kind"`
		Rule         string   `json:"rule"`
		Pod          string   `json:"pod"`
		Claim        string   `json:"claim"`
		Device       string   `json:"device"`
		Why          string   `json:"why"`
		Condition    *struct {
			Status, Reason, Message string
		} `json:"condition"`
		IfNoExecute *struct {
			AfterSeconds *float64 `json:"afterSeconds"`
		} `json:"ifNoExecute"`
	} `json:"events"`
}

func runDeviceTaint(t *testing.T, stdin string, args ...string) dtDoc {
	t.Helper()
	out := mustRun(t, stdin, append([]string{"-o", "json", "device-taint"}, args...)...)
	var doc dtDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("-o json does not decode: %v\n%s", err, out)
	}
	return doc
}

// outcomes maps each pod to "why@seconds" (seconds -1: never).
func (d dtDoc) outcomes() map[string]string {
	m := map[string]string{}
	for _, e := range d.Events {
		if e.Pod == "" {
			continue
		}
		at := -1.0
		if e.AfterSeconds != nil {
			at = *e.AfterSeconds
		}
		m[e.Pod] = fmt.Sprintf("%s@%g", e.Why, at)
	}
	return m
}

// The decisions of the library's Snapshot and its Controller, replayed on
// a fake clock, agree on every pod in every case (the scenario notes any
// disagreement).
func TestDeviceTaintSnapshotAndControllerAgree(t *testing.T) {
	for _, args := range [][]string{
		{"--driver", "gpu.example.com"},
		{"--driver", "gpu.example.com", "--pool", "gpu-node-1", "gpu.example.com/maintenance:NoExecute"},
		{"--driver", "gpu.example.com", "--pool", "gpu-node-2", "gpu.example.com/ecc-errors=uncorrectable:NoExecute"},
		{"--driver", "gpu.example.com", "--pool", "gpu-node-1", "--device", "gpu-1", "gpu.example.com/maintenance=x:NoExecute"},
		{"--driver", "nic.example.com", "--pool", "fabric-a", "--effect", "None"},
	} {
		doc := runDeviceTaint(t, "", args...)
		if len(doc.Notes) > 0 {
			t.Errorf("%v: notes %q", args, doc.Notes)
		}
	}
}

// What each pod of the embedded DRA snapshot does when pool gpu-node-1 is
// tainted for maintenance: the rules of the scenario, in one table.
func TestDeviceTaintOutcomes(t *testing.T) {
	got := runDeviceTaint(t, "", "--driver", "gpu.example.com", "--pool", "gpu-node-1", "gpu.example.com/maintenance:NoExecute").outcomes()
	want := map[string]string{
		"ml/llm-train-0":               "not-tolerated@0",     // no toleration
		"ml/notebook-alice":            "not-tolerated@0",     // a toleration without effect does not protect
		"ml/llm-train-1":               "toleration-ends@600", // tolerates it for 600 s from its timeAdded (t0)
		"ml/inference-6f8b9c7d5-2xk8p": "tolerates@-1",        // a shared claim tolerating every NoExecute taint
		"ml/inference-6f8b9c7d5-w7rlm": "tolerates@-1",
		"batch/render-0":               "other-taint@3000", // its device's own taint, added 10 min before t0, tolerated 1 h
		"batch/render-1":               "untainted@-1",     // a device of the other pool
		"ml/llm-train-2":               "untainted@-1",     // not bound, and on the other pool
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes:\n got %v\nwant %v", got, want)
	}

	// The same taint on the other pool: render-0's own taint is due at
	// +50m, but the new one, which it does not tolerate, evicts it at once;
	// llm-train-2 uses the pool but is not bound to a node.
	got = runDeviceTaint(t, "", "--driver", "gpu.example.com", "--pool", "gpu-node-2", "gpu.example.com/maintenance:NoExecute").outcomes()
	for pod, w := range map[string]string{
		"batch/render-0": "not-tolerated@0", "batch/render-1": "not-tolerated@0", "ml/llm-train-2": "unbound@-1",
		"ml/llm-train-0": "untainted@-1",
	} {
		if got[pod] != w {
			t.Errorf("pool gpu-node-2: %s = %s, want %s", pod, got[pod], w)
		}
	}
}

// Effect None evicts nothing; each pod on a tainted device says what
// NoExecute would do, and the rule's status counts what
// kube-controller-manager would report.
func TestDeviceTaintNone(t *testing.T) {
	doc := runDeviceTaint(t, "", "--driver", "gpu.example.com", "--pool", "gpu-node-1", "--effect", "None", "gpu.example.com/maintenance")
	var statuses []string
	for _, e := range doc.Events {
		switch {
		case e.Kind == "evicted" && e.Why != "other-taint":
			t.Errorf("%s evicted by a taint of effect None", e.Pod)
		case e.Kind == "rule-status":
			statuses = append(statuses, e.Condition.Reason+": "+e.Condition.Message)
		case e.Pod == "ml/llm-train-1":
			if e.Why != "no-effect" || e.IfNoExecute == nil || e.IfNoExecute.AfterSeconds == nil || *e.IfNoExecute.AfterSeconds != 600 {
				t.Errorf("llm-train-1: %+v, want no-effect, with NoExecute at +600s", e)
			}
		case e.Pod == "ml/inference-6f8b9c7d5-2xk8p":
			if e.Why != "no-effect" || e.IfNoExecute == nil || e.IfNoExecute.AfterSeconds != nil {
				t.Errorf("inference: %+v, want no-effect, staying with NoExecute too", e)
			}
		}
	}
	want := []string{"NoEffect: 4 published devices selected. 4 allocated devices selected. 3 pods would be evicted in 1 namespace " +
		"if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule to trigger an update."}
	if !reflect.DeepEqual(statuses, want) {
		t.Errorf("statuses %q, want %q", statuses, want)
	}
}

// The snapshot as JSON, as a List or as a stream of documents, and with
// its DeviceTaintRules in v1beta2, gives what the YAML gives.
func TestDeviceTaintInputForms(t *testing.T) {
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := yaml.Unmarshal(embeddedDRASnapshot, &list); err != nil {
		t.Fatal(err)
	}
	asList, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": list.Items})
	if err != nil {
		t.Fatal(err)
	}
	var stream, yamlDocs bytes.Buffer
	for _, it := range list.Items {
		if it["kind"] == "DeviceTaintRule" {
			it["apiVersion"] = "resource.k8s.io/v1beta2"
		}
		b, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		stream.Write(b)
		stream.WriteByte('\n')
		y, err := yaml.JSONToYAML(b)
		if err != nil {
			t.Fatal(err)
		}
		yamlDocs.WriteString("---\n")
		yamlDocs.Write(y)
	}
	args := []string{"--driver", "gpu.example.com", "--pool", "gpu-node-2", "--device", "gpu-3", "--effect", "None"}
	want := runDeviceTaint(t, "", args...)
	for name, in := range map[string]string{"JSON List": string(asList), "JSON stream": stream.String(), "YAML documents": yamlDocs.String()} {
		got := runDeviceTaint(t, in, append([]string{"-f", "-"}, args...)...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v\nwant %+v", name, got, want)
		}
	}
	// The pre-existing rule of effect None on gpu-3 was read: the new
	// rule's name steps aside.
	for _, e := range want.Events {
		if e.Kind == "rule-created" && e.Rule != "whatif" {
			t.Errorf("created rule %q", e.Rule)
		}
	}
}

// The other scenarios read a snapshot that holds DRA objects (a slice with
// a node selector among them) and skip them, in YAML and in JSON.
func TestOtherScenariosSkipDRAObjects(t *testing.T) {
	want := mustRun(t, "", "-f", "dra-snapshot.yaml", "node-down", "gpu-node-1")
	if !strings.Contains(want, "gpu-node-1: 6 of 6 pods evicted") {
		t.Errorf("node-down on the DRA snapshot:\n%s", want)
	}
	var list map[string]any
	if err := yaml.Unmarshal(embeddedDRASnapshot, &list); err != nil {
		t.Fatal(err)
	}
	asJSON, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	got := mustRun(t, string(asJSON), "-f", "-", "node-down", "gpu-node-1")
	if strings.ReplaceAll(got, "standard input", "dra-snapshot.yaml") != want {
		t.Errorf("JSON input:\n%s\nwant\n%s", got, want)
	}
}

func TestDeviceTaintBadInput(t *testing.T) {
	dir := t.TempDir()
	oldSlice := filepath.Join(dir, "old.yaml")
	if err := os.WriteFile(oldSlice, []byte("apiVersion: v1\nkind: Node\nmetadata: {name: node1}\n---\n"+
		"apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gpu := []string{"device-taint", "--driver", "gpu.example.com"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no driver", []string{"device-taint"}, "--driver"},
		{"unknown driver", []string{"device-taint", "--driver", "tpu.example.com"}, `"tpu.example.com"`},
		{"unknown pool", append(gpu, "--pool", "gpu-node-9"), `"gpu-node-9"`},
		{"unknown device", append(gpu, "--pool", "gpu-node-1", "--device", "gpu-7"), `"gpu-7"`},
		{"device without pool", append(gpu, "--device", "gpu-0"), "--pool"},
		{"bad effect", append(gpu, "--effect", "Sometimes"), "Sometimes"},
		{"bad effect in the taint", append(gpu, "k:PreferNoSchedule"), "PreferNoSchedule"},
		{"effects disagree", append(gpu, "--effect", "None", "k:NoExecute"), "--effect"},
		{"bad key", append(gpu, "bad!key:NoExecute"), `"bad!key"`},
		{"bad value", append(gpu, "k=a b:NoExecute"), `"a b"`},
		{"two taints", append(gpu, "a:NoExecute", "b:NoExecute"), "at most one"},
		{"flag of another scenario", []string{"node-down", "worker-a2", "--driver", "x"}, "--driver"},
		{"no DRA objects", []string{"-f", "testdata/kind-cluster.yaml", "device-taint", "--driver", "x"}, "no ResourceSlices"},
		{"old API version", []string{"-f", oldSlice, "device-taint", "--driver", "d"}, "v1alpha3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "", tc.args...)
			if code != 2 || out != "" || !strings.HasPrefix(errOut, "whatif: ") || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, one line", code, out, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q does not name %q", errOut, tc.want)
			}
		})
	}
}

// device-taint leaves the snapshot's objects as decoded.
func TestDeviceTaintLeavesSnapshot(t *testing.T) {
	s, _, err := loadDRASnapshot("", nil)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _, err := loadDRASnapshot("", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"gpu.example.com/maintenance:NoExecute"},
		{"k:None"},
	} {
		if _, err := deviceTaint(s, "x", deviceTaintFlags{driver: "gpu.example.com", pool: "gpu-node-1"}, args); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(s.DRA, fresh.DRA) || !reflect.DeepEqual(s.Pods, fresh.Pods) {
		t.Error("device-taint modified the snapshot")
	}
}

// A pod whose eviction was already due when the snapshot was taken (its
// device's own taint outlived its toleration) goes at t0, before the rule
// is created: the rule's status does not count it, and the decision says
// since when it was due.
func TestDeviceTaintOverdue(t *testing.T) {
	const in = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-1}
  status:
    conditions: [{type: Ready, status: "True", lastHeartbeatTime: "2026-01-01T12:00:00Z"}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: node-1-gpus}
  spec:
    driver: gpu.example.com
    nodeName: node-1
    pool: {name: node-1, generation: 1, resourceSliceCount: 1}
    devices:
    - name: gpu-0
      taints: [{key: ecc, effect: NoExecute, timeAdded: "2026-01-01T10:00:00Z"}]
    - name: gpu-1
- apiVersion: v1
  kind: Pod
  metadata: {name: late, namespace: ml, uid: uid-late}
  spec:
    nodeName: node-1
    containers: [{name: c, image: i}]
    resourceClaims: [{name: gpu, resourceClaimName: late-gpu}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: late-gpu, namespace: ml}
  status:
    allocation:
      devices:
        results:
        - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0,
           tolerations: [{key: ecc, operator: Exists, effect: NoExecute, tolerationSeconds: 3600}]}
    reservedFor: [{resource: pods, name: late, uid: uid-late}]
`
	doc := runDeviceTaint(t, in, "-f", "-", "--driver", "gpu.example.com", "--pool", "node-1")
	if got := doc.outcomes(); got["ml/late"] != "other-taint@0" {
		t.Errorf("outcomes %v, want ml/late other-taint@0", got)
	}
	if len(doc.Notes) > 0 {
		t.Errorf("notes %q", doc.Notes)
	}
	for _, e := range doc.Events {
		if e.Kind == "rule-status" && e.Condition.Reason != "NotStarted" {
			t.Errorf("rule status %+v, want NotStarted: the pod went before the rule came", e.Condition)
		}
	}
	out := mustRun(t, in, "-f", "-", "device-taint", "--driver", "gpu.example.com", "--pool", "node-1")
	golden.Contains(t, []byte(out), "evicted: claim late-gpu, device node-1/gpu-0: the device's own taint ecc:NoExecute, tolerated for 3600s (already in the snapshot, overdue since -1h0m0s)")
}

// FuzzReadDRASnapshot feeds the decoder of device-taint's snapshots
// arbitrary bytes: it never panics; what it accepts has nodes, and the
// other scenarios' decoder, when it accepts the input too, reads as many
// nodes and pods.
func FuzzReadDRASnapshot(f *testing.F) {
	f.Add(embeddedDRASnapshot)
	for _, s := range []string{
		"",
		"[1,2]",
		`{"kind":"List","apiVersion":"v1","items":[{"kind":"Node","apiVersion":"v1","metadata":{"name":"n"}},{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"d","nodeSelector":{"nodeSelectorTerms":[]}}}]}`,
		`{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{}}{"kind":"Node","apiVersion":"v1","metadata":{"name":"n"},"spec":{"taints":[]}}`,
		`{"spec":{"devices":[]},"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"}}`,
		"apiVersion: v1\nkind: Node\nmetadata: {name: node1}\n---\napiVersion: resource.k8s.io/v1beta2\nkind: DeviceTaintRule\nmetadata: {name: r}\nspec: {taint: {key: k, effect: None}}\n",
		"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := readSnapshotOf(&snapshot{DRA: &draObjects{}}, bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		if len(s.Nodes) == 0 {
			t.Fatal("accepted a snapshot without nodes")
		}
		plain, err := readSnapshot(bytes.NewReader(data), "fuzz")
		if err != nil {
			// It rejects a top-level JSON document of the resource.k8s.io
			// group that the union of the other kinds does not hold (see
			// dra.go).
			return
		}
		if len(plain.Nodes) != len(s.Nodes) || len(plain.Pods) != len(s.Pods) {
			t.Fatalf("%d nodes and %d pods, the other decoder %d and %d", len(s.Nodes), len(s.Pods), len(plain.Nodes), len(plain.Pods))
		}
	})
}

// FuzzParseDeviceTaint: parseDeviceTaint never panics, and what it accepts
// prints back to a spec that parses to the same taint.
func FuzzParseDeviceTaint(f *testing.F) {
	for _, s := range []string{"", "k", "k=v", "k:NoExecute", "example.com/k=v:None", "k=:NoSchedule", "a:b:c", "=v", "k=v=w"} {
		f.Add(s, "")
		f.Add(s, "None")
	}
	f.Fuzz(func(t *testing.T, spec, effect string) {
		if _, err := deviceTaintEffect(effect); err != nil && effect != "" {
			return // the flag rejects it before
		}
		got, err := parseDeviceTaint(spec, effect)
		if err != nil {
			return
		}
		again, err := parseDeviceTaint(formatDeviceTaint(got), "")
		if err != nil || again != got {
			t.Fatalf("%q gives %+v, printed %q, parsed again %+v (%v)", spec, got, formatDeviceTaint(got), again, err)
		}
	})
}
