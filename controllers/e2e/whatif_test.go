package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The whatif check (the fifth scenario): the moment scenario 2
// silences its nodes, the cluster is snapshotted as
//
//	kubectl get nodes,pods,pdb -A -o yaml
//
// prints it (kubectl from the machine when there is one, and client-go
// printing the same List in any case), and whatif node-down, told the
// controllers' settings, predicts what follows; the check then holds the
// prediction against what the API server recorded: the same taints, node
// conditions, pods marked not ready and deleted, in the same order, at the
// predicted offsets from the silence.

// silence is what a scenario recorded for the whatif check: the snapshots
// taken just before its nodes went silent, when they did, and when a node
// came back (after which the prediction, which has it silent for good, no
// longer holds for it).
type silence struct {
	snapshots map[string][]byte // by source: "kubectl", "client-go"
	nodes     []string
	at        time.Time
	mu        sync.Mutex
	back      map[string]time.Time
}

// silenceNodes snapshots the cluster and stops the nodes' heartbeats.
func (c *cluster) silenceNodes(t *testing.T, nodes ...string) {
	t.Helper()
	s := &silence{snapshots: map[string][]byte{}, nodes: nodes, back: map[string]time.Time{}}
	start := time.Now()
	defer func() {
		t.Logf("snapshots (%s) took %v", strings.Join(slices.Sorted(maps.Keys(s.snapshots)), ", "), s.at.Sub(start).Round(time.Millisecond))
	}()
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		out, err := c.kubectlSnapshot(kubectl)
		if err != nil {
			t.Errorf("kubectl get nodes,pods,pdb: %v", err)
		} else {
			s.snapshots["kubectl"] = out
		}
	}
	out, err := c.clientGoSnapshot()
	if err != nil {
		t.Fatalf("snapshot through client-go: %v", err)
	}
	s.snapshots["client-go"] = out
	for _, n := range nodes {
		c.setAlive(n, false)
	}
	s.at = time.Now()
	c.silence = s
}

// reviveNode notes that a silenced node comes back; the caller then posts
// its status and renews its Lease again.
func (c *cluster) reviveNode(node string) {
	if s := c.silence; s != nil {
		s.mu.Lock()
		s.back[node] = time.Now()
		s.mu.Unlock()
	}
}

// kubectlSnapshot runs kubectl get nodes,pods,pdb -A -o yaml against the
// cluster.
func (c *cluster) kubectlSnapshot(kubectl string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectl, "--kubeconfig="+c.Kubeconfig, "get", "nodes,pods,pdb", "-A", "-o", "yaml")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, stderr.String())
	}
	return out, nil
}

// clientGoSnapshot lists nodes, pods and PodDisruptionBudgets and prints
// them as kubectl get -o yaml does: one v1 List whose items carry their
// apiVersion and kind, without managedFields.
func (c *cluster) clientGoSnapshot() ([]byte, error) {
	nodes, err := c.client.CoreV1().Nodes().List(c.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pods, err := c.client.CoreV1().Pods(metav1.NamespaceAll).List(c.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pdbs, err := c.client.PolicyV1().PodDisruptionBudgets(metav1.NamespaceAll).List(c.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var items []any
	for i := range nodes.Items {
		n := &nodes.Items[i]
		n.APIVersion, n.Kind, n.ManagedFields = "v1", "Node", nil
		items = append(items, n)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		p.APIVersion, p.Kind, p.ManagedFields = "v1", "Pod", nil
		items = append(items, p)
	}
	for i := range pdbs.Items {
		p := &pdbs.Items[i]
		p.APIVersion, p.Kind, p.ManagedFields = "policy/v1", "PodDisruptionBudget", nil
		items = append(items, p)
	}
	return yaml.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "List", "items": items,
		"metadata": map[string]any{"resourceVersion": ""},
	})
}

// whatifBinary builds examples/whatif of the library module once per test
// binary; start it early, it is ready by the time a scenario needs it. It is
// built in the controllers module, with the versions the controllers use
// (k8s.io/api v0.37, not the library's oldest supported), so that it reuses
// the packages compiled for the controllers' programs.
var whatifBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "evictkit-e2e-whatif-")
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-o", dir+"/", "github.com/evictkit/eviction/examples/whatif")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building whatif: %w\n%s", err, out)
	}
	return filepath.Join(dir, "whatif"), nil
})

// whatifFlags are the controllers' settings, in kube-controller-manager's
// flag names, as whatif takes them.
var whatifFlags = nodeLifecycleFlags

