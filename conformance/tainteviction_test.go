package conformance_test

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/tainteviction"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/events"
	tecore "github.com/evictkit/eviction/tainteviction"
)

// teStep is one step of a taint-eviction scenario: an object change
// delivered to the controller as its informer would, or a clock step.
type teStep struct {
	kind  string // "pod" (create or update), "delete pod", "node" (create or update), "delete node", "sleep"
	name  string // pod or node name
	node  string // the pod's node ("" unbound)
	tols  []v1.Toleration
	label string // a pod label, to make updates that change nothing that matters
	taint []v1.Taint
	sleep time.Duration
}

func (s teStep) String() string {
	switch s.kind {
	case "pod":
		return fmt.Sprintf("pod %s on %q label %q tolerates %s", s.name, s.node, s.label, show(s.tols))
	case "node":
		return fmt.Sprintf("node %s taints %s", s.name, show(s.taint))
	case "sleep":
		return fmt.Sprintf("sleep %v", s.sleep)
	}
	return s.kind + " " + s.name
}

var (
	teNodes = []string{"n1", "n2", "n3"}
	tePods  = []string{"p1", "p2", "p3", "p4", "p5"}
	teKeys  = []string{"k1", "k2", "node.kubernetes.io/unreachable"}
)

// teTaints draws a node's taints from a small pool, so that taints are
// added, removed, changed and kept; TimeAdded takes one of two values, so
// that an update may change nothing but that.
func teTaints() *rapid.Generator[[]v1.Taint] {
	return rapid.Custom(func(t *rapid.T) []v1.Taint {
		var out []v1.Taint
		for i := range rapid.IntRange(0, 3).Draw(t, "n") {
			tn := v1.Taint{
				Key:    rapid.SampledFrom(teKeys).Draw(t, fmt.Sprintf("key%d", i)),
				Value:  rapid.SampledFrom([]string{"", "a"}).Draw(t, fmt.Sprintf("value%d", i)),
				Effect: rapid.SampledFrom([]v1.TaintEffect{v1.TaintEffectNoExecute, v1.TaintEffectNoExecute, v1.TaintEffectNoSchedule}).Draw(t, fmt.Sprintf("effect%d", i)),
			}
			if rapid.Bool().Draw(t, fmt.Sprintf("stamped%d", i)) {
				tn.TimeAdded = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			}
			out = append(out, tn)
		}
		return out
	})
}

// teTolerations draws a pod's tolerations: Exists or Equal on the pool's
// keys, or tolerate-everything, with short or no seconds.
func teTolerations() *rapid.Generator[[]v1.Toleration] {
	return rapid.Custom(func(t *rapid.T) []v1.Toleration {
		var out []v1.Toleration
		for i := range rapid.IntRange(0, 3).Draw(t, "n") {
			tol := v1.Toleration{
				Key:      rapid.SampledFrom(append([]string{""}, teKeys...)).Draw(t, fmt.Sprintf("key%d", i)),
				Operator: v1.TolerationOpExists,
				Effect:   rapid.SampledFrom([]v1.TaintEffect{"", v1.TaintEffectNoExecute}).Draw(t, fmt.Sprintf("effect%d", i)),
			}
			if tol.Key != "" && rapid.Bool().Draw(t, fmt.Sprintf("equal%d", i)) {
				tol.Operator, tol.Value = v1.TolerationOpEqual, "a"
			}
			if s := rapid.SampledFrom([]int64{-1, 0, 5, 30, 60, 120}).Draw(t, fmt.Sprintf("seconds%d", i)); s >= 0 {
				tol.TolerationSeconds = &s
			}
			out = append(out, tol)
		}
		return out
	})
}

