package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/evictkit/eviction/controllers/e2e/framework"
)

// The scheduler's profiles: one per variant, all in one kube-scheduler.
const (
	upstream = "default-scheduler" // DefaultPreemption
	ours     = "evictkit"          // EvictkitPreemption, default args
	strict   = "evictkit-strict"   // strictPDB
	evicting = "evictkit-evict"    // evictionAPI
)

const schedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
leaderElection:
  leaderElect: false
profiles:
- schedulerName: default-scheduler
- schedulerName: evictkit
  plugins: &ours
    multiPoint:
      enabled: [{name: EvictkitPreemption}]
      disabled: [{name: DefaultPreemption}]
- schedulerName: evictkit-strict
  plugins: *ours
  pluginConfig: [{name: EvictkitPreemption, args: {strictPDB: true}}]
- schedulerName: evictkit-evict
  plugins: *ours
  pluginConfig: [{name: EvictkitPreemption, args: {evictionAPI: true}}]
`

// patience bounds every wait; it only keeps a broken run from hanging.
const patience = 3 * time.Minute

var priorities = map[string]int32{"p10": 10, "p20": 20, "p50": 50, "p100": 100, "p900": 900, "p1000": 1000}

// startScheduler builds the scheduler program (cached by the go command)
// and runs it against cp with the four profiles.
func startScheduler(t *testing.T, cp *framework.ControlPlane) {
	t.Helper()
	bin, err := framework.BuildProgram(filepath.Join("..", "cmd"), "./kube-scheduler", "kube-scheduler")
	require.NoError(t, err)
	cfg := filepath.Join(cp.Dir, "scheduler.yaml")
	require.NoError(t, os.WriteFile(cfg, fmt.Appendf(nil, schedulerConfig, cp.Kubeconfig), 0o600))
	_, err = cp.Run("kube-scheduler", bin, "--config="+cfg, "--secure-port=0", "-v=2")
	require.NoError(t, err)
}

// world is one variant's copy of a scenario: its namespace, nodes (labelled
// so that only they are feasible for its pods) and the scheduler profile.
type world struct {
	c       kubernetes.Interface
	ns      string
	profile string
}

func (w world) node(t *testing.T, name string, milliCPU int64) {
	t.Helper()
	ctx := context.Background()
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: w.ns + "-" + name, Labels: map[string]string{"world": w.ns}}}
	n, err := w.c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	require.NoError(t, err)
	// Admission taints a new node not-ready until a kubelet reports; none
	// runs here.
	n.Spec.Taints = nil
	n, err = w.c.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
	require.NoError(t, err)
	n.Status = v1.NodeStatus{
		Allocatable: v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(milliCPU, resource.DecimalSI), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")},
		Capacity:    v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(milliCPU, resource.DecimalSI), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")},
		Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
	}
	_, err = w.c.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// pod creates a pod of priority class class asking milliCPU; on a node
// (bound and Running since started) when node is set, else pending for the
// world's scheduler.
func (w world) pod(t *testing.T, name, class string, milliCPU int64, node string, labels map[string]string) *v1.Pod {
	t.Helper()
	ctx := context.Background()
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns, Labels: labels},
		Spec: v1.PodSpec{
			SchedulerName:     w.profile,
			PriorityClassName: class,
			NodeSelector:      map[string]string{"world": w.ns},
			Containers: []v1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(milliCPU, resource.DecimalSI)},
			}}},
		},
	}
	if node != "" {
		p.Spec.NodeName = w.ns + "-" + node
	}
	p, err := w.c.CoreV1().Pods(w.ns).Create(ctx, p, metav1.CreateOptions{})
	require.NoError(t, err)
	if node != "" {
		// Running and Ready, as a kubelet would report it: the Eviction API
		// lets a pod that is not Ready go despite its budget when the budget
		// is otherwise healthy.
		p.Status.Phase = v1.PodRunning
		p.Status.StartTime = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		p.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
		p, err = w.c.CoreV1().Pods(w.ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
	return p
}

// nominee creates a pending pod of low priority that may not preempt and
// fits nowhere, nominated to node as an earlier preemption would have left
// it.
func (w world) nominee(t *testing.T, node string) {
	t.Helper()
	p := w.pod(t, "nominee", "p20-never", 3000, "", nil)
	patch := fmt.Appendf(nil, `{"status":{"nominatedNodeName":%q}}`, w.ns+"-"+node)
	_, err := w.c.CoreV1().Pods(w.ns).Patch(context.Background(), p.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	require.NoError(t, err)
}

// budget creates a PodDisruptionBudget over app=label that allows no
// disruption, with the status the disruption controller would write (no
// kube-controller-manager runs).
func (w world) budget(t *testing.T, label string) {
	t.Helper()
	ctx := context.Background()
	b := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: label, Namespace: w.ns},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: new(intstr.FromInt32(1)),
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": label}},
		},
	}
	b, err := w.c.PolicyV1().PodDisruptionBudgets(w.ns).Create(ctx, b, metav1.CreateOptions{})
	require.NoError(t, err)
	b.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: b.Generation, DisruptionsAllowed: 0, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1}
	_, err = w.c.PolicyV1().PodDisruptionBudgets(w.ns).UpdateStatus(ctx, b, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// outcome is what a variant did in a scenario, with the world's names
// (namespace prefix of nodes, pod UIDs) taken out so that variants compare.
type outcome struct {
	Nominated string   // the preemptor's nominatedNodeName
	Victims   []string // pods marked and deleted (or evicted)
	Writes    []string // changes to the world's pods other than the preemptor, in order
	Events    []string // events of the world, sorted
}

// recordWrites watches the world's pods and returns a function that lists
// the changes seen so far to pods other than exclude.
func (w world) recordWrites(t *testing.T, exclude string) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	list, err := w.c.CoreV1().Pods(w.ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	last := map[string]*v1.Pod{}
	for i := range list.Items {
		last[list.Items[i].Name] = &list.Items[i]
	}
	wi, err := w.c.CoreV1().Pods(w.ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	require.NoError(t, err)
	var mu sync.Mutex
	var seen []string
	go func() {
		for ev := range wi.ResultChan() {
			p, ok := ev.Object.(*v1.Pod)
			if !ok || p.Name == exclude || ev.Type == watch.Bookmark {
				continue
			}
			var changes []string
			if old := last[p.Name]; old != nil {
				changes = diff(old, p)
			} else {
				changes = []string{"created"}
			}
			last[p.Name] = p
			mu.Lock()
			for _, c := range changes {
				seen = append(seen, p.Name+": "+c)
			}
			mu.Unlock()
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// diff names what changed between two versions of a pod, in the terms the
// comparison needs.
func diff(old, cur *v1.Pod) []string {
	var out []string
	if old.Status.NominatedNodeName != cur.Status.NominatedNodeName {
		out = append(out, fmt.Sprintf("nominatedNodeName %q", strip(cur.Status.NominatedNodeName)))
	}
	if a, b := disruption(old), disruption(cur); a != b {
		out = append(out, "DisruptionTarget "+b)
	}
	if old.DeletionTimestamp == nil && cur.DeletionTimestamp != nil {
		out = append(out, "deleting")
	}
	return out
}

func disruption(p *v1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.DisruptionTarget {
			return string(c.Status) + " " + c.Reason + " " + c.Message
		}
	}
	return ""
}

// strip removes the world prefix from a node name.
func strip(node string) string {
	if i := strings.Index(node, "-n"); i >= 0 {
		return node[i+1:]
	}
	return node
}

// events returns the world's events, reason, regarding, related and note,
// with UIDs and node prefixes taken out.
func (w world) events(t *testing.T) []string {
	t.Helper()
	list, err := w.c.EventsV1().Events(w.ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	uids := map[string]string{}
	pods, err := w.c.CoreV1().Pods(w.ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	for _, p := range pods.Items {
		uids[string(p.UID)] = "<" + p.Name + ">"
	}
	var out []string
	var first *eventsv1.Event
	for i, e := range list.Items {
		switch {
		case e.Reason == "FailedScheduling" && e.Regarding.Name == "preemptor":
			if first == nil || e.EventTime.Before(&first.EventTime) {
				first = &list.Items[i]
			}
		case e.Reason == "FailedScheduling", e.Reason == "Scheduled":
			// Later attempts depend on timing; other pods' are not compared.
		default:
			out = append(out, w.normal(e, uids))
		}
	}
	if first != nil {
		out = append(out, w.normal(*first, uids))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (w world) normal(e eventsv1.Event, uids map[string]string) string {
	note := strings.ReplaceAll(e.Note, w.ns+"-", "")
	for uid, name := range uids {
		note = strings.ReplaceAll(note, uid, name)
	}
	related := ""
	if e.Related != nil {
		related = " related=" + e.Related.Name
	}
	return fmt.Sprintf("%s %s %s/%s%s: %s", e.Type, e.Reason, e.Regarding.Kind, e.Regarding.Name, related, note)
}

// waitFor polls cond every 200 ms up to patience.
func waitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		ok, err := cond()
		require.NoError(t, err)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (w world) get(t *testing.T, name string) *v1.Pod {
	t.Helper()
	p, err := w.c.CoreV1().Pods(w.ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(t, err)
	return p
}

// victims lists the world's pods that are being deleted.
func (w world) victims(t *testing.T) []string {
	t.Helper()
	pods, err := w.c.CoreV1().Pods(w.ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	var out []string
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			out = append(out, p.Name+" on "+strip(p.Spec.NodeName)+" ("+disruption(&p)+")")
		}
	}
	slices.Sort(out)
	return out
}

// hasEvent reports whether the world has an event with reason on pod.
func (w world) hasEvent(t *testing.T, reason, pod string) bool {
	t.Helper()
	list, err := w.c.EventsV1().Events(w.ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	for _, e := range list.Items {
		if e.Reason == reason && e.Regarding.Name == pod {
			return true
		}
	}
	return false
}

// scenario is one story, played once per variant in a world of its own.
type scenario struct {
	name string
	// variants are the profiles it runs under; the first is the reference.
	variants []string
	// setup builds the world; play creates the preemptor and waits for the
	// outcome; both run for every variant before any play starts, so that
	// every variant sees the same number of nodes.
	setup func(t *testing.T, w world)
	play  func(t *testing.T, w world) outcome
}

// preemptAndWait creates the preemptor and waits until it is nominated and
// wantVictims pods are being deleted.
func preemptAndWait(t *testing.T, w world, milliCPU int64, wantVictims int) outcome {
	writes := w.recordWrites(t, "preemptor")
	w.pod(t, "preemptor", "p1000", milliCPU, "", nil)
	waitFor(t, w.profile+": nomination and victims", func() (bool, error) {
		p := w.get(t, "preemptor")
		deleting := 0
		for _, c := range writes() {
			if strings.HasSuffix(c, ": deleting") {
				deleting++
			}
		}
		return p.Status.NominatedNodeName != "" && len(w.victims(t)) == wantVictims &&
			deleting == wantVictims && len(w.victimEvents(t)) == wantVictims, nil
	})
	return w.outcome(t, writes)
}

// outcome collects the world's outcome, with the profile's name (which the
// DisruptionTarget message carries) replaced.
func (w world) outcome(t *testing.T, writes func() []string) outcome {
	t.Helper()
	o := outcome{Nominated: strip(w.get(t, "preemptor").Status.NominatedNodeName), Victims: w.victims(t), Writes: writes(), Events: w.events(t)}
	for _, list := range [][]string{o.Victims, o.Writes, o.Events} {
		for i := range list {
			list[i] = strings.ReplaceAll(list[i], w.profile+":", "<scheduler>:")
		}
	}
	return o
}

func (w world) victimEvents(t *testing.T) []string {
	var out []string
	for _, e := range w.events(t) {
		if strings.Contains(e, " Preempted ") {
			out = append(out, e)
		}
	}
	return out
}

var scenarios = []scenario{
	{
		// Three nodes full; the lowest-priority victim is on n2, where a
		// lower-priority pod is also nominated: its nomination is cleared.
		name:     "lowest-priority-victim",
		variants: []string{upstream, ours},
		setup: func(t *testing.T, w world) {
			for _, n := range []string{"n1", "n2", "n3"} {
				w.node(t, n, 4000)
			}
			w.pod(t, "a1", "p100", 2000, "n1", nil)
			w.pod(t, "a2", "p100", 2000, "n1", nil)
			w.pod(t, "b1", "p10", 2000, "n2", nil)
			w.pod(t, "b2", "p50", 2000, "n2", nil)
			w.pod(t, "c1", "p900", 4000, "n3", nil)
			w.nominee(t, "n2")
		},
		play: func(t *testing.T, w world) outcome {
			return preemptAndWait(t, w, 2000, 1)
		},
	},
	{
		// Two candidates; the one on n1 would violate a budget: both pick n2.
		name:     "pdb-protected",
		variants: []string{upstream, ours, strict},
		setup: func(t *testing.T, w world) {
			w.node(t, "n1", 4000)
			w.node(t, "n2", 4000)
			w.budget(t, "guarded")
			w.pod(t, "g1", "p10", 4000, "n1", map[string]string{"app": "guarded"})
			w.pod(t, "h1", "p20", 4000, "n2", nil)
		},
		play: func(t *testing.T, w world) outcome {
			return preemptAndWait(t, w, 3000, 1)
		},
	},
	{
		// The preemptor fits no node even empty: no victim, no nomination.
		name:     "fits-nowhere",
		variants: []string{upstream, ours},
		setup: func(t *testing.T, w world) {
			w.node(t, "n1", 4000)
			w.node(t, "n2", 4000)
			w.pod(t, "a1", "p10", 2000, "n1", nil)
		},
		play: func(t *testing.T, w world) outcome {
			writes := w.recordWrites(t, "preemptor")
			w.pod(t, "preemptor", "p1000", 16000, "", nil)
			waitFor(t, w.profile+": FailedScheduling", func() (bool, error) { return w.hasEvent(t, "FailedScheduling", "preemptor"), nil })
			return w.outcome(t, writes)
		},
	},
}

// guarded is the world of the option scenarios: one full node whose only
// pod is covered by a PodDisruptionBudget that allows no disruption.
func guarded(t *testing.T, w world) {
	w.node(t, "n1", 4000)
	w.budget(t, "guarded")
	w.pod(t, "g1", "p10", 4000, "n1", map[string]string{"app": "guarded"})
}

// TestPreemption plays each scenario with DefaultPreemption and with
// EvictkitPreemption (and its options) on one kube-scheduler. The
// equivalence scenarios require the same outcome: node, victims, writes in
// order and events. The option scenarios show where the options differ from
// DefaultPreemption.
func TestPreemption(t *testing.T) {
	cp := framework.Start(t, framework.Options{})
	createPriorityClasses(t, cp.Client)

	// Every world is built before any preemptor exists, so that every
	// variant counts the same nodes in its messages.
	n := 0
	newWorld := func(profile string) world {
		w := world{c: cp.Client, ns: fmt.Sprintf("w%d", n), profile: profile}
		n++
		_, err := cp.Client.CoreV1().Namespaces().Create(context.Background(), &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.ns}}, metav1.CreateOptions{})
		require.NoError(t, err)
		return w
	}
	worlds := map[string]map[string]world{}
	for _, sc := range scenarios {
		worlds[sc.name] = map[string]world{}
		for _, profile := range sc.variants {
			w := newWorld(profile)
			sc.setup(t, w)
			worlds[sc.name][profile] = w
		}
	}
	options := map[string]world{}
	for _, name := range []string{"strict-upstream", "strict", "evict-refused", "evict-allowed"} {
		profile := map[string]string{"strict-upstream": upstream, "strict": strict, "evict-refused": evicting, "evict-allowed": evicting}[name]
		w := newWorld(profile)
		if name == "evict-allowed" {
			w.node(t, "n1", 4000)
			w.pod(t, "g1", "p10", 4000, "n1", nil)
		} else {
			guarded(t, w)
		}
		options[name] = w
	}
	startScheduler(t, cp)

	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			got := map[string]outcome{}
			for _, profile := range sc.variants {
				got[profile] = sc.play(t, worlds[sc.name][profile])
			}
			ref := got[sc.variants[0]]
			t.Logf("%s: %+v", sc.variants[0], ref)
			for _, profile := range sc.variants[1:] {
				assert.Equal(t, ref, got[profile], "%s against %s", profile, sc.variants[0])
			}
		})
	}

	t.Run("strict-pdb", func(t *testing.T) {
		// DefaultPreemption violates the budget; strictPDB leaves the
		// preemptor pending and touches nothing.
		up := preemptAndWait(t, options["strict-upstream"], 3000, 1)
		assert.Equal(t, "n1", up.Nominated)
		assert.Equal(t, []string{"g1 on n1 (True PreemptionByScheduler <scheduler>: preempting to accommodate a higher priority pod)"}, up.Victims)

		w := options["strict"]
		writes := w.recordWrites(t, "preemptor")
		w.pod(t, "preemptor", "p1000", 3000, "", nil)
		waitFor(t, "strict: FailedScheduling", func() (bool, error) { return w.hasEvent(t, "FailedScheduling", "preemptor"), nil })
		got := w.outcome(t, writes)
		assert.Empty(t, got.Nominated)
		assert.Empty(t, got.Victims)
		assert.Empty(t, got.Writes)
		require.Len(t, got.Events, 1)
		assert.Contains(t, got.Events[0], "preemption: 0/")
	})

	t.Run("eviction-api-refused", func(t *testing.T) {
		// The budget refuses the eviction: the victim stays, a Warning
		// event says so, and the preemptor is retried.
		w := options["evict-refused"]
		w.pod(t, "preemptor", "p1000", 3000, "", nil)
		waitFor(t, "PreemptionRefused", func() (bool, error) { return w.hasEvent(t, "PreemptionRefused", "preemptor"), nil })
		assert.Empty(t, w.victims(t))
		assert.NotNil(t, w.get(t, "g1"))
	})

	t.Run("eviction-api-allowed", func(t *testing.T) {
		// Without a budget the eviction goes through, and the victim carries
		// the scheduler's reason, as a deleted victim does.
		got := preemptAndWait(t, options["evict-allowed"], 3000, 1)
		waitFor(t, "the scheduler's reason", func() (bool, error) {
			v := options["evict-allowed"].victims(t)
			return len(v) == 1 && strings.Contains(v[0], "PreemptionByScheduler"), nil
		})
		assert.Equal(t, "n1", got.Nominated)
	})
}

func createPriorityClasses(t *testing.T, c kubernetes.Interface) {
	t.Helper()
	for name, value := range priorities {
		_, err := c.SchedulingV1().PriorityClasses().Create(context.Background(), &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	// The admission plugin takes preemptionPolicy from the class only.
	never := v1.PreemptNever
	_, err := c.SchedulingV1().PriorityClasses().Create(context.Background(), &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "p20-never"}, Value: 20, PreemptionPolicy: &never}, metav1.CreateOptions{})
	require.NoError(t, err)
}
