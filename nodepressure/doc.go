// Package nodepressure is the kubelet's eviction manager as a library step:
// one call per monitoring cycle takes the node's stats summary and its
// running pods and returns, as a value, everything the eviction manager
// decides in that cycle.
//
//	ts, _ := thresholds.ParseConfig(thresholds.Config{})       // the kubelet's flags
//	m, _ := nodepressure.NewManager(nodepressure.Config{Thresholds: ts, Layout: layout})
//	r := m.Synchronize(now, nodepressure.Stats{Node: s.Node, Pods: s.Usage}, pods) // every 10 s
//	report(r.Conditions)                                       // MemoryPressure, DiskPressure, PIDPressure
//	if r.Victim != nil { kill(r.Victim.Pod, r.Victim.GracePeriodSeconds, r.Victim.Status) }
//
// It mirrors k8s.io/kubernetes v1.37.2 pkg/kubelet/eviction eviction_manager.go:
// managerImpl.synchronize with localStorageEviction, reclaimNodeLevelResources
// and evictPod, built from packages thresholds (the signals, thresholds and
// their pipeline over time) and ranking (which pod goes first, and what the
// kubelet writes about it). The stats come from the kubelet's summary API;
// package statsummary decodes its JSON into [Stats].
//
// # One cycle
//
// [Manager.Synchronize] takes the time of the cycle and:
//
//   - observes the eviction signals and runs the threshold pipeline: met
//     thresholds, minimum reclaim of those that drove the last cycle, first
//     observation times, node conditions within the pressure transition
//     period, grace periods, statistics newer than last cycle's, and the
//     starved resource, soft or hard ([thresholds.Evaluator]);
//   - evicts every pod over a local-storage limit (emptyDir sizeLimit, pod and
//     container ephemeral-storage limits) and ends the cycle if there is any;
//   - otherwise, for a starved resource, names the node-level garbage
//     collections to run first ([Result.NodeReclaim]), ranks the pods for the
//     starved signal and picks the victim: the first pod that is not static,
//     mirror or system-critical, with its kill grace period (1 s for a hard
//     threshold; for a soft one MaxPodGracePeriodSeconds, or the pod's own
//     terminationGracePeriodSeconds if smaller), its eviction message, event
//     annotations and the PodStatus the kubelet writes.
//
// # Admission
//
// [Admit] decides whether a new pod may start while the node reports the
// conditions of the last cycle ([Manager.Conditions]), as the eviction
// manager's admission handler does.
//
// # What the caller does
//
// The caller owns the side effects: it reports [Result.Conditions] on the
// node, kills the pods of [Result.LocalStorage], runs the garbage collections
// of [Result.NodeReclaim], and kills [Result.Victim] unless
// [Manager.ReclaimSatisfied] on the stats read after the collections says
// they were enough. That is the only outcome the kubelet's next steps depend
// on: the kubelet ignores a failed kill (it still counts the pod as evicted
// and waits for it to go), and the next cycle reads new stats either way, so
// nothing else is reported back.
//
// # Guarantees
//
//   - The victim is always [ranking.Evictable] and the first evictable pod of
//     [Result.Ranked]; no pod is killed for pressure while no threshold is met
//     past its grace period on fresh statistics.
//   - Nothing modifies the pods, the stats or the thresholds it is given;
//     [Result.Ranked] is a new slice.
//   - Time is an argument: no clock, no logging, no global state, no
//     feature-gate registry (gates are fields of [Config.Ranking] and
//     [thresholds.Layout]).
//   - A cycle allocates a small constant number of times plus the ranking's
//     keys; BENCHMARKS.md compares it with upstream's synchronize
//     (conformance BenchmarkSynchronize).
//
// # Differences from upstream
//
//   - First cycle. The kubelet derives the containerfs thresholds during its
//     first cycle but, through a shadowed variable, evaluates that cycle
//     without them. A Manager derives them in [NewManager] and uses them from
//     the first cycle on; the step's warnings come back in the first
//     [Result.Warnings].
//   - Errors at construction. A split layout with KubeletSeparateDiskGC off
//     is an error of [NewManager]; the kubelet returns it from its first
//     cycle and then runs without ranking functions, never evicting for
//     pressure again.
//   - Order. Where upstream ranges over maps or sorts unstably (several
//     starved resources, pods that tie), the choice made here is one of
//     those upstream can make, the same every time (see packages thresholds
//     and ranking).
//   - Node reclaim and kills are the caller's ([Result.NodeReclaim],
//     [Manager.ReclaimSatisfied]); events and metrics are not produced.
package nodepressure
