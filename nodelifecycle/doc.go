// Package nodelifecycle decides what kube-controller-manager's node lifecycle controller
// decides, as pure functions over *v1.Node, *coordinationv1.Lease and time.Time: whether a
// node is still alive, which NoSchedule and NoExecute taints it must carry, how disrupted its
// zone is and how fast nodes may be tainted there, and — in the legacy mode that v1.26 was the
// last to offer — when a failed node's pods are deleted.
//
// It mirrors k8s.io/kubernetes v1.37.2 pkg/controller/nodelifecycle/node_lifecycle_controller.go
// (tryUpdateNodeHealth, monitorNodeHealth, doNoScheduleTaintingPass, processTaintBaseEviction,
// doNoExecuteTaintingPass, markNodeAsReachable, ComputeZoneState, handleDisruption,
// setLimiterInZone, ReducedQPSFunc, HealthyQPSFunc), pkg/controller/util/node/controller_utils.go
// (MarkPodsNotReady), k8s.io/component-helpers node/topology GetZoneKey, and for the legacy
// mode the same files at v1.26.15 (processNoTaintBaseEviction, evictPods, cancelPodEviction,
// doEvictionPass, DeletePods). The controller's loops, informers, API writes and rate-limited
// queues stay with the caller; package timedqueue provides the queue.
//
// Guarantees:
//   - No function modifies its arguments or reads a clock; time comes in as now.
//   - Results never alias the caller's nodes, pods or conditions, except [PodDeletion.Pod]
//     (the pod as given) and a [Probe], which may share its Ready and Lease with the Probe it
//     came from.
//   - Judgements are deterministic and monotone in now: a node judged later, with the same
//     inputs, is never healthier.
//   - The controller's NoExecute writes never leave a node with both the not-ready and the
//     unreachable NoExecute taint.
//   - A zone's state depends on its counts of ready and not-ready nodes only.
//   - No package-level state, no feature-gate registry: [Config] carries every setting,
//     including the NodeControllerLeaseCircuitBreaker gate.
//
// # Health
//
// Every --node-monitor-period (5 s) upstream judges each node: [Evaluate] takes the node, its
// cached Lease and the [Probe] saved by the previous judgement, and returns a [Health]: the
// [Verdict], the Ready condition before and after, the status to write (Ready, MemoryPressure,
// DiskPressure and PIDPressure turned Unknown once the grace period is over) and the Probe to
// save. With the lease circuit breaker on, an expired node first yields [NeedsLeaseCheck]:
// fetch the live Lease and call [EvaluateWithLiveLease]. [LeaseCacheBehind] and
// [NewerResourceVersion] are the controller-wide half of the breaker. When the controller
// itself turns a Ready node not ready ([Health.BecameNotReady]) it marks the node's pods not
// ready ([MarkPodNotReady]); so does a pod bound later to a not-ready node ([PodBindingChanged],
// [PodBoundToNode]).
//
// # Taints
//
// [NoScheduleTaints] keeps the NoSchedule taints in line with the node's conditions and
// spec.unschedulable. [NoExecuteAction] says what happens to the not-ready and unreachable
// NoExecute taints in a pass: an immediate swap, queueing in the zone's rate-limited queue, or
// removal ([MarkReachable]); [TaintQueued] is the queued work when the zone's token comes, and
// [NoExecuteTaintChanges] the change to the set the node ends up with. [Swap.Apply] applies a change the way the
// API server stores it. Taints come from package taints.
//
// # Zones
//
// Nodes are grouped by [ZoneKey] and counted with [ZoneCounts] (nodes labelled
// [LabelExcludeDisruption] are left out). [ComputeZoneState] classifies a zone as Normal,
// PartialDisruption or FullDisruption; [ZoneRate] gives its eviction rate; [HandleDisruption]
// is one pass of the cluster-wide transition, including the all-zones-down mode in which every
// rate is 0 and every NoExecute taint is removed.
//
// # Legacy mode
//
// With --enable-taint-manager=false (v1.26 and before) nodes are not tainted NoExecute; the
// controller deletes a failed node's pods itself once Ready has been False (counted from the
// observed transition) or Unknown (counted from the last sign of life) for longer than
// --pod-eviction-timeout: [LegacyPodEviction], the per-node [EvictionState] machine and
// [PlanPodDeletion], which spares DaemonSet pods as [IsDaemonSetPod] recognises them.
//
// # What if a node goes silent
//
// [SilentNode] computes, for a node whose last heartbeat reached the API server at a given
// time, the monitor pass that marks it Unknown on a controller [Schedule], the NoExecute
// taint it is queued for and, in the legacy mode, when its pods become due.
//
// # Differences from upstream
//
//   - Zones not counted in a pass are all dropped by [HandleDisruption]. Upstream drops them
//     during a map walk that stops at the first zone not fully disrupted, so, depending on map
//     order, some may survive a pass with an empty state (and no rate change).
//   - [ResetProbe] of a node without a saved probe creates one with both times now; upstream
//     dereferences nil there (a node first seen in a pass whose lease cache was stale, when the
//     same pass leaves the all-zones-down mode) and crashes.
//   - Times are arguments: [Swap.Apply] stamps TimeAdded and [MarkPodNotReady] stamps
//     LastTransitionTime with now, where upstream reads the wall clock.
//   - The live Lease GET of the circuit breaker is the caller's: [Evaluate] returns
//     [NeedsLeaseCheck] and [EvaluateWithLiveLease] finishes; upstream calls the API inside the
//     judgement (a GET error other than NotFound skips the node, which the caller does).
//   - API writes are returned as values (the status to write, a [Swap], a [PodDeletion] plan)
//     instead of being performed; retries and error aggregation stay with the caller, as the
//     field docs describe.
//   - Which Ready condition drives the NoExecute and legacy decisions is the caller's choice:
//     [Health.Current] reproduces v1.37, [Health.Observed] v1.26.
//   - Nil nodes, pods and DaemonSets are tolerated where upstream would panic.
//   - [ZoneRate] returns rates as numbers; the token bucket and its SwapLimiter quirks belong
//     to package timedqueue.
package nodelifecycle
