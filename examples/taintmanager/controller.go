package main

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/timedqueue"
	"github.com/evictkit/eviction/tolerations"
)

// controller is the taint-eviction controller of kube-controller-manager
// (pkg/controller/tainteviction) reduced to its decisions. Upstream feeds pod
// and node events through two work queues sharded by node; here every event is
// handled synchronously, in the order the scenario delivers it.
type controller struct {
	cluster *cluster
	clock   clock.Clock
	log     *timeline
	opts    tolerations.Options

	// queue holds one scheduled eviction per pod: upstream's TimedWorkerQueue.
	queue *timedqueue.Queue[types.NamespacedName]
	// tainted records the NoExecute taints of every node that has some:
	// upstream's taintedNodes. A pod on a node missing here is left alone.
	tainted map[string][]v1.Taint

	// The queue's worker appends here; the driver reports and carries out
	// the evictions once the queue is idle, so the timeline stays in order.
	mu      sync.Mutex
	evicted []types.NamespacedName
}

func newController(c *cluster, clk clock.Clock, log *timeline) *controller {
	tc := &controller{cluster: c, clock: clk, log: log, tainted: map[string][]v1.Taint{}}
	// One worker and a fake clock: evictions run one at a time, in
	// (fire time, insertion) order, only when the scenario steps the clock.
	tc.queue = timedqueue.New(tc.evict, timedqueue.Options[types.NamespacedName]{Clock: clk, Workers: 1})
	return tc
}

// evict is the queue's work function: upstream's deletePodHandler, which
// marks the pod with a DisruptionTarget condition and deletes it.
func (tc *controller) evict(_ context.Context, pod types.NamespacedName, _ time.Time) error {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.evicted = append(tc.evicted, pod)
	return nil
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
// delete). An update that changes neither the tolerations (order-sensitive,
// nil equal to empty) nor the node cannot change the decision: dropped.
func (tc *controller) PodUpdated(oldPod, newPod *v1.Pod) {
	if oldPod != nil && newPod != nil && oldPod.Spec.NodeName == newPod.Spec.NodeName &&
		slices.EqualFunc(oldPod.Spec.Tolerations, newPod.Spec.Tolerations, tolerationEqual) {
		tc.log.printf("pod %s: tolerations and node unchanged, ignored", key(newPod))
		return
	}
	p := cmp.Or(newPod, oldPod)
	tc.handlePod(key(p), p.Spec.NodeName)
}

// handlePod re-reads the pod from the cache, as upstream's handlePodUpdate does.
func (tc *controller) handlePod(k types.NamespacedName, nodeName string) {
	pod, ok := tc.cluster.pods[k]
	if !ok {
		tc.cancel(k) // deleted: forget its eviction
		return
	}
	if pod.Spec.NodeName == "" || pod.Spec.NodeName != nodeName {
		return // not bound, or the event is stale
	}
	noExec, ok := tc.tainted[nodeName]
	if !ok {
		return // no NoExecute taint on its node: nothing to cancel either
	}
	tc.processPodOnNode(k, pod.Spec.Tolerations, noExec, tc.clock.Now())
}

// NodeUpdated is the node informer's handler (oldNode is nil on add, newNode
// on delete). Only the NoExecute taints matter; an update that leaves them
// equal, order and TimeAdded included, is dropped.
func (tc *controller) NodeUpdated(oldNode, newNode *v1.Node) {
	if oldNode != nil && newNode != nil {
		before, after := tolerations.NoExecuteTaints(oldNode.Spec.Taints), tolerations.NoExecuteTaints(newNode.Spec.Taints)
		if slices.EqualFunc(before, after, taintEqual) {
			tc.log.printf("node %s: NoExecute taints unchanged, ignored", newNode.Name)
			return
		}
	}
	name := cmp.Or(newNode, oldNode).Name
	node, ok := tc.cluster.nodes[name]
	if !ok {
		// A deleted node is forgotten, but the evictions already scheduled
		// for its pods are not cancelled: they run (upstream does the same).
		delete(tc.tainted, name)
		return
	}
	noExec := tolerations.NoExecuteTaints(node.Spec.Taints)
	if _, had := tc.tainted[name]; had || len(noExec) > 0 {
		tc.log.printf("node %s: NoExecute taints now [%s]", name, taints.Specs(noExec))
	}
	if len(noExec) == 0 {
		delete(tc.tainted, name)
	} else {
		tc.tainted[name] = noExec
	}
	pods := tc.cluster.podsOn(name)
	if len(noExec) == 0 {
		for _, p := range pods {
			tc.cancel(key(p))
		}
		return
	}
	now := tc.clock.Now() // one "now" for every pod on the node
	for _, p := range pods {
		tc.processPodOnNode(key(p), p.Spec.Tolerations, noExec, now)
	}
}

// processPodOnNode decides for one pod and reconciles the decision with the
// eviction already queued, exactly as upstream's processPodOnNode does.
func (tc *controller) processPodOnNode(k types.NamespacedName, tols []v1.Toleration, noExec []v1.Taint, now time.Time) {
	d := tolerations.NoExecuteDecision(noExec, tols, tc.opts)
	var existing *tolerations.Scheduled
	if it, ok := tc.queue.Get(k); ok {
		existing = &tolerations.Scheduled{CreatedAt: it.CreatedAt, FireAt: it.FireAt, Running: it.State == timedqueue.Running}
	}
	// The subtle rule lives in Reconcile: an eviction scheduled earlier is
	// kept as it is when the pod is still tolerated for a finite time, even
	// if that time grew or shrank. Only "untolerated" (evict now), "tolerated
	// forever" and "no NoExecute taint" replace it.
	a := tolerations.Reconcile(d, existing, now)
	cancelled, added := tolerations.ApplyAction(tc.queue, k, a)

	var outcome string
	switch {
	case added && a.FireAt.After(now):
		outcome = "scheduled for " + clockTime(a.FireAt)
	case added && cancelled:
		outcome = "evicting now instead of at " + clockTime(existing.FireAt)
	case added:
		outcome = "evicting now"
	case cancelled:
		outcome = "cancelled"
	case existing != nil && existing.Running:
		outcome = "already being evicted"
	case existing != nil && !a.Cancel:
		outcome = "kept, still due " + clockTime(existing.FireAt)
	default:
		outcome = "nothing scheduled"
	}
	why := ""
	if d.Kind == tolerations.EvictNow {
		t, _ := tolerations.FindUntolerated(noExec, tols, nil, tc.opts)
		why = " (" + taints.Format(t) + " not tolerated)"
	}
	tc.log.printf("  %s: %v%s → %s", k, d, why, outcome)
	if cancelled {
		tc.log.event("Cancelling deletion of Pod " + k.String())
	}
}

// cancel drops a pod's scheduled eviction, with upstream's event when there
// was one to drop.
func (tc *controller) cancel(k types.NamespacedName) {
	if tc.queue.Cancel(k) {
		tc.log.printf("  %s: cancelled", k)
		tc.log.event("Cancelling deletion of Pod " + k.String())
	}
}

func key(p *v1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}

func tolerationEqual(a, b v1.Toleration) bool { return tolerations.Equal(&a, &b) }

func taintEqual(a, b v1.Taint) bool { return taints.Equal(&a, &b) }
