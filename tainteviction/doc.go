// Package tainteviction is the taint-eviction controller's core: pod and
// node events in, pod evictions out, no client and no clock.
//
//	c := tainteviction.New(lister, tainteviction.Options{})
//	informers call c.PodAdded / c.PodUpdated / c.PodDeleted and
//	c.NodeAdded / c.NodeUpdated / c.NodeDeleted with now (Tombstone for missed deletes);
//	res := c.Step(now) // res.Evictions due, res.Events, res.Next: call Step again then
//	for each eviction: record Marking, write DisruptedStatus, delete the pod,
//	then report c.Done(e), or c.Failed(now, e, err) for a retry as Options.Retry says
//
// It mirrors kube-controller-manager's pkg/controller/tainteviction
// (Kubernetes v1.37.2): the table of tainted nodes (taintedNodes), the
// handlers (PodUpdated, NodeUpdated, handlePodUpdate, handleNodeUpdate),
// processPodOnNode through [tolerations.NoExecuteDecision] and [Reconcile],
// the scheduled evictions of its timed worker queue (here a
// [timedqueue.Schedule], which has no goroutine), and what
// deletePodHandler, emitPodDeletionEvent and emitCancelPodDeletionEvent
// write: the DisruptionTarget condition ([DisruptedStatus]) and the
// TaintManagerEviction events ([Marking], [Cancelling]).
//
// # Guarantees
//
//   - The same evictions at the same times, and the same cancellations, as
//     upstream's controller given the same events at the same times
//     (conformance/ drives both with random scenarios).
//   - Synchronous, with no clock: every handler and [Controller.Step] takes
//     now; Step returns a [Result] value (the evictions due, the events to
//     record, the next time to call it). A run is exact and repeatable; an
//     adapter owns the clock, the goroutines, the API writes, the retries'
//     timing, the metrics and the logs.
//   - An eviction handed out by Step runs until it is reported
//     ([Controller.Done], [Controller.Failed], [Controller.Retry],
//     [Controller.Postpone]); meanwhile its pod gets no other eviction: one
//     decided then waits behind it.
//   - Deciding a pod allocates nothing; a scheduled eviction costs one
//     item of the [timedqueue.Schedule], which carries its metadata (UID,
//     node, cause); BENCHMARKS.md gives the bytes against upstream's.
//   - Not safe for concurrent use: an adapter calls it under one lock, so a
//     node's taints are recorded before its pods are decided, which
//     upstream gets from sharding its workers by node.
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
//     them, at the now it gives; upstream queues them and re-reads the
//     objects from its listers, handling node events before pod events of
//     the same worker.
//   - A new eviction of a pod waits for a running one to be reported;
//     upstream starts a goroutine per eviction and may run two for one pod.
//   - As upstream's fired evictions, which each start at once on a
//     goroutine of their own, an eviction handed out by Step is not
//     cancelled afterwards: an adapter whose workers are all busy runs it
//     when one is free, even if the taint went meanwhile (upstream would
//     have deleted the pod already), and records no Cancelling event for it.
//   - [Controller.Postpone] lets an adapter's policy put an eviction off
//     (and [Controller.Done] drop it); upstream has no such hook.
//   - Retries: upstream's deletion retries its API calls five times, 10 ms
//     apart, inside the running eviction, and then drops it. Here a failed
//     attempt is reported with [Controller.Failed] (the backoff of
//     [Options.Retry], off by default, from the now it is given) or
//     [Controller.Retry] (at a time the adapter picks): the eviction is
//     scheduled again, holds no worker while it waits and is cancelled
//     like any scheduled eviction (taint removed, toleration changed, pod
//     deleted). An error wrapping [ErrPermanent] ends the retries of an
//     eviction; Failed returns it, which upstream logs.
package tainteviction
