package e2e

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// event is one change the API server stored, as the trace saw it: a taint
// added or removed, a node's Ready status, a pod marked not ready, given the
// DisruptionTarget condition or deleted, or an Event the node lifecycle or
// taint eviction controller recorded (its first occurrence: repeats only
// raise its count).
type event struct {
	at   time.Time
	what string
}

// trace watches nodes and pods and records their changes, for comparing two
// runs of a scenario.
type trace struct {
	mu     sync.Mutex
	events []event
}

func (c *cluster) startTrace(t *testing.T) *trace {
	tr := &trace{}
	f := informers.NewSharedInformerFactory(c.client, 0)
	_, _ = f.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { tr.node(nil, obj.(*v1.Node)) },
		UpdateFunc: func(old, obj any) { tr.node(old.(*v1.Node), obj.(*v1.Node)) },
	})
	_, _ = f.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { tr.pod(nil, obj.(*v1.Pod)) },
		UpdateFunc: func(old, obj any) { tr.pod(old.(*v1.Pod), obj.(*v1.Pod)) },
	})
	_, _ = f.Core().V1().Events().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { tr.recorded(obj.(*v1.Event)) },
	})
	ctx, cancel := context.WithCancel(c.ctx)
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
	})
	return tr
}

func (tr *trace) add(what string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.events = append(tr.events, event{at: time.Now(), what: what})
}

func taintSet(n *v1.Node) []string {
	if n == nil {
		return nil
	}
	var s []string
	for _, t := range n.Spec.Taints {
		s = append(s, t.Key+":"+string(t.Effect))
	}
	return s
}

func readyOf(n *v1.Node) v1.ConditionStatus {
	if n == nil {
		return ""
	}
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status
		}
	}
	return ""
}

func (tr *trace) node(old, cur *v1.Node) {
	was, is := taintSet(old), taintSet(cur)
	for _, k := range is {
		if !slices.Contains(was, k) {
			tr.add("node " + cur.Name + " +" + k)
		}
	}
	for _, k := range was {
		if !slices.Contains(is, k) {
			tr.add("node " + cur.Name + " -" + k)
		}
	}
	if r := readyOf(cur); r != readyOf(old) && r != "" {
		tr.add("node " + cur.Name + " Ready=" + string(r))
	}
}

// tracedSources are the components whose Events the trace records:
// kube-controller-manager's node lifecycle and taint eviction controllers,
// and ours, which record under the same names.
var tracedSources = map[string]bool{"node-controller": true, "taint-eviction-controller": true}

func (tr *trace) recorded(e *v1.Event) {
	if !tracedSources[e.Source.Component] {
		return
	}
	obj := e.InvolvedObject.Name
	if e.InvolvedObject.Namespace != "" {
		obj = e.InvolvedObject.Namespace + "/" + obj
	}
	tr.add(fmt.Sprintf("event %s %s %s: %s %s %q", e.Source.Component, e.InvolvedObject.Kind, obj, e.Type, e.Reason, e.Message))
}

func (tr *trace) pod(old, cur *v1.Pod) {
	name := "pod " + cur.Namespace + "/" + cur.Name
	cond := func(p *v1.Pod, ct v1.PodConditionType) v1.ConditionStatus {
		if p == nil {
			return ""
		}
		if c := podCondition(p, ct); c != nil {
			return c.Status
		}
		return ""
	}
	if r := cond(cur, v1.PodReady); r == v1.ConditionFalse && cond(old, v1.PodReady) == v1.ConditionTrue {
		tr.add(name + " Ready=False")
	}
	if d := cond(cur, v1.DisruptionTarget); d != "" && cond(old, v1.DisruptionTarget) == "" {
		tr.add(name + " DisruptionTarget=" + string(d))
	}
	if cur.DeletionTimestamp != nil && (old == nil || old.DeletionTimestamp == nil) {
		tr.add(name + " deleted")
	}
}

// since returns the events after start whose subject contains one of the
// words, with times relative to start.
func (tr *trace) since(start time.Time, words ...string) []event {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []event
	for _, e := range tr.events {
		if e.at.Before(start) {
			continue
		}
		for _, w := range words {
			if strings.Contains(e.what, w) {
				out = append(out, event{at: time.Time{}.Add(e.at.Sub(start)), what: e.what})
				break
			}
		}
	}
	return out
}

func offset(e event) time.Duration { return e.at.Sub(time.Time{}) }

func formatTrace(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "  %6.2fs %s\n", offset(e).Seconds(), e.what)
	}
	return b.String()
}

// compareTraces reports how two runs of one scenario differ: an event in
// one but not the other, the same event more than tol apart, or two events
// more than tol apart in opposite orders. It returns the largest time
// difference between matched events.
func compareTraces(want, got []event, tol time.Duration) (problems []string, maxDiff time.Duration) {
	// The k-th occurrence of an event in one run matches the k-th in the other.
	type key struct {
		what string
		n    int
	}
	index := func(evs []event) map[key]time.Duration {
		m := map[key]time.Duration{}
		seen := map[string]int{}
		for _, e := range evs {
			m[key{e.what, seen[e.what]}] = offset(e)
			seen[e.what]++
		}
		return m
	}
	w, g := index(want), index(got)
	var keys []key
	for k := range w {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return w[keys[i]] < w[keys[j]] })
	for _, k := range keys {
		gt, ok := g[k]
		if !ok {
			problems = append(problems, fmt.Sprintf("missing %q (at %.2fs in the reference run)", k.what, w[k].Seconds()))
			continue
		}
		d := gt - w[k]
		if d < 0 {
			d = -d
		}
		maxDiff = max(maxDiff, d)
		if d > tol {
			problems = append(problems, fmt.Sprintf("%q at %.2fs, reference run %.2fs", k.what, gt.Seconds(), w[k].Seconds()))
		}
	}
	for k, gt := range g {
		if _, ok := w[k]; !ok {
			problems = append(problems, fmt.Sprintf("extra %q at %.2fs", k.what, gt.Seconds()))
		}
	}
	for i, a := range keys {
		for _, b := range keys[i+1:] {
			ga, oka := g[a]
			gb, okb := g[b]
			if oka && okb && w[b]-w[a] > tol && ga > gb {
				problems = append(problems, fmt.Sprintf("%q came after %q", a.what, b.what))
			}
		}
	}
	sort.Strings(problems)
	return problems, maxDiff
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }
