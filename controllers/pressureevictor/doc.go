// Package pressureevictor is a node-pressure evictor that honours
// PodDisruptionBudgets: a little before the kubelet would kill a pod for
// memory or disk pressure, it evicts the pod the kubelet would pick, through
// the policy/v1 Eviction API, so that budgets hold and the pod terminates
// with its own grace period.
//
//	ts, _ := pressureevictor.ParseThresholds(thresholds.Flags{})   // defaults: memory.available<500Mi for 30s
//	e, _ := pressureevictor.New(pressureevictor.Config{
//		Client: client, Node: node, Pods: podLister, Thresholds: ts,
//		Source: pressureevictor.NewProxySource(client, node),
//	})
//	err := e.Run(ctx) // a cycle every Config.Interval (10 s)
//
// One runs per node (a DaemonSet). Each cycle it reads the node's stats
// summary (through the API server's node proxy,
// /api/v1/nodes/NODE/proxy/stats/summary), decodes it with package
// statsummary, and runs one step of the kubelet's eviction manager
// (nodepressure.Manager, which mirrors k8s.io/kubernetes v1.37.2
// pkg/kubelet/eviction) on its own thresholds and the node's pods. When a
// threshold is met past its grace period on fresh statistics it walks the
// pods in the kubelet's order for the starved signal and evicts the first
// that may go:
//
//   - critical, static and mirror pods are never touched (ranking.Evictable);
//     nor are pods already terminating;
//   - an eviction refused with 429 Too Many Requests (a PodDisruptionBudget
//     allows no disruption) moves on to the next pod of the ranking; when none
//     can go, the cycle ends and the next one tries again;
//   - at most one pod is evicted per cycle, and no pod is evicted while a pod
//     evicted earlier is still on the node (it is terminating gracefully and
//     its memory is not free yet), so that pressure is relieved one pod at a
//     time, as the kubelet does; a pod that takes longer than its
//     terminationGracePeriodSeconds and 30 s more stops holding the next
//     eviction back;
//   - pods are never deleted directly.
//
// The evicted pod gets a Warning event with reason Evicted and the kubelet's
// message ("The node was low on resource: memory. Threshold quantity: ...")
// and annotations. With Config.DryRun nothing is evicted: the event has reason
// EvictionDryRun and the same message. A summary that cannot be read or
// decoded skips the cycle with a Warning event on the Node (reason
// SummaryUnavailable); nothing is evicted on stale figures.
//
// # Thresholds
//
// Thresholds are written in the kubelet's own flag syntax (thresholds.Flags, ParseThresholds):
// --eviction-soft, --eviction-soft-grace-period, --eviction-minimum-reclaim
// and --eviction-hard. Without any, the evictor uses DefaultSoft with
// DefaultSoftGracePeriod: memory.available<500Mi for 30s, five times the
// kubelet's hard default of 100Mi, so that the evictor acts well before the
// kubelet has to kill. It has no hard thresholds unless --eviction-hard is
// given (and then the kubelet's allocatableMemory.available copy of a hard
// memory.available threshold is made as well).
//
// # Cost
//
// One cycle on a node with 110 pods under memory pressure (decode the
// summary, evaluate, rank, pick the victim; API calls excluded) takes 0.25
// to 0.5 ms of one core and allocates 537 times, 71 KB
// (BenchmarkCycle110Pods, on a shared 2-core machine).
//
// # Differences from the kubelet
//
//   - The kill becomes an Eviction: no grace-period override is sent, so the
//     pod's terminationGracePeriodSeconds applies, and the API server checks
//     PodDisruptionBudgets.
//   - A refused eviction moves on to the next pod (the kubelet never asks).
//   - Node-level garbage collection (images, dead containers) is the
//     kubelet's: for a disk signal the evictor does not run it and evicts
//     without waiting for it. The defaults watch memory only.
//   - Local-storage limit evictions (emptyDir sizeLimit, ephemeral-storage
//     limits) are left to the kubelet.
//   - Node conditions are not reported; the kubelet reports them.
package pressureevictor
