// Package preemption decides, as kube-scheduler v1.37 does, which
// lower-priority pods a pending pod (the preemptor) should evict and on which
// node, honouring PodDisruptionBudgets — as pure functions over *v1.Pod,
// node snapshots and *policyv1.PodDisruptionBudget, without the scheduler.
//
//	pdbs, err := preemption.NewPDBs(budgets)            // parse the selectors once
//	node, err := preemption.NewNodeSnapshot(n, pods, nominated)
//	victims, ok := preemption.SelectVictims(pod, node, pdbs, now, preemption.Options{})
//	chosen, err := preemption.Preempt(pod, nodes, pdbs, now, preemption.Options{})
//	r, err := preemption.Evaluate(pod, nodes, pdbs, now, preemption.Options{}) // with the details
//	r, err := preemption.EvaluateSource(pod, src, pdbs, now, opts)           // snapshots on demand
//
// It mirrors the DefaultPreemption PostFilter plugin of k8s.io/kubernetes
// v1.37.2:
//
//   - pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go:
//     SelectVictimsOnNode, PodEligibleToPreemptOthers, calculateNumCandidates,
//     GetOffsetAndNumCandidates;
//   - pkg/scheduler/framework/preemption/preemption.go: Evaluator.Preempt,
//     evaluate, findCandidates, DryRunPreemption, SelectCandidate,
//     pickOneNodeForPreemption; util.go: FilterVictimsWithPDBViolation,
//     MoreImportantVictim, PodTerminatingByPreemption; executor.go:
//     getLowerPriorityNominatedPods;
//   - pkg/scheduler/framework/plugins/noderesources/fit.go: Fit.Filter,
//     fitsRequest, computePodResourceRequest, and
//     pkg/scheduler/framework/runtime/framework.go:
//     RunFilterPluginsWithNominatedPods, for the fit model;
//   - k8s.io/component-helpers resource/helpers.go: PodRequests, for the
//     request vectors, through package podresources.
//
// # Entry points
//
// [NewNodeSnapshot] captures a node, its pods and the pods nominated to it,
// computing every request vector once ([NewNodeSnapshotCharged] takes them
// from a caller that has them, such as kube-scheduler's cache); [NewPDBs] parses the
// PodDisruptionBudgets once for any number of calls. Every decision takes
// now, the time a pod without status.startTime is taken to have started:
// nothing here reads a clock. [SelectVictims] finds the victims on
// one node, [PickNode] chooses among candidates, and [Preempt] (or
// [Evaluate], which returns the details: candidate list, node statuses,
// nomination changes and the [Criterion] that decided) runs the whole
// decision over many nodes. [EvaluateSource] takes the nodes from a
// [NodeSource] instead, which prepares a node's snapshot only when the
// decision looks at it (and a [StatusSource] gives the prior statuses by
// index): with prior statuses given, the dry run visits about
// [Sampling.NumCandidates] of the potential nodes (10% of a large cluster by
// default), so the other snapshots are never needed. The caller carries
// out the result: mark and delete the victims, set the preemptor's
// nominatedNodeName, clear the nomination of [Result.ClearNominationOf].
//
// # Guarantees
//
//   - Same input, same output: every source of randomness or timing in
//     upstream is replaced by a stated rule (see below), and [Preempt]
//     returns the same result for any [Options.Workers].
//   - Inputs are never modified; the returned victims are the caller's pods.
//   - Victims always have a priority strictly lower than the preemptor's,
//     and after removing them the preemptor passes the fit check.
//   - The reprieve is upstream's greedy one: every victim, put back alone,
//     breaks the fit (when the fit check is monotone in the pods present).
//   - PodDisruptionBudget accounting is upstream's, quirks included: pods
//     without labels never violate, nil and empty selectors match nothing,
//     disruptedPods is matched by pod name, a pod counts once, budgets are
//     spent in importance order by every potential victim, so
//     [Victims.NumPDBViolations] can exceed the violations that happen.
//   - Request vectors are computed once per pod ([NewNodeSnapshot]),
//     selectors once per PodDisruptionBudget ([NewPDBs]), and within [Evaluate]
//     a node's victim search allocates only its result: sort keys are
//     computed once per search, hold no pointers, and no comparison
//     allocates. One node with P pods costs O(P log P + P·(L + b + R + F))
//     for L labels per pod, b budgets indexed under one of a pod's labels
//     or requiring none, R checked resources and F filters (upstream:
//     O(P² + P·B·S + P·F) for all B budgets of the pod's namespace,
//     re-parsing selectors of size S).
//
// # Fit model
//
// The built-in check is NodeResourcesFit: pod count, cpu, memory,
// ephemeral-storage and scalar resources (extended, hugepages-*,
// attachable-volumes-*, kubernetes.io/-prefixed), with upstream's
// Unschedulable versus UnschedulableAndUnresolvable split and
// [Options.IgnoredResources]. The preemptor is measured from its spec
// ([PodRequests]); pods on a node are charged as the scheduler cache charges
// them ([AssignedPodRequests]). Nominated pods of equal or higher priority
// take part in every check, in upstream's two passes. Other plugins plug in
// as [Filter] functions, which give the reason a node fails; nodes that
// preemption cannot fix are marked
// UnschedulableAndUnresolvable in [Options.PriorStatus].
//
// # Not covered
//
//   - Pod groups (GenericWorkload, beta and off by default in 1.37): every
//     pod is its own victim; the PodGroup/CompositePodGroup units, their
//     cross-node victims and the whole-group preemptor (PodGroupPostFilter)
//     are not implemented.
//   - Stateful filter hooks (PreFilterExtensions AddPod/RemovePod and
//     CycleState cloning): a [Filter] instead sees the current pods of the
//     node through [Remaining].
//   - DRA, DRA-backed extended resources, volume and topology filters,
//     in-place resize of a preemptor already on its node, scheduler
//     extenders other than through [Options.CandidateFilter], and the
//     actuation (API calls, async preemption).
//
// # Differences from upstream
//
//   - Offset: upstream draws a uniform random offset; [Options.Offset]
//     chooses it ([FixedOffset] pins it) and nil keeps the random draw.
//   - Parallel dry run: upstream cancels the run once enough candidates are
//     found, so nodes already in flight may still add candidates and the
//     outcome depends on timing. Here nodes are reduced in visit order and
//     the run stops exactly where parallelism 1 stops.
//   - Potential-node and candidate order: upstream follows map iteration
//     order (node statuses, victim maps), so the last pick criterion picks
//     an effectively random node. Here potential nodes keep the input order
//     and the candidates the dry-run order (non-violating first).
//   - Ties in victim importance: upstream sorts the potential victims, and
//     again the victims, with sort.Slice, which leaves the order of equally
//     important pods to Go's sort algorithm: an insertion sort (stable) up
//     to 12 elements, a pattern-defeating quicksort (not stable) beyond.
//     Here both sorts are stable: potential victims keep the order of the
//     node's pods in the snapshot (NodeInfo order upstream), and victims
//     the order they were found in, PDB-violating ones first, then the
//     others. Up to 12 potential victims this is exactly upstream's order
//     (with [Options.MoreImportant] too, whatever the comparator), except
//     among equally important pods without a start time (see below); beyond,
//     it is one of the orders a sort may produce, and since the reprieve is
//     greedy, which of two tied pods is reprieved may differ from upstream.
//   - Missing start times: upstream reads the clock at each use; here the
//     caller's now is used throughout. Equally important victims that all
//     lack a start time therefore tie here, where upstream orders them by
//     its clock readings (see [SelectVictims] for the exact difference).
//   - Insufficient scalar resources are reported sorted by name (upstream:
//     map order).
//   - [Options.Filters] run after the resource check. Upstream runs the
//     profile's filters in plugin order, some before NodeResourcesFit; the
//     order only changes which failure is reported first and how often
//     each filter is called.
//   - Workers default to GOMAXPROCS (upstream: parallelism 16); the result
//     does not depend on it.
//   - [Options.StrictPDB], off by default, is not in upstream: it refuses
//     candidates with PDB violations.
//   - Pods already on a node are charged max(spec, allocated, actual) as
//     upstream does, rather than the spec alone.
package preemption