func teScenario() *rapid.Generator[[]teStep] {
	return rapid.Custom(func(t *rapid.T) []teStep {
		var steps []teStep
		for i := range rapid.IntRange(1, 40).Draw(t, "steps") {
			l := func(s string) string { return fmt.Sprintf("%s%d", s, i) }
			switch k := rapid.IntRange(0, 9).Draw(t, l("kind")); {
			case k <= 2:
				steps = append(steps, teStep{kind: "pod", name: rapid.SampledFrom(tePods).Draw(t, l("pod")),
					node:  rapid.SampledFrom(append([]string{""}, teNodes...)).Draw(t, l("node")),
					tols:  teTolerations().Draw(t, l("tolerations")),
					label: rapid.SampledFrom([]string{"a", "b"}).Draw(t, l("label"))})
			case k == 3:
				steps = append(steps, teStep{kind: "delete pod", name: rapid.SampledFrom(tePods).Draw(t, l("pod"))})
			case k <= 6:
				steps = append(steps, teStep{kind: "node", name: rapid.SampledFrom(teNodes).Draw(t, l("node")), taint: teTaints().Draw(t, l("taints"))})
			case k == 7:
				steps = append(steps, teStep{kind: "delete node", name: rapid.SampledFrom(teNodes).Draw(t, l("node"))})
			default:
				d := rapid.SampledFrom([]time.Duration{0, time.Second, 5 * time.Second, 29 * time.Second, 30 * time.Second, time.Minute, 3 * time.Minute}).Draw(t, l("sleep"))
				steps = append(steps, teStep{kind: "sleep", sleep: d})
			}
		}
		return steps
	})
}

// teWorld is one side's cluster: the objects its informers would hold.
type teWorld struct {
	pods  map[string]*v1.Pod
	nodes map[string]*v1.Node
}

// apply turns a step into the object change and the old and new objects
// of the informer event (nil, nil: nothing to deliver). A pod may not move
// between nodes once bound (the API server refuses it); such a step, and a
// step on an absent object, is delivered as nothing.
func (w *teWorld) apply(s teStep) (oldObj, newObj any) {
	switch s.kind {
	case "pod":
		old := w.pods[s.name]
		if old != nil && old.Spec.NodeName != "" && old.Spec.NodeName != s.node {
			return nil, nil
		}
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: s.name, UID: types.UID("uid-" + s.name), Labels: map[string]string{"l": s.label}},
			Spec: v1.PodSpec{NodeName: s.node, Tolerations: s.tols}}
		w.pods[s.name] = p
		if old == nil {
			return nil, p
		}
		return old, p
	case "delete pod":
		if old := w.pods[s.name]; old != nil {
			delete(w.pods, s.name)
			return old, nil
		}
	case "node":
		old := w.nodes[s.name]
		n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: s.name}, Spec: v1.NodeSpec{Taints: s.taint}}
		w.nodes[s.name] = n
		if old == nil {
			return nil, n
		}
		return old, n
	case "delete node":
		if old := w.nodes[s.name]; old != nil {
			delete(w.nodes, s.name)
			return old, nil
		}
	}
	return nil, nil
}

func (w *teWorld) podsOn(node string) []*v1.Pod {
	var out []*v1.Pod
	for _, name := range slices.Sorted(maps.Keys(w.pods)) {
		if p := w.pods[name]; p.Spec.NodeName == node {
			out = append(out, p)
		}
	}
	return out
}

// teTrace records what a controller did, stamped with the time since the
// scenario began; sorted, since calls due at the same instant run in any
// order upstream.
type teTrace struct {
	mu      sync.Mutex
	start   time.Time
	entries []string
}

func (r *teTrace) add(at time.Time, what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries = append(r.entries, fmt.Sprintf("%8v %s", at.Sub(r.start), what))
}

func (r *teTrace) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.entries
	r.entries = nil
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(a, b) })
	return out
}

// upRecorder is an EventRecorder that stamps each event with the (bubble's)
// clock.
type upRecorder struct{ trace *teTrace }

func (r upRecorder) Event(obj runtime.Object, eventtype, reason, message string) {
	ref := obj.(*v1.ObjectReference)
	r.trace.add(time.Now(), fmt.Sprintf("event %s %s %s/%s %s: %s", eventtype, ref.Kind, ref.Namespace, ref.Name, reason, message))
}

