package main

import (
	"context"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/tainteviction"
	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/tolerations"
)

// controller is the taint-eviction controller of kube-controller-manager
// (pkg/controller/tainteviction): package tainteviction's core, with the
// scenario's cluster as its pod lister and the timeline as its log and
// event recorder. Upstream feeds pod and node events through work queues
// sharded by node; here every event is handled synchronously, in the order
// the scenario delivers it.
type controller struct {
	core *tainteviction.Controller
	log  *timeline

	// The core's worker appends here (the "Marking for deletion" events
	// and the evictions it starts); the driver prints the events and
	// carries out the evictions once the core is idle, so the timeline
	// stays in order and is written by one goroutine only.
	mu      sync.Mutex
	marked  []string
	evicted []types.NamespacedName
}

func newController(c *cluster, s *scenario) *controller {
	tc := &controller{log: s.log}
	// One worker and a fake clock: evictions run one at a time, in
	// (fire time, insertion) order, only when the scenario steps the clock.
	tc.core = tainteviction.New(tainteviction.PodListerFunc(func(node string) ([]*v1.Pod, error) {
		return c.podsOn(node), nil
	}), tc.evict, tainteviction.Options{
		Clock:   s.clock,
		Workers: 1,
		Events:  tc.event,
		Observe: tc.observe,
	})
	return tc
}

// evict is upstream's deletePodHandler: it would mark the pod with the
// DisruptionTarget condition and delete it. The driver does that.
func (tc *controller) evict(_ context.Context, e tainteviction.Eviction) error {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.evicted = append(tc.evicted, e.Pod)
	return nil
}

// event records an event of the core. "Cancelling deletion" comes from the
// handler being called and is printed at once; "Marking for deletion" comes
// from the core's worker and waits for the driver (takeMarked).
func (tc *controller) event(e tainteviction.Event) {
	pod := types.NamespacedName{Namespace: e.Object.Namespace, Name: e.Object.Name}
	if e != tainteviction.Marking(pod) {
		tc.log.event(e.Message)
		return
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.marked = append(tc.marked, e.Message)
}

// takeMarked returns the "Marking for deletion" messages recorded since the
// last call.
func (tc *controller) takeMarked() []string {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	out := tc.marked
	tc.marked = nil
	return out
}

// takeEvicted returns the evictions carried out since the last call.
func (tc *controller) takeEvicted() []types.NamespacedName {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	out := tc.evicted
	tc.evicted = nil
	return out
}

// PodUpdated is the pod informer's handler (oldPod is nil on add, newPod on
// delete).
func (tc *controller) PodUpdated(oldPod, newPod *v1.Pod) {
	if tainteviction.PodUpdateIgnored(oldPod, newPod) {
		tc.log.printf("pod %s: tolerations and node unchanged, ignored", key(newPod))
		return
	}
	tc.core.PodUpdated(oldPod, newPod)
}

// NodeUpdated is the node informer's handler (oldNode is nil on add,
// newNode on delete). Only the NoExecute taints matter.
func (tc *controller) NodeUpdated(oldNode, newNode *v1.Node) {
	if tainteviction.NodeUpdateIgnored(oldNode, newNode) {
		tc.log.printf("node %s: NoExecute taints unchanged, ignored", newNode.Name)
		return
	}
	if newNode != nil {
		noExec := taints.OnlyNoExecute(newNode.Spec.Taints)
		if _, had := tc.core.NoExecuteTaints(newNode.Name); had || len(noExec) > 0 {
			tc.log.printf("node %s: NoExecute taints now [%s]", newNode.Name, taints.Specs(noExec))
		}
	}
	// A deleted node is forgotten, but the evictions already scheduled for
	// its pods are not cancelled: they run (upstream does the same).
	tc.check(tc.core.NodeUpdated(oldNode, newNode))
}

func (tc *controller) check(err error) {
	if err != nil && tc.log.err == nil {
		tc.log.err = err
	}
}

// observe prints what the core did for one pod. The subtle rule lives in
// tainteviction.Reconcile: an eviction scheduled earlier is kept as it is
// when the pod is still tolerated for a finite time, even if that time
// grew or shrank. Only "untolerated" (evict now), "tolerated forever" and
// "no NoExecute taint" replace it.
func (tc *controller) observe(o tainteviction.Outcome) {
	if !o.Decided {
		tc.log.printf("  %s: cancelled", o.Pod)
		return
	}
	var outcome string
	switch {
	case o.Added && o.Action.FireAt.After(o.At):
		outcome = "scheduled for " + clockTime(o.Action.FireAt)
	case o.Added && o.Cancelled:
		outcome = "evicting now instead of at " + clockTime(o.Before.FireAt)
	case o.Added:
		outcome = "evicting now"
	case o.Cancelled:
		outcome = "cancelled"
	case o.Before != nil && o.Before.Running:
		outcome = "already being evicted"
	case o.Before != nil && !o.Action.Cancel:
		outcome = "kept, still due " + clockTime(o.Before.FireAt)
	default:
		outcome = "nothing scheduled"
	}
	why := ""
	if o.Decision.Kind == tolerations.EvictNow {
		why = " (" + taints.Format(o.Taint) + " not tolerated)"
	}
	tc.log.printf("  %s: %v%s → %s", o.Pod, o.Decision, why, outcome)
}

func key(p *v1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}
