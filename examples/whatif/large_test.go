package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/evictkit/eviction/examples/whatif/internal/gensnap"
)

// The scale benchmarks run whatif, and the reference decodes, on generated
// snapshots of 1,000 nodes and more, each in a child process (this test
// binary, re-executed) so that its peak memory can be measured: wall time
// is ns/op, and the child's CPU time and peak RSS are reported beside it.
// They run only when WHATIF_LARGE lists the sizes:
//
//	WHATIF_LARGE=1000,5000,10000 go test ./examples/whatif -run '^$' -bench 'Large/large/' -benchtime 1x -timeout 2h
//	WHATIF_LARGE=300,3000,10000 go test ./examples/whatif -run '^$' -bench 'Large/(small|namespaces|uneven|sparse)/' -benchtime 1x -timeout 2h
//
// Every shape of gensnap is benchmarked (the first level of the names):
// the large shape in kubectl's indented JSON and in YAML, the small-pod
// shapes in JSON without white space (as jq -c prints it), where the fixed
// cost of each object weighs most. The snapshots are written once to
// $WHATIF_SNAPSHOTS (default $TMPDIR/whatif-snapshots) and reused.

// largeEnv lists the node counts to benchmark.
const largeEnv = "WHATIF_LARGE"

// childEnv makes the test binary run one child task and exit.
const childEnv = "WHATIF_CHILD"

func TestMain(m *testing.M) {
	if task := os.Getenv(childEnv); task != "" {
		os.Exit(child(task, os.Args[len(os.Args)-1]))
	}
	os.Exit(m.Run())
}

// child runs one task on the snapshot file: "decode", "ref-json",
// "ref-yaml", "ref-yaml-items" or "run" (whatif with the arguments in
// WHATIF_ARGS, a JSON list).
func child(task, file string) int {
	var err error
	switch task {
	case "run":
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv("WHATIF_ARGS")), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return run(append([]string{"-f", file}, args...), os.Stdin, io.Discard, os.Stderr)
	case "decode":
		var f *os.File
		if f, err = os.Open(file); err == nil {
			if st, err := f.Stat(); err == nil {
				limitMemory(st.Size())
			}
			_, err = readSnapshot(f, file)
			f.Close()
		}
	case "ref-json":
		_, err = referenceJSON(file)
	case "ref-yaml":
		_, err = referenceYAML(file)
	case "ref-yaml-items":
		_, err = referenceYAMLItems(file)
	default:
		err = fmt.Errorf("unknown task %q", task)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// referenceObjects is what the reference decodes keep.
type referenceObjects struct {
	nodes []*corev1.Node
	pods  []*corev1.Pod
	pdbs  []*policyv1.PodDisruptionBudget
}

// referenceJSON is the reference decode: encoding/json reads the file into a
// v1.List, then each item into its type.
func referenceJSON(file string) (*referenceObjects, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var list corev1.List
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, err
	}
	return referenceItems(&list)
}

// referenceYAML is the YAML reference: sigs.k8s.io/yaml (go.yaml.in/yaml/v2
// to JSON, then encoding/json) reads the file into a v1.List, then each item
// into its type.
func referenceYAML(file string) (*referenceObjects, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var list corev1.List
	if err := yaml.Unmarshal(data, &list); err != nil {
		return nil, err
	}
	return referenceItems(&list)
}

