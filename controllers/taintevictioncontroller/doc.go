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
// node through the spec.nodeName index); the core decides, schedules and calls
// back when an eviction is due; the controller then writes what upstream
// writes: the DisruptionTarget condition (reason DeletionByTaintManager),
// patched onto the pod's status with the pod's UID in the patch, then the
// delete; the TaintManagerEviction events through an EventRecorder; the
// metrics taint_eviction_controller_pod_deletions_total and
// taint_eviction_controller_pod_deletion_duration_seconds ([NewMetrics]) and
// the queue's workqueue metrics. Config.Policy is the core's hook for an
// embedder to veto or postpone one eviction with knowledge of the workload.
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
//   - Retries: after upstream's five attempts 10 ms apart, upstream drops the
//     eviction; here it is tried again with backoff (100 ms doubling to 5 s)
//     until it succeeds, the pod is gone or the controller stops, so an API
//     server outage loses no eviction. A conflict (409) on the status patch
//     or the delete is retried too: the next attempt's read tells a pod
//     replaced under the name (another UID, left alone) from a conflict
//     that passed.
//   - Latency metric: upstream observes time.Since(fireAt) multiplied by a
//     second, a number of nanoseconds times 10⁹, so every deletion lands in
//     the +Inf bucket; here the observation is in seconds.
package taintevictioncontroller
