// Package preemptionplugin is a kube-scheduler PostFilter plugin that
// preempts as DefaultPreemption v1.37.2 does, with its decision taken by the
// library's [preemption] package, and two options upstream lacks.
//
// Register it in a scheduler built with k8s.io/kubernetes' app package and
// enable it in place of DefaultPreemption:
//
//	command := app.NewSchedulerCommand(app.WithPlugin(preemptionplugin.Name, preemptionplugin.New))
//
//	profiles:
//	- schedulerName: default-scheduler
//	  plugins:
//	    multiPoint:
//	      enabled:  [{name: EvictkitPreemption}]
//	      disabled: [{name: DefaultPreemption}]
//
// This package depends on k8s.io/kube-scheduler's framework interfaces and
// client-go only, not on k8s.io/kubernetes.
//
// # What it does
//
// For a pod that failed its scheduling cycle, [Plugin.PostFilter] reads the
// latest copy of the pod, the nodes and their pods from the cycle's snapshot,
// the pods nominated to each node, every PodDisruptionBudget and the status
// each node got from the Filter plugins, and hands them to
// [preemption.Evaluate]: eligibility (preemptionPolicy, victims of an
// earlier preemption still terminating on the nominated node), potential
// nodes (those Unschedulable, not UnschedulableAndUnresolvable), candidate
// sampling ([Args]), victims per node with PDB-aware reprieve, scheduler
// extenders that support preemption, and the node pick. Then it does what
// DefaultPreemption does with asynchronous preemption (the default):
//
//   - returns the chosen node as the preemptor's nominatedNodeName;
//   - in the background, clears the nominatedNodeName of the pods nominated
//     to that node with a lower priority, then preempts every victim but
//     the last in parallel, then the last one: a victim waiting at Permit or
//     in PreBind is sent back in memory, any other gets the DisruptionTarget
//     condition (reason PreemptionByScheduler) and is deleted; each
//     preempted victim gets a "Preempted" event ("Preempted by pod <uid> on
//     node <node>");
//   - [Plugin.PreEnqueue] keeps the preemptor out of the queue until the
//     preemption of its last victim has begun; a failed API call sends it
//     back to the active queue.
//
// When no node can host the pod even after preemption, the status is
// Unschedulable with the scheduler's "0/N nodes are available: …" message and
// the nomination is cleared; when the pod may not preempt now it is
// Unschedulable and the nomination is kept.
//
// # Options (off by default)
//
//   - [Args.StrictPDB]: a node whose victims would violate a
//     PodDisruptionBudget is never chosen. When every candidate would, the
//     preemptor stays pending (Unschedulable, nomination cleared) where
//     DefaultPreemption would violate the budget.
//   - [Args.EvictionAPI]: victims are evicted through the pods/eviction
//     subresource instead of deleted, so that the API server checks the
//     budgets again when the eviction happens (and the pod's graceful
//     termination is honoured as with a delete). After a successful eviction
//     the victim's DisruptionTarget condition is set to reason
//     PreemptionByScheduler, replacing the API server's
//     EvictionByEvictionAPI, so that the preemptor's later attempts see its
//     victims as terminating by preemption.
//
// Fallback when an eviction is refused (429 TooManyRequests, a budget does
// not allow it now): the victim is left running, never deleted instead; a
// Warning event "PreemptionRefused" is recorded on the preemptor; as with
// any failed preemption call the remaining victims are not preempted (those
// preempted in parallel before stay preempted) and the preemptor is sent back
// to the active queue, so that its next attempt decides again with the
// budgets as they are then (and the queue's backoff). A victim that is
// already gone (404) counts as preempted; other errors fail as a delete
// would.
//
// # Metrics
//
// This module cannot record in kube-scheduler's metrics, which live in
// k8s.io/kubernetes: [Options.Metrics] receives what DefaultPreemption
// records there, at the same moments ([Metrics]), and the scheduler binary
// (the cmd module's preemptionmetrics package) records it under upstream's
// names: scheduler_preemption_attempts_total, scheduler_preemption_victims,
// scheduler_preemption_pdb_violations_total,
// scheduler_preemption_evaluation_duration_seconds,
// scheduler_preemption_execution_duration_seconds and
// scheduler_preemption_goroutines_duration_seconds /
// scheduler_preemption_goroutines_execution_total.
//
// # Fit model
//
// The resource check (NodeResourcesFit) is computed by the preemption
// package. The profile's other Filter plugins are run too, through the
// framework, on the node as the victim search leaves it (with the PreFilter
// extensions' AddPod and RemovePod), whenever they could change the answer:
// when the preemptor has host ports, required pod (anti-)affinity, hard
// topology spread constraints, volumes other than configMap, secret,
// downwardAPI, projected and emptyDir, or resource claims; when some pod in
// the cluster has required anti-affinity; and on any node whose failure was
// reported by a plugin other than NodeResourcesFit. A node whose failure
// came from NodeResourcesFit for a preemptor without such constraints is
// decided by the resource check alone; an out-of-tree Filter plugin that
// runs after NodeResourcesFit and depends on the pods of a node is not seen
// there.
//
// # Differences from DefaultPreemption
//
// Those of the [preemption] package (deterministic order where upstream
// follows map iteration or timing, stable victim sorts); pod groups
// (GenericWorkload, off by default) are not supported. The preemption is
// always carried out in the background, as upstream's with
// SchedulerAsyncPreemption (on by default). The dry run's goroutines are
// the preemption package's own, so scheduler_goroutines does not count
// them as it counts DefaultPreemption's. A node's snapshot is prepared only when the decision visits the
// node (about minCandidateNodesPercentage of the potential nodes), from
// what the scheduler's NodeInfo already charges each pod, and kept between
// attempts by NodeInfo generation, so that unchanged nodes cost nothing to
// prepare again.
package preemptionplugin
