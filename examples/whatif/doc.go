// Whatif answers "what would Kubernetes v1.37.2 evict if…?" on a cluster
// snapshot, using only the packages of github.com/evictkit/eviction. It is
// the demo of the README:
//
//	go run ./examples/whatif
//
// takes node worker-a2 of an embedded snapshot (12 nodes in 3 zones, 97 pods,
// 6 PodDisruptionBudgets) down and prints when the control plane marks it
// Unknown, taints it and evicts each of its pods, or why a pod stays.
//
// # Input
//
// -f FILE reads what
//
//	kubectl get nodes,pods,pdb -A -o yaml   (or -o json)
//
// prints (a v1 List), or YAML or JSON documents each holding a Node, a Pod,
// a PodDisruptionBudget or a List of them; "-f -" reads standard input.
// Without -f the embedded snapshot is used. The scenarios start at t0, the
// latest node heartbeat in the snapshot.
//
// The input is read as a stream and decoded once, straight into the typed
// objects: JSON as JSON, YAML one List item at a time; fields no scenario
// reads (managedFields, a node's images, a container's env and probes, …)
// are skipped. Every scenario is linear in the snapshot: a 10,000-node,
// 300,000-pod cluster takes little more than its decoding (see the whatif
// section of BENCHMARKS.md).
//
// # Scenarios
//
//   - node-down NODE...: the nodes stop heartbeating at t0. A
//     kube-controller-manager with default settings is replayed on a fake
//     clock ([nodelifecycle.Monitor]): the monitor pass every 5 s marks them
//     Unknown after the 50 s grace period (the other nodes renew their
//     Leases); each pass counts the zones and applies upstream's disruption
//     rules ([nodelifecycle.HandleDisruption]: a partially disrupted small
//     zone stops, all zones down stops everything); the zone queues (0.1
//     nodes/s, drained every 100 ms) hand out the unreachable:NoExecute
//     taints ([nodelifecycle.Monitor.Drain]); and the taint-eviction controller
//     decides each pod ([tolerations.NoExecuteDecision],
//     [tainteviction.Reconcile]). The replay skips the monitor passes that
//     would repeat the last one (until a silent node's grace period runs
//     out) and the tainting passes while every token bucket is empty: the
//     timeline is, byte for byte, the one of a pass every 5 s and 100 ms,
//     and a zone of thousands of nodes down costs a few passes over the
//     cluster, not two per node.
//     kube-controller-manager's flags --node-monitor-period,
//     --node-monitor-grace-period, --node-startup-grace-period and
//     --node-eviction-rate (taint takes them too) replay a cluster that does
//     not run those defaults.
//     With --pod-eviction-timeout D, the nodes also go down in
//     kube-controller-manager v1.26's legacy mode (--enable-taint-manager=false,
//     its 40 s grace period unless --node-monitor-grace-period says otherwise):
//     the Monitor writes no NoExecute taint, and the zone queues, at the same
//     rates, delete the pods of a node the pass saw Unknown once D has passed
//     since its last heartbeat ([legacy.Evictor], [legacy.DeletePods]):
//     tolerations play no part, DaemonSet pods (by their owner reference: a
//     snapshot holds no DaemonSets) and terminating pods stay. A second table
//     puts each pod's v1.26 deletion beside its eviction today.
//   - taint NODE KEY[=VALUE]:EFFECT: the taint is applied at t0 as kubectl
//     taint would ([taints.Parse], [taints.Apply]); the same controllers react,
//     including the node lifecycle controller removing taints it manages.
//   - pressure NODE --signal SIGNAL=AMOUNT... [--usage FILE], or pressure
//     NODE --summary FILE: the kubelet's default hard thresholds
//     ([thresholds.ParseConfig]) are evaluated on the observation
//     ([thresholds.Evaluator]); if one is met, the node's pods are ranked for
//     it ([ranking.ForSignal]) and the kubelet's eviction order printed,
//     critical pods marked as skipped ([ranking.Evictable]), with each
//     container's oom_score_adj ([ranking.OOMScoreAdjust]). --summary reads
//     the kubelet's stats summary ([statsummary.Decode]): the signals from
//     its node figures ([thresholds.MakeObservations]) and each listed pod's
//     usage; the output names the file as the source of both.
//   - preempt POD.yaml: the pod is evaluated as a pending preemptor over every
//     node ([preemption.NewNodeSnapshot], [preemption.Evaluate]) with the
//     snapshot's PodDisruptionBudgets; candidates, the chosen node, the
//     criterion that decided and the runner-up are printed. --config FILE
//     (a KubeSchedulerConfiguration: the profile of the pod's
//     schedulerName, its preemption plugin and that plugin's args) and the
//     flags --strict-pdb, --eviction-api, --min-candidate-nodes-percentage
//     and --min-candidate-nodes-absolute (which override the file) configure
//     it as the EvictkitPreemption plugin is configured, through
//     [preemption.ParseArgs]; with evictionAPI the output says which
//     evictions the API server would refuse.
//   - device-taint --driver D [--pool P [--device NAME]...]
//     [KEY[=VALUE][:EFFECT]] [--effect E]: a DeviceTaintRule created at t0
//     (its timeAdded) taints the devices: the pool's, the named ones (a
//     rule each) or, without --pool, the driver's. The taint defaults to
//     whatif.evictkit.dev/device-taint:NoExecute; effects NoExecute,
//     NoSchedule, None. Each pod that uses a device of the driver, or that
//     goes, is decided by the device-taint eviction controller
//     ([devicetaints.NewSnapshot], [devicetaints.Snapshot.Pod]): evicted at
//     once, when its tolerationSeconds (from the taint's timeAdded) run
//     out, or for a taint already in the snapshot; or it stays, because it
//     tolerates the taint forever, uses no tainted device, is not bound to
//     a node, or the effect evicts nothing (then with what NoExecute would
//     do). The claim, device and taint that decide are named. The
//     controller itself ([devicetaints.Controller]) is replayed on a fake
//     clock for the rules' EvictionInProgress status: what it writes and
//     when, which for effect None are the counts of what NoExecute would
//     evict. The snapshot is what kubectl get
//     nodes,pods,resourceslices,resourceclaims,devicetaintrules -A -o yaml
//     prints (resource.k8s.io/v1; DeviceTaintRules also v1beta2); without
//     -f, an embedded DRA cluster (3 nodes, 12 pods, 3 ResourceSlices of two
//     drivers, 9 claims, a device tainted in its slice and a rule of effect
//     None). The other scenarios skip resource.k8s.io objects.
//
// # Output
//
// An aligned table by default; -o json prints one JSON document. Every
// document has "scenario" and "input" (the snapshot's name).
//
// node-down and taint: "t0", "taint" (taint only), "model" (the assumptions
// in words), "config" (monitorPeriodSeconds, monitorGracePeriodSeconds,
// evictionRate, secondaryEvictionRate, largeClusterThreshold,
// unhealthyZoneThreshold), "nodes" (name, zone, unknownAt, noExecuteAt,
// pods, podsEvicted, lastEviction), "events" (at and afterSeconds, null for
// what never happens; kind; node, zone, pod; detail) and "summary" (lines of
// text). Event kinds: last-heartbeat, node-unknown, zone-state,
// all-zones-down, tainted, taint-removed, eviction-cancelled, evicted,
// stays, never-tainted, nothing-evicted. With --pod-eviction-timeout,
// "legacy126" too: model, podEvictionTimeoutSeconds,
// monitorGracePeriodSeconds and "pods" (pod, node, evictedAt and today: its
// fate today; deletedAt, null when kept, and kept: why).
//
// pressure: "node", "t0", "model", "usageSource", "observations" (signal,
// available, capacity), "thresholds" (threshold, met, observed), "reclaim"
// (threshold, signal, resource; null when no threshold is met),
// "rankedFor" (the signal whose ranking "pods" follows), "hypothetical"
// (true when nothing is met and the order is what would happen), "pods" in
// eviction order (pod, qos, priority, oomScoreAdj (container, oomScoreAdj),
// request, usage, usageFromRequests,
// evictable, skipReason, availableAfter, enough, needed), "message" (the
// first victim's eviction message) and "notes".
//
// device-taint: "t0", "taint", "rules" (name, driver, pool, device; null
// selects any), "model", "events" (at and afterSeconds, null for never;
// kind: rule-created, rule-status, evicted or stays; rule; pod, node,
// claim, device, taint; why: not-tolerated, toleration-ends or
// other-taint for evicted, tolerates, untainted, unbound, no-effect or
// not-counted for stays; condition (status, reason, message) for
// rule-status; ifNoExecute (afterSeconds, null for never) for no-effect;
// detail), "summary" and "notes".
//
// preempt: "t0", "model", "config" (when configured: source, plugin, args,
// evictionsRefused), "pod" (name, priority, prioritySource,
// preemptionPolicy, requests), "outcome" (fits, preempts, not-eligible or
// no-candidate), "message", "nodes" (name, fit, reasons, candidate, victims,
// pdbViolations, highestVictimPriority, victimPrioritySum,
// highestPriorityStart), "chosen", "criterion", "runnerUp" and "victims"
// (pod, priority, pdb).
//
// # Exit status
//
// 0 on success; 2 on bad input (an unknown scenario, flag or node, an
// unreadable file, a wrong kind, a bad taint spec or signal, a driver, pool
// or device the snapshot does not have), with one line
// "whatif: ..." on standard error naming the problem; 1 on any other
// failure.
package main
