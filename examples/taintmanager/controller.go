package main

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/evictkit/eviction/tainteviction"
	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/tolerations"
)

// controller is the taint-eviction controller of kube-controller-manager
// (pkg/controller/tainteviction): package tainteviction's core, with the
// scenario's cluster as its pod lister, the scenario's fake clock as its
// time and the timeline as its log and event recorder. Upstream feeds pod
// and node events through work queues sharded by node; here every event is
// handled synchronously, in the order the scenario delivers it, and the
// core is stepped after each.
type controller struct {
	core    *tainteviction.Controller
	cluster *cluster
	clock   clock.PassiveClock
	log     *timeline
}

func newController(c *cluster, s *scenario) *controller {
	return &controller{
		core: tainteviction.New(tainteviction.PodListerFunc(func(node string) ([]*v1.Pod, error) {
			return c.podsOn(node), nil
		}), tainteviction.Options{Outcomes: true}),
		cluster: c,
		clock:   s.clock,
		log:     s.log,
	}
}

// settle steps the core at the clock's now until nothing is left to do:
// it prints what the core decided (with the events it records), then
// carries out the evictions due, as upstream's deletePodHandler would
// (Marking event, DisruptionTarget condition, delete): the pod is deleted,
// and the controller sees the deletion.
func (tc *controller) settle() {
	for {
		res := tc.core.Step(tc.clock.Now())
		for _, o := range res.Outcomes {
			tc.observe(o)
			if o.Cancelled {
				tc.log.event(tainteviction.Cancelling(o.Pod).Message)
			}
		}
		if len(res.Evictions) == 0 {
			return
		}
		for _, e := range res.Evictions {
			if e.Attempts == 0 {
				tc.log.event(tainteviction.Marking(e.Pod).Message)
			}
		}
		for _, e := range res.Evictions {
			pod := tc.cluster.pods[e.Pod]
			delete(tc.cluster.pods, e.Pod)
			tc.core.Done(e)
			tc.PodUpdated(pod, nil)
		}
	}
}

// PodUpdated is the pod informer's handler (oldPod is nil on add, newPod on
// delete).
func (tc *controller) PodUpdated(oldPod, newPod *v1.Pod) {
	if tainteviction.PodUpdateIgnored(oldPod, newPod) {
		tc.log.printf("pod %s: tolerations and node unchanged, ignored", key(newPod))
		return
	}
	tc.core.PodUpdated(tc.clock.Now(), oldPod, newPod)
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
	tc.check(tc.core.NodeUpdated(tc.clock.Now(), oldNode, newNode))
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