func (r upRecorder) Eventf(obj runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.Event(obj, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

func (r upRecorder) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventtype, reason, messageFmt string, args ...any) {
	r.Eventf(obj, eventtype, reason, messageFmt, args...)
}

// runUpstreamTaintEviction plays steps against upstream's Controller in a
// testing/synctest bubble: a fake clientset, informer caches fed by the
// test, and the bubble's fake time for the controller's time.Now and its
// timers. It returns the trace after each step.
func runUpstreamTaintEviction(t *testing.T, steps []teStep) [][]string {
	var out [][]string
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
		client := fake.NewClientset()
		factory := informers.NewSharedInformerFactory(client, 0)
		podIndexer := factory.Core().V1().Pods().Informer().GetIndexer()
		nodeIndexer := factory.Core().V1().Nodes().Informer().GetIndexer()
		tc, err := tainteviction.New(ctx, client, factory.Core().V1().Pods(), factory.Core().V1().Nodes(), "taint-eviction-controller")
		if err != nil {
			t.Fatal(err)
		}
		trace := &teTrace{start: time.Now()}
		w := &teWorld{pods: map[string]*v1.Pod{}, nodes: map[string]*v1.Node{}}
		tainteviction.PrepareForTest(tc, func(node string) ([]*v1.Pod, error) {
			var pods []*v1.Pod
			for _, o := range podIndexer.List() {
				if p := o.(*v1.Pod); p.Spec.NodeName == node {
					pods = append(pods, p)
				}
			}
			return pods, nil
		}, upRecorder{trace})
		var delMu sync.Mutex
		var deleted []string
		client.PrependReactor("delete", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
			name := a.(clienttesting.DeleteAction).GetName()
			trace.add(time.Now(), "delete ns/"+name)
			delMu.Lock()
			deleted = append(deleted, name)
			delMu.Unlock()
			return false, nil, nil
		})
		done := make(chan struct{})
		go func() { tc.Run(ctx); close(done) }()
		synctest.Wait()
		pods := client.Tracker()
		podGVR := v1.SchemeGroupVersion.WithResource("pods")
		// feedBack delivers the deletions the controller made, as the pod
		// informer would.
		feedBack := func() {
			delMu.Lock()
			names := deleted
			deleted = nil
			delMu.Unlock()
			for _, name := range names {
				if p := w.pods[name]; p != nil {
					delete(w.pods, name)
					_ = podIndexer.Delete(p)
					tc.PodUpdated(p, nil)
					synctest.Wait()
				}
			}
		}
		for _, s := range steps {
			if s.kind == "sleep" {
				time.Sleep(s.sleep)
				synctest.Wait()
			} else {
				switch o, n := w.apply(s); {
				case n != nil && s.kind == "pod":
					p := n.(*v1.Pod)
					_ = podIndexer.Add(p)
					if o == nil {
						_ = pods.Add(p)
					} else {
						_ = pods.Update(podGVR, p, p.Namespace)
					}
					tc.PodUpdated(asPod(o), p)
				case o != nil && s.kind == "delete pod":
					p := o.(*v1.Pod)
					_ = podIndexer.Delete(p)
					_ = pods.Delete(podGVR, p.Namespace, p.Name)
					tc.PodUpdated(p, nil)
				case n != nil:
					_ = nodeIndexer.Add(n)
					tc.NodeUpdated(asNode(o), n.(*v1.Node))
				case o != nil:
					_ = nodeIndexer.Delete(o)
					tc.NodeUpdated(o.(*v1.Node), nil)
				}
				synctest.Wait()
			}
			feedBack()
			out = append(out, trace.take())
		}
		cancel()
		<-done
	})
	return out
}

func asPod(o any) *v1.Pod {
	p, _ := o.(*v1.Pod)
	return p
}

func asNode(o any) *v1.Node {
	n, _ := o.(*v1.Node)
	return n
}

