// Package tainteviction is the taint-eviction controller's core: pod and
// node events in, pod evictions out, no client.
//
//	c := tainteviction.New(lister, evict, tainteviction.Options{Events: record})
//	informers call c.PodAdded / c.PodUpdated / c.PodDeleted and
//	c.NodeAdded / c.NodeUpdated / c.NodeDeleted (Tombstone for missed deletes);
//	evict(ctx, e) marks e.Pod with DisruptedStatus and deletes it;
//	go c.Run(ctx) // returns after ctx ends, once running evictions returned
//
// It mirrors kube-controller-manager's pkg/controller/tainteviction
// (Kubernetes v1.37.2): the table of tainted nodes (taintedNodes), the
// handlers (PodUpdated, NodeUpdated, handlePodUpdate, handleNodeUpdate),
// processPodOnNode through [tolerations.NoExecuteDecision] and [Reconcile],
// the timed worker queue ([timedqueue.Queue]), and what deletePodHandler,
// emitPodDeletionEvent and emitCancelPodDeletionEvent write: the
// DisruptionTarget condition ([DisruptedStatus]) and the
// TaintManagerEviction events ([Marking], [Cancelling]).
//
// # Guarantees
//
//   - The same evictions at the same times, and the same cancellations, as
//     upstream's controller given the same events (conformance/ drives both
//     with random scenarios).
//   - Handlers are safe for concurrent use and run to completion under one
//     lock, so a node's taints are recorded before its pods are decided,
//     which upstream gets from sharding its workers by node. The evict
//     function runs on the queue's workers, never under the lock, and never
//     twice at once for one pod.
//   - Time comes from [Options.Clock]: a fake clock and [Controller.Idle]
//     make a run exact and repeatable.
//   - Deciding a pod allocates nothing; a scheduled eviction costs one
//     queue item, which carries its metadata (UID, node, cause): about 136
//     bytes, against upstream's 453. A node event decides all its pods in
//     one [timedqueue.Batch].
//
// # Rules a reader tends to get wrong
//
// A pod that tolerates its node's NoExecute taints for a while is evicted
// that long after the controller sees the taint (TimeAdded plays no part).
// A later change of its tolerations to another finite time keeps the
// eviction already scheduled; only "not tolerated" (evict now), "tolerated
// forever" and "no NoExecute taint left" replace or cancel it (see
// [Reconcile]). A deleted node's scheduled evictions still run.
//
// # Differences from upstream
//
//   - Events are handled synchronously, in the order the caller delivers
//     them; upstream queues them and re-reads the objects from its listers,
//     handling node events before pod events of the same worker.
//   - Evictions run on a bounded pool ([Options.Workers]) and a new eviction
//     of a pod waits for a running one; upstream starts a goroutine per
//     eviction and may run two for one pod.
//   - [Options.Policy] may veto or postpone an eviction; off by default.
//   - Retries: upstream's deletion retries its API calls five times, 10 ms
//     apart, inside the running eviction, and then drops it. Here
//     [Options.Retry] (off by default) puts a failed eviction back on the
//     queue, due after a backoff on the injected clock: a retry waiting
//     holds no worker and is cancelled like any scheduled eviction (taint
//     removed, toleration changed, pod deleted). An evict function stops
//     the retries of an eviction by wrapping [ErrPermanent].
//     [Options.OnError] gets the final error, which upstream logs.
package tainteviction