// prediction is the part of whatif's -o json document the check reads.
type prediction struct {
	Config struct {
		MonitorPeriodSeconds      float64 `json:"monitorPeriodSeconds"`
		MonitorGracePeriodSeconds float64 `json:"monitorGracePeriodSeconds"`
	} `json:"config"`
	Events []struct {
		AfterSeconds *float64 `json:"afterSeconds"`
		Kind         string   `json:"kind"`
		Node         string   `json:"node"`
		Pod          string   `json:"pod"`
		Detail       string   `json:"detail"`
	} `json:"events"`
}

// predict runs whatif node-down on a snapshot.
func predict(t *testing.T, snapshot []byte, nodes []string) (prediction, []byte) {
	t.Helper()
	bin, err := whatifBinary()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "snapshot.yaml")
	if err := os.WriteFile(file, snapshot, 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-f", file, "-o", "json"}, whatifFlags...)
	args = append(args, "node-down")
	args = append(args, nodes...)
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("whatif %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	var p prediction
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("whatif -o json: %v", err)
	}
	return p, out
}

// expected is one change the prediction says the API server will record.
type expected struct {
	what  string
	node  string        // the node it concerns, for its observation window
	after time.Duration // from the silence; -1: never
	tols  []v1.Toleration
}

// snapshotPods returns the snapshot's pods by node, as namespace/name, and
// their tolerations.
func snapshotPods(t *testing.T, snapshot []byte) (on map[string][]string, tols map[string][]v1.Toleration) {
	t.Helper()
	var list struct {
		Items []struct {
			Kind     string            `json:"kind"`
			Metadata metav1.ObjectMeta `json:"metadata"`
			Spec     struct {
				NodeName    string          `json:"nodeName"`
				Tolerations []v1.Toleration `json:"tolerations"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := yaml.Unmarshal(snapshot, &list); err != nil {
		t.Fatalf("the snapshot is no List: %v", err)
	}
	on, tols = map[string][]string{}, map[string][]v1.Toleration{}
	for _, it := range list.Items {
		if it.Kind == "Pod" && it.Spec.NodeName != "" {
			name := it.Metadata.Namespace + "/" + it.Metadata.Name
			on[it.Spec.NodeName] = append(on[it.Spec.NodeName], name)
			tols[name] = it.Spec.Tolerations
		}
	}
	return on, tols
}

// expectations turns whatif's timeline of the silent nodes into the trace's
// words: a node's Ready condition, its taints added or removed, each of its
// pods marked not ready when the node turns Unknown (whatif gives their
// number), given the DisruptionTarget condition and deleted.
func expectations(t *testing.T, p prediction, silent []string, podsOn map[string][]string, tols map[string][]v1.Toleration) []expected {
	t.Helper()
	var out []expected
	for _, e := range p.Events {
		if !slices.Contains(silent, e.Node) {
			continue
		}
		after := time.Duration(-1)
		if e.AfterSeconds != nil {
			after = time.Duration(*e.AfterSeconds * float64(time.Second))
		}
		add := func(what string) {
			pod := ""
			if strings.HasPrefix(what, "pod ") {
				pod = parseChange(what).name
			}
			out = append(out, expected{what: what, node: e.Node, after: after, tols: tols[pod]})
		}
		switch e.Kind {
		case "node-unknown":
			add("node " + e.Node + " Ready=Unknown")
			n := 0
			if _, marked, ok := strings.Cut(e.Detail, "; "); ok {
				fmt.Sscanf(marked, "%d", &n)
			}
			if n != len(podsOn[e.Node]) {
				t.Errorf("whatif marks %d pods of %s not ready (%q), the snapshot has %d on it", n, e.Node, e.Detail, len(podsOn[e.Node]))
			}
			for _, pod := range podsOn[e.Node] {
				add("pod " + pod + " Ready=False")
			}
		case "tainted", "taint-removed":
			verb, sign := "tainted ", " +"
			if e.Kind == "taint-removed" {
				verb, sign = "untainted ", " -"
			}
			list, _, _ := strings.Cut(strings.TrimPrefix(e.Detail, verb), " (")
			for _, taint := range strings.Split(list, ",") {
				if !strings.Contains(taint, "/") {
					taint = "node.kubernetes.io/" + taint // whatif shortens its own keys
				}
				add("node " + e.Node + sign + taint)
			}
		case "evicted":
			add("pod " + e.Pod + " DisruptionTarget=True")
			add("pod " + e.Pod + " deleted")
		case "stays":
			after = -1
			add("pod " + e.Pod + " deleted")
		}
	}
	return out
}

// checkPrediction runs whatif on the snapshots the scenario took and holds
// its prediction against the trace.
func (c *cluster) checkPrediction(t *testing.T, tr *trace, prefix string) {
	s := c.silence
	if s == nil {
		t.Skip("no scenario silenced nodes")
	}
	sources := []string{"client-go"}
	if _, ok := s.snapshots["kubectl"]; ok {
		sources = []string{"kubectl", "client-go"}
	}
	var ref prediction
	for i, src := range sources {
		p, doc := predict(t, s.snapshots[src], s.nodes)
		if i == 0 {
			ref = p
			t.Logf("whatif on the %s snapshot (%d bytes):\n%s", src, len(s.snapshots[src]), doc)
			continue
		}
		if !reflect.DeepEqual(p.Events, ref.Events) {
			t.Errorf("whatif predicts otherwise from the %s snapshot than from the %s one", src, sources[0])
		}
		t.Logf("the %s snapshot is byte for byte the %s one: %v", src, sources[0], bytes.Equal(s.snapshots[src], s.snapshots[sources[0]]))
	}
	if ref.Config.MonitorPeriodSeconds != monitorPeriod.Seconds() || ref.Config.MonitorGracePeriodSeconds != gracePeriod.Seconds() {
		t.Fatalf("whatif simulated %+v, not the controllers' settings", ref.Config)
	}
	podsOn, tols := snapshotPods(t, s.snapshots[sources[0]])
	want := expectations(t, ref, s.nodes, podsOn, tols)

	// A node that came back is judged until then; the others, and the pods
	// on them, until every change whatif predicts within judgeWithin of the
	// silence has been seen, or could have been (the bound of the poll).
	const judgeWithin = 30 * time.Second
	s.mu.Lock()
	back := map[string]time.Duration{}
	for n, at := range s.back {
		back[n] = at.Sub(s.at)
	}
	s.mu.Unlock()
	nodeOf := map[string]string{} // trace subject → node
	for node, pods := range podsOn {
		nodeOf["node "+node] = node
		for _, p := range pods {
			nodeOf["pod "+p] = node
		}
	}
	for _, n := range s.nodes {
		nodeOf["node "+n] = n
	}
	observe := func(until func(node string) time.Duration) []event {
		var got []event
		for _, e := range tr.since(s.at, prefix) {
			if parseChange(e.what).what == "created" {
				continue // the harness's own doing, not a prediction
			}
			n, ok := nodeOf[subject(e.what)]
			if ok && offset(e) <= until(n) {
				got = append(got, e)
			}
		}
		return got
	}
	// The tolerances, from the run's own inputs: how long before the silence
	// each node's Lease was last renewed, and the lag measured so far; the
	// poll waits for what is due by the latest bound (its lag grows if the
	// machine slows meanwhile).
	tol := func() tolerance {
		tl := tolerance{s: runSettings(tr.lag(s.at.Add(-time.Minute), time.Now())), early: map[string]time.Duration{}}
		for _, n := range s.nodes {
			until := time.Now()
			if b, came := back[n]; came {
				until = s.at.Add(b)
			}
			r, ok := tr.renewedBefore(n, until)
			quiet := time.Duration(0)
			if ok {
				quiet = max(s.at.Sub(r), 0)
			}
			tl.early[n] = tl.s.period + quiet + tl.s.lag
		}
		return tl
	}
	for {
		tl := tol()
		var due time.Duration
		for _, e := range want {
			b, came := back[e.node]
			if e.after >= 0 && e.after <= judgeWithin && (!came || e.after+tl.late(e.what) < b) {
				due = max(due, e.after+tl.late(e.what))
			}
		}
		got := observe(func(string) time.Duration { return judgeWithin + time.Minute })
		seen := map[string]int{}
		for _, e := range got {
			seen[e.what]++
		}
		missing := 0
		for _, e := range want {
			b, came := back[e.node]
			if e.after >= 0 && e.after <= judgeWithin && (!came || e.after+tl.late(e.what) < b) {
				if seen[e.what] == 0 {
					missing++
				} else {
					seen[e.what]--
				}
			}
		}
		if missing == 0 || time.Since(s.at) > due {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	end := time.Since(s.at)
	window := func(node string) time.Duration {
		if b, ok := back[node]; ok {
			return b
		}
		return end
	}
	tl := tol()
	problems, lines := judge(want, observe(window), window, tl)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("whatif against the API server, offsets from the silence (lag %v; early by at most %v; late by at most %v to %v by kind):\n%s",
		tl.s.lag, tl.early, tl.late("node x Ready=Unknown"), tl.late("pod x deleted"), strings.Join(lines, "\n"))
}

// tolerance is how far from whatif's predicted time the API server may
// record a change: early by the node's own slack (whatif puts the last
// heartbeat and a monitor pass at the silence; the controllers saw the last
// renewal, made before it, at a pass up to a period later), late by a monitor
// period and a reaction (settings.hop) for each step from the silence to the
// change (the node turns Unknown; it is tainted and its pods marked not
// ready; a pod gets DisruptionTarget; it is deleted).
type tolerance struct {
	s     settings
	early map[string]time.Duration // by node
}

func (tl tolerance) late(what string) time.Duration {
	p, h := tl.s.period, tl.s.hop()
	c := parseChange(what)
	switch {
	case c.kind == "node" && strings.HasPrefix(c.what, "Ready="):
		return p + h
	case c.kind == "node" || c.what == "Ready=False":
		return 2*p + 2*h
	case c.what == "DisruptionTarget=True":
		return 2*p + 3*h
	}
	return 2*p + 4*h
}

// judge holds the expected changes against the observed ones (offsets from
// the silence, in the order seen), each node's changes up to the end of its
// window: a change seen must be within the tolerance of its predicted time
// (and predicted at all), one predicted to be due before the window's end
// must be seen, nothing unpredicted may be seen, and changes that must keep
// their order (precedes) come in the predicted order. It returns the
// problems and a line per expected change.
func judge(want []expected, got []event, window func(node string) time.Duration, tl tolerance) (problems, lines []string) {
	at := map[string][]time.Duration{}
	byWhat := map[string][]event{}
	for _, e := range got {
		at[e.what] = append(at[e.what], offset(e))
		byWhat[e.what] = append(byWhat[e.what], e)
	}
	var predictedOrder, observedMatched []event
	seen := map[string]int{}
	for _, e := range want {
		w := window(e.node)
		k := seen[e.what]
		seen[e.what]++
		var obs time.Duration = -1
		if k < len(at[e.what]) {
			obs = at[e.what][k]
		}
		early, late := tl.early[e.node], tl.late(e.what)
		line := fmt.Sprintf("  %-55s whatif %-8s observed %s", e.what, predicted(e.after), observed(obs, w))
		switch {
		case obs >= 0 && e.after < 0:
			problems = append(problems, fmt.Sprintf("%s at %.2fs; whatif: never", e.what, obs.Seconds()))
		case obs >= 0 && (obs < e.after-early || obs > e.after+late):
			problems = append(problems, fmt.Sprintf("%s at %.2fs; whatif: at %.2fs, so within [%.2fs, %.2fs]", e.what, obs.Seconds(), e.after.Seconds(), (e.after-early).Seconds(), (e.after+late).Seconds()))
		case obs >= 0:
			predictedOrder = append(predictedOrder, event{at: time.Time{}.Add(e.after), what: e.what, node: e.node, tols: e.tols})
			observedMatched = append(observedMatched, byWhat[e.what][k])
		case e.after >= 0 && e.after+late < w:
			problems = append(problems, fmt.Sprintf("%s not seen by %.2fs; whatif: at %.2fs", e.what, w.Seconds(), e.after.Seconds()))
		case e.after >= 0:
			line += " (not due yet)"
		}
		lines = append(lines, line)
	}
	// What happened that whatif did not predict.
	for _, what := range slices.Sorted(maps.Keys(at)) {
		if obs, n := at[what], seen[what]; len(obs) > n {
			problems = append(problems, fmt.Sprintf("%s at %.2fs, not predicted", what, obs[n].Seconds()))
		}
	}
	// The causal order, as whatif predicts it.
	sort.SliceStable(predictedOrder, func(i, j int) bool { return predictedOrder[i].at.Before(predictedOrder[j].at) })
	sort.SliceStable(observedMatched, func(i, j int) bool { return observedMatched[i].at.Before(observedMatched[j].at) })
	problems = append(problems, sameOrder(predictedOrder, observedMatched)...)
	return problems, lines
}

// subject is what a trace line is about: "node s2-1", "pod s2/two".
func subject(what string) string {
	f := strings.Fields(what)
	if len(f) < 2 {
		return what
	}
	return f[0] + " " + f[1]
}

func predicted(d time.Duration) string {
	if d < 0 {
		return "never"
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func observed(d, window time.Duration) string {
	if d < 0 {
		return fmt.Sprintf("not by %.2fs", window.Seconds())
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}