// runOurTaintEviction plays steps against the library's core, with the
// time kept here, and returns the trace after each step. Step runs after
// every event, and a sleep steps to each Result.Next within it; the
// evictions it hands out are recorded at their fire time (with Marking
// before them, as upstream's worker records it) and reported done, and the
// pods are deleted from the world at the end of the step, as upstream's
// deletePodHandler deletes them through the API and its informer then
// delivers the deletions.
func runOurTaintEviction(t tester, steps []teStep) [][]string {
	now := gen.Epoch
	trace := &teTrace{start: now}
	w := &teWorld{pods: map[string]*v1.Pod{}, nodes: map[string]*v1.Node{}}
	c := tecore.New(tecore.PodListerFunc(func(node string) ([]*v1.Pod, error) { return w.podsOn(node), nil }), tecore.Options{})
	event := func(e events.Event) {
		trace.add(now, fmt.Sprintf("event %s %s %s/%s %s: %s", e.Type, e.Object.Kind, e.Object.Namespace, e.Object.Name, e.Reason, e.Message))
	}
	var deleted []string
	var next time.Time
	step := func() {
		for {
			res := c.Step(now)
			for _, e := range res.Events {
				event(e)
			}
			next = res.Next
			if len(res.Evictions) == 0 {
				return
			}
			for _, e := range res.Evictions {
				if e.Attempts == 0 {
					event(tecore.Marking(e.Pod))
				}
				trace.add(e.FireAt, "delete "+e.Pod.String())
				deleted = append(deleted, e.Pod.Name)
				c.Done(e)
			}
		}
	}
	var out [][]string
	for _, s := range steps {
		if s.kind == "sleep" {
			end := now.Add(s.sleep)
			for !next.IsZero() && !next.After(end) {
				now = next
				step()
			}
			now = end
		} else {
			switch o, n := w.apply(s); {
			case s.kind == "pod" && n != nil:
				c.PodUpdated(now, asPod(o), n.(*v1.Pod))
			case s.kind == "delete pod" && o != nil:
				teCheck(t, c.PodDeleted(now, tecore.Tombstone{Key: "ns/" + s.name, Obj: o}))
			case n != nil:
				teCheck(t, c.NodeUpdated(now, asNode(o), n.(*v1.Node)))
			case o != nil:
				teCheck(t, c.NodeDeleted(now, o))
			}
		}
		step()
		names := deleted
		deleted = nil
		for _, name := range names {
			if p := w.pods[name]; p != nil {
				delete(w.pods, name)
				teCheck(t, c.PodDeleted(now, p))
			}
		}
		step()
		out = append(out, trace.take())
	}
	return out
}

func teCheck(t tester, err error) {
	if err != nil {
		t.Fatal(err)
	}
}

// TestTaintEvictionController plays random scenarios (pods created,
// updated and deleted, bound late, tolerations changed; node taints added,
// removed and changed, TimeAdded alone changed; nodes deleted; clock
// steps) against upstream's taint-eviction Controller and the library's
// core, and requires, after every step, the same deletions, the same
// "Marking for deletion" and "Cancelling deletion" events, at the same
// times.
func TestTaintEvictionController(t *testing.T) {
	cases := 0
	kinds := map[string]int{}
	rapid.Check(t, func(rt *rapid.T) {
		steps := teScenario().Draw(rt, "steps")
		up := runUpstreamTaintEviction(t, steps)
		ours := runOurTaintEviction(rt, steps)
		for i := range steps {
			for _, e := range up[i] {
				switch {
				case strings.Contains(e, "Marking"):
					kinds["marking"]++
				case strings.Contains(e, "Cancelling"):
					kinds["cancelling"]++
				default:
					kinds["deletions"]++
				}
			}
			if !slices.Equal(up[i], ours[i]) {
				var hist []string
				for j := range i + 1 {
					hist = append(hist, fmt.Sprintf("%2d %v", j, steps[j]))
				}
				rt.Fatalf("after step %d:\nupstream %q\nevictkit %q\nsteps:\n%s", i, up[i], ours[i], strings.Join(hist, "\n"))
			}
		}
		cases++
	})
	t.Logf("%d scenarios compared; upstream's deletions and events in them: %v", cases, kinds)
}