// referenceYAMLItems is the YAML reference that fits in memory at every
// size: the kubectl List is cut into its items at the "- " lines of column
// 0, and sigs.k8s.io/yaml converts each item to JSON on its own, which
// encoding/json decodes into its type (all kept), as yaml.Unmarshal does.
func referenceYAMLItems(file string) (*referenceObjects, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	out := &referenceObjects{}
	var item []byte
	inItems, i := false, 0
	flush := func() error {
		if len(item) == 0 {
			return nil
		}
		raw, err := yaml.YAMLToJSON(item)
		if err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
		item = item[:0]
		i++
		return out.add(i-1, raw)
	}
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			more := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				more = append(more, line...)
			}
			line = more
		}
		switch {
		case len(line) == 0:
		case bytes.HasPrefix(line, []byte("items:")):
			inItems = true
		case inItems && bytes.HasPrefix(line, []byte("- ")):
			if ferr := flush(); ferr != nil {
				return nil, ferr
			}
			item = append(item, line[2:]...)
		case inItems && bytes.HasPrefix(line, []byte("  ")):
			item = append(item, line[2:]...)
		case inItems && len(bytes.TrimSpace(line)) > 0:
			inItems = false
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

func referenceItems(list *corev1.List) (*referenceObjects, error) {
	out := &referenceObjects{}
	for i := range list.Items {
		if err := out.add(i, list.Items[i].Raw); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// add decodes item i, raw JSON, into its type and keeps it.
func (out *referenceObjects) add(i int, raw []byte) error {
	var tm metav1.TypeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return err
	}
	var err error
	switch tm.Kind {
	case "Node":
		n := &corev1.Node{}
		err = json.Unmarshal(raw, n)
		out.nodes = append(out.nodes, n)
	case "Pod":
		p := &corev1.Pod{}
		err = json.Unmarshal(raw, p)
		out.pods = append(out.pods, p)
	case "PodDisruptionBudget":
		p := &policyv1.PodDisruptionBudget{}
		err = json.Unmarshal(raw, p)
		out.pdbs = append(out.pdbs, p)
	default:
		err = fmt.Errorf("item %d: kind %q", i, tm.Kind)
	}
	return err
}

// largeSizes returns the node counts in WHATIF_LARGE.
func largeSizes(tb testing.TB) []int {
	env := os.Getenv(largeEnv)
	if env == "" {
		tb.Skipf("set %s=1000,5000,10000 to run the scale benchmarks", largeEnv)
	}
	var out []int
	for _, f := range strings.Split(env, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 3 {
			tb.Fatalf("%s=%q: want node counts ≥ 3 separated by commas", largeEnv, env)
		}
		out = append(out, n)
	}
	return out
}

// benchConfig is the generated cluster of the benchmarks: n nodes of the
// shape, in format f (the small-pod shapes in JSON without white space).
func benchConfig(shape gensnap.Shape, n int, f gensnap.Format) gensnap.Config {
	c := gensnap.Config{Nodes: n, Shape: shape, Format: f, Compact: shape != gensnap.Large}
	if shape != gensnap.Uneven {
		c.Zones = 3
	}
	return c
}

// benchFormats returns the formats a shape is benchmarked in.
func benchFormats(shape gensnap.Shape) []gensnap.Format {
	if shape == gensnap.Large {
		return []gensnap.Format{gensnap.JSON, gensnap.YAML}
	}
	return []gensnap.Format{gensnap.JSON}
}

// snapshotFile returns the generated snapshot c describes, writing it the
// first time.
func snapshotFile(tb testing.TB, c gensnap.Config) string {
	dir := os.Getenv("WHATIF_SNAPSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "whatif-snapshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	name := fmt.Sprintf("nodes-%d.%s", c.Nodes, c.Format) // the large shape's, as before shapes
	if c.Shape != gensnap.Large {
		name = fmt.Sprintf("%s-%d.%s", c.Shape, c.Nodes, c.Format)
	}
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp, err := os.CreateTemp(dir, "gen-*")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.Remove(tmp.Name())
	if err := gensnap.Write(tmp, c); err != nil {
		tb.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		tb.Fatal(err)
	}
	return path
}

// preemptorYAML is a pending pod that fits nowhere without preemption: it
// asks for most of a worker's CPU at a priority above every workload's.
const preemptorYAML = `apiVersion: v1
kind: Pod
metadata: {name: big-batch, namespace: batch}
spec:
  priority: 1000000
  containers:
  - name: main
    image: registry.example.com/batch/big:1.0
    resources: {requests: {cpu: 7500m, memory: 8Gi}}
`

// scenario is one whatif command line of the scale benchmarks and tests.
type scenario struct {
	name string
	args func(c gensnap.Config, preemptor string) []string
}

// scenarios are the command lines run on a generated cluster. The worker
// is a node of the second zone with pods and no taint (node 4 in the large
// shape); the zone taken down is the second.
func scenarios() []scenario {
	worker := gensnap.Worker
	return []scenario{
		{"node-down", func(c gensnap.Config, _ string) []string { return []string{"node-down", worker(c)} }},
		{"node-down-zone", func(c gensnap.Config, _ string) []string {
			return append([]string{"node-down"}, gensnap.ZoneNodes(c, 1)...)
		}},
		{"taint", func(c gensnap.Config, _ string) []string {
			return []string{"taint", worker(c), "dedicated=ml:NoExecute"}
		}},
		{"pressure", func(c gensnap.Config, _ string) []string {
			return []string{"pressure", worker(c), "--signal", "memory.available=50Mi"}
		}},
		{"preempt", func(_ gensnap.Config, p string) []string { return []string{"preempt", p} }},
	}
}

// childResult is one child run's cost.
type childResult struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes
}

// runChild runs the test binary as a child doing task on file.
func runChild(tb testing.TB, task, file string, args []string) childResult {
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	a, _ := json.Marshal(args)
	cmd := exec.Command(exe, "-test.run=^$", file)
	cmd.Env = append(os.Environ(), childEnv+"="+task, "WHATIF_ARGS="+string(a))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		tb.Fatalf("%s %v: %v: %s", task, args, err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		tb.Fatal("no rusage")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return childResult{wall: wall, cpu: cpu, maxRSS: ru.Maxrss * 1024}
}

// BenchmarkLarge runs, per shape, size and format, the reference decode,
// whatif's decode alone and every scenario end to end.
func BenchmarkLarge(b *testing.B) {
	dir := b.TempDir()
	preemptor := filepath.Join(dir, "preemptor.yaml")
	if err := os.WriteFile(preemptor, []byte(preemptorYAML), 0o644); err != nil {
		b.Fatal(err)
	}
	sizes := largeSizes(b)
	for _, shape := range gensnap.Shapes {
		for _, n := range sizes {
			for _, f := range benchFormats(shape) {
				c := benchConfig(shape, n, f)
				measure := func(name, task string, args []string) {
					b.Run(fmt.Sprintf("%s/nodes=%d/%s/%s", shape, n, f, name), func(b *testing.B) {
						// Written on first use, so that -bench can leave a
						// shape, size or format out without generating it.
						file := snapshotFile(b, c)
						st, err := os.Stat(file)
						if err != nil {
							b.Fatal(err)
						}
						size := float64(st.Size())
						var cpu time.Duration
						var rss int64
						for i := 0; i < b.N; i++ {
							r := runChild(b, task, file, args)
							cpu += r.cpu
							rss = max(rss, r.maxRSS)
						}
						b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
						b.ReportMetric(float64(rss)/(1<<20), "peak-MiB")
						b.ReportMetric(float64(rss)/size, "peak/input")
						b.ReportMetric(size/(1<<20), "input-MiB")
					})
				}
				if f == gensnap.JSON {
					measure("reference", "ref-json", nil)
				} else if os.Getenv("WHATIF_YAML_REFERENCE") != "" || n <= 1000 {
					// sigs.k8s.io/yaml holds the whole document as generic
					// maps: some 30 times the file, so not beyond 1,000
					// nodes unless asked.
					measure("reference", "ref-yaml", nil)
				}
				if f == gensnap.YAML {
					measure("reference-items", "ref-yaml-items", nil)
				}
				measure("decode", "decode", nil)
				for _, sc := range scenarios() {
					measure(sc.name, "run", sc.args(c, preemptor))
				}
			}
		}
	}
}

// The item-by-item YAML reference decodes what the whole-List one does.
func TestReferenceYAMLItems(t *testing.T) {
	file := filepath.Join(t.TempDir(), "snapshot.yaml")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := gensnap.Write(f, gensnap.Config{Nodes: 30, PodsPerNode: 10, Format: gensnap.YAML}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	whole, err := referenceYAML(file)
	if err != nil {
		t.Fatal(err)
	}
	items, err := referenceYAMLItems(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.nodes) != 30 || len(whole.pods) == 0 || len(whole.pdbs) == 0 {
		t.Fatalf("%d nodes, %d pods, %d PDBs", len(whole.nodes), len(whole.pods), len(whole.pdbs))
	}
	if !reflect.DeepEqual(items, whole) {
		t.Errorf("item by item: %d nodes, %d pods, %d PDBs; whole List: %d, %d, %d (or the objects differ)",
			len(items.nodes), len(items.pods), len(items.pdbs), len(whole.nodes), len(whole.pods), len(whole.pdbs))
	}
}
