// Package nodelifecycle decides what kube-controller-manager's node lifecycle controller
// decides: whether a node is still alive, which NoSchedule and NoExecute taints it must carry,
// how disrupted its zone is and how fast nodes may be tainted there. [Monitor] runs the
// controller's monitor pass over caller-supplied caches; it makes no API call itself, but hands
// each one to the caller as a value ([Call]) and takes the answer:
//
//	m := nodelifecycle.NewMonitor(nodelifecycle.Config{})       // v1.37 defaults
//	in := nodelifecycle.PassInput{Nodes: nodes, Lease: lease, Pods: pods} // the caches
//	res, err := m.Pass(now, in).Do(ctx, api)                    // every 5 s
//	events.Record(recorder, res.Events...)                      // RegisteredNode, NodeNotReady, ... in upstream's order
//	writes, err := m.Drain(now, nodeFromCache).Do(ctx, api)     // every DrainPeriod (100 ms): the zone queues
//	add, remove := nodelifecycle.NoScheduleTaints(node)         // on every node add or update
//	bound, err := m.PodBound(now, pod).Do(ctx, api)             // a pod newly bound to a node; record bound.Events
//
// Run.Do makes the calls through an [API] (a clientset's, or nil: every call succeeds); a
// caller that makes them its own way loops over [Run.Next] and [Run.Reply].
//
// The pieces of a pass are pure functions over *v1.Node, *coordinationv1.Lease and time.Time
// ([Evaluate], [NoExecuteAction], [HandleDisruption], …) for callers that run their own loop.
//
// It mirrors k8s.io/kubernetes v1.37.2 pkg/controller/nodelifecycle/node_lifecycle_controller.go
// (monitorNodeHealth, tryUpdateNodeHealth, doNoScheduleTaintingPass, processTaintBaseEviction,
// doNoExecuteTaintingPass, markNodeAsReachable, processPod, ComputeZoneState,
// handleDisruption, setLimiterInZone, ReducedQPSFunc, HealthyQPSFunc),
// pkg/controller/util/node/controller_utils.go (MarkPodsNotReady) and k8s.io/component-helpers
// node/topology GetZoneKey. The zone queues are package timedqueue's RateLimited. The legacy
// pod-eviction mode of v1.26 (--enable-taint-manager=false) is package
// nodelifecycle/legacy.
//
// Guarantees:
//   - No function or method modifies its arguments or reads a clock; time comes in as now.
//   - Results never alias the caller's pods or conditions; a [Probe] may share its Ready and
//     Lease with the Probe it came from, and [NodePass.Node] is the node as given when
//     nothing was written to it.
//   - Judgements are deterministic and monotone in now: a node judged later, with the same
//     inputs, is never healthier.
//   - The controller's NoExecute writes never leave a node with both the not-ready and the
//     unreachable NoExecute taint.
//   - A zone's state depends on its counts of ready and not-ready nodes only.
//   - No package-level state, no feature-gate registry: [Config] carries every setting,
//     including the NodeControllerLeaseCircuitBreaker gate; its zero value is v1.37's
//     defaults.
//   - A [Monitor] pass is one walk over the nodes: O(nodes + pods of the nodes that turn not
//     ready), one lock per call, no copy of a node that is not written.
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
// [NoExecuteTaintChanges] the change to the set the node ends up with. [Swap.Apply] applies a
// change the way the API server stores it. Taints come from package taints.
//
// # Zones
//
// Nodes are grouped by [ZoneKey] and counted with [ZoneCounts] (nodes labelled
// [LabelExcludeDisruption] are left out). [ComputeZoneState] classifies a zone as Normal,
// PartialDisruption or FullDisruption; [ZoneRate] gives its eviction rate; [HandleDisruption]
// is one pass of the cluster-wide transition, including the all-zones-down mode in which every
// rate is 0 and every NoExecute taint is removed.
//
// # Monitor
//
// [Monitor] owns what upstream keeps between passes: the nodes seen, the [Probe] per node
// (upstream nodeHealthMap), the zone states, one rate-limited queue per zone with its rate,
// the circuit breaker's recorded resourceVersion and the nodes whose pods must be marked not
// ready again. It reads no clock and makes no call: [Monitor.Pass], [Monitor.Drain] and
// [Monitor.PodBound] each return a [Run], which hands out the API calls upstream would make, in
// its order, one at a time ([Run.Next]), takes each answer ([Run.Reply]) before deciding what
// comes next, and ends with a result ([Run.Result]): the writes made, the events to record.
// Every failed call is retried the way upstream retries it: a status write up to
// [StatusAttempts] times in the pass on the node read again, a queued taint at the next drain,
// pod marking at the next pass. [Run.Do] drives a run through an [API]; with a nil API every
// call succeeds and the results list what to apply. [Monitor.Queues] says when each zone's
// queue can next hand out a node, so that a caller may sleep instead of draining every
// [DrainPeriod].
//
// # Flags
//
// [Flags] binds kube-controller-manager's node lifecycle flags (--node-monitor-period,
// --node-eviction-rate, …) to a flag.FlagSet with their names, defaults and help texts, and
// [Flags.Config] checks them and turns them into a [Config]: the one definition that the
// node-lifecycle-controller program and the whatif simulator share.
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
//   - API calls are values ([Call]): the pure functions return the writes (the status to
//     write, a [Swap]), and a [Monitor]'s [Run] hands out every call, reads included, for the
//     caller to make. The lease cache's resourceVersion is read at each node's turn
//     ([PassInput.LeaseCacheRV]), as upstream reads its store's.
//   - Which Ready condition drives the NoExecute decision is the caller's choice of the pure
//     functions: [Health.Current] reproduces v1.37 (what [Monitor] does), [Health.Observed]
//     v1.26.
//   - A pass processes nodes one after another in the order given; upstream runs 8 at once,
//     so the order in which nodes of one pass enter a zone queue (and, with equal process
//     times, get their token) is the caller's list order instead of a race. Among equal
//     process times the zone queue is FIFO (package timedqueue); upstream's heap is not.
//   - A pass lists the pods of a node only when it marks them not ready; upstream lists them
//     for every node with a Ready condition and, when listing fails (which an informer's index
//     does not), skips the node's NoExecute action too. Here a failed listing only postpones
//     the marking to the next pass.
//   - A status write is tried [StatusAttempts] times; upstream polls for 100 ms every 20 ms
//     (5 or 6 attempts, by timing).
//   - [Monitor] writes the removal of both NoExecute taints as one [API.SwapTaints] call;
//     upstream removes them one after the other (two patches).
//   - A status write that turned a Ready node not ready but whose answer was lost (the
//     server applied it, the call failed) still marks the node's pods not ready
//     ([NodePass.TurnedNotReady]): the node read again shows the change. Upstream judges
//     the node read again as already not ready, sees no transition, and never marks them.
//   - Nil nodes and pods are tolerated where upstream would panic.
//   - [ZoneRate] returns rates as numbers; the token bucket and its SwapLimiter quirks belong
//     to package timedqueue.
package nodelifecycle
