// Package taintevictioncontroller runs the library's taint-eviction core
// (package tainteviction) against an API server: a drop-in for
// kube-controller-manager's taint-eviction-controller (KEP-3902 lets a
// cluster switch that one off with --controllers=*,-taint-eviction-controller).
//
//	f := informers.NewSharedInformerFactory(client, 0)
//	c, err := taintevictioncontroller.New(taintevictioncontroller.Config{
//		Client: client, Pods: f.Core().V1().Pods(), Nodes: f.Core().V1().Nodes(),
//	})
//	f.Start(ctx.Done())
//	err = c.Run(ctx) // until ctx ends
//
// The shared informers feed the core's pod and node handlers (pods found by
// node through the spec.nodeName index) under one lock, with the clock's
// now; after each, and when the core's Result.Next comes (one timer), the
// controller calls the core's Step and hands the evictions due to a bounded
// pool of workers (a timedqueue.Queue keyed by pod: never two attempts for
// one pod at once), which report each attempt back to the core. The
// controller writes what upstream writes: the DisruptionTarget condition
// (reason DeletionByTaintManager), patched onto the pod's status with the
// pod's UID in the patch, then the delete; the TaintManagerEviction events
// through an EventRecorder; the metrics
// taint_eviction_controller_pod_deletions_total and
// taint_eviction_controller_pod_deletion_duration_seconds ([NewMetrics]) and
// the workers' workqueue metrics (depth: evictions due and waiting for a
// worker; retries: failed attempts scheduled again). Config.Policy is the
// hook for an embedder to veto or postpone one eviction with knowledge of
// the workload.
//
// # Guarantees
//
//   - Nothing happens before Run, and nothing scheduled survives it: a
//     controller started later (the next leader) recomputes every eviction
//     from its informers.
//   - Only the pod the eviction was decided for is deleted: its UID is a
//     precondition of the status patch and of the delete.
//
// # Differences from upstream
//
//   - UID precondition: upstream deletes by name, so a pod re-created under
//     the same name between the decision and the delete (a StatefulSet pod)
//     is deleted in its place. Here a pod with another UID is left alone, and
//     the delete carries the UID as a precondition.
//   - Gone pods: a pod already deleted counts as done; upstream reports an
//     error after retrying its GET five times.
//   - Retries: upstream tries a deletion five times, 10 ms apart, inside
//     the running eviction, then drops it. Here each attempt is one call
//     of a worker, and a failed attempt is reported to the core
//     (tainteviction.Controller.Failed), which schedules the eviction
//     again after a backoff from the clock's now (10 ms doubling to 5 s;
//     tainteviction.Options.Retry): a waiting retry holds no worker, so pods whose deletes keep failing
//     never keep other pods from their eviction, and it is cancelled like
//     any scheduled eviction, so a pod whose NoExecute taint is removed
//     (or that comes to tolerate it) during an API outage is not deleted
//     when the API server comes back (an attempt already under way when
//     the taint goes still completes, as upstream's does). A transient failure (5xx, 429, 408,
//     a conflict, a timeout, a failed connection) is retried until the
//     pod is gone, the eviction is cancelled or the controller stops, so
//     an outage loses no eviction where upstream drops it after five
//     attempts. A refusal for good (any other 4xx: 403 from an admission
//     webhook, 400, 422) is abandoned after upstream's five attempts, as
//     upstream drops it, and reported: an error log line, the counter
//     taint_eviction_controller_pod_deletions_abandoned_total and a
//     Warning event (reason TaintManagerEvictionFailed) on the pod, none
//     of which upstream has. A conflict (409) is retried: the next
//     attempt's read tells a pod replaced under the name (another UID,
//     left alone) from a conflict that passed. The Marking event is
//     recorded before the first attempt only.
//   - Latency metric: upstream observes time.Since(fireAt) multiplied by a
//     second, a number of nanoseconds times 10⁹, so every deletion lands in
//     the +Inf bucket; here the observation is in seconds.
package taintevictioncontroller
