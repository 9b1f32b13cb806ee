// Package pressureevictor is a node-pressure evictor that honours
// PodDisruptionBudgets: a little before the kubelet would kill a pod for
// memory or disk pressure, it evicts the pod the kubelet would pick, through
// the policy/v1 Eviction API, so that budgets hold and the pod terminates
// with its own grace period.
//
//	ts, _ := pressureevictor.ParseThresholds(thresholds.Flags{})   // defaults: memory.available<500Mi for 30s
//	src, _ := pressureevictor.NewKubeletSource(pressureevictor.KubeletConfig{
//		Node: node, Address: nodeIP, Client: client,               // port from the Node
//		TokenFile: pressureevictor.DefaultTokenFile, CAFile: pressureevictor.DefaultCAFile,
//	})
//	e, _ := pressureevictor.New(pressureevictor.Config{
//		Client: client, Node: node, Pods: podLister, Thresholds: ts, Source: src,
//	})
//	err := e.Run(ctx) // a cycle every Config.Interval (10 s)
//
// One runs per node (a DaemonSet). Each cycle it reads the node's stats
// summary from its own kubelet (KubeletSource: https://NODE_IP:PORT/stats/summary
// with the pod's service-account token, which needs get on nodes/stats; or,
// opt-in, ProxySource, through the API server's node proxy, which needs get
// on nodes/proxy and with it exec on every node), decodes it with package
// statsummary, and runs one step of the kubelet's eviction manager
// (nodepressure.Manager, which mirrors k8s.io/kubernetes v1.37.2
// pkg/kubelet/eviction) on its own thresholds and the node's pods. When a
// threshold is met past its grace period on fresh statistics it walks the
// pods in the kubelet's order for the starved signal and evicts the first
// that may go:
//
//   - critical and mirror pods are never touched, read as the API server
//     guarantees them (ranking.TrustAPIServer: a mirror pod carries the
//     mirror annotation and is controlled by its Node; the config.source
//     annotation, which anyone may set through the API, makes no pod
//     static); nor are pods already terminating, nor pods bound to another
//     node;
//   - an eviction refused with 429 Too Many Requests (a PodDisruptionBudget
//     allows no disruption), or refused otherwise (a 500 for a pod under two
//     budgets, a 403 from an admission webhook) moves on to the next pod of
//     the ranking; a refusal other than 429 gets a Warning event on the pod
//     (reason EvictionFailed) and counts in
//     pressure_evictor_eviction_failures_total; when none can go, the cycle
//     ends and the next one tries again;
//   - an error answer is checked by reading the pod back: terminating or gone
//     means the eviction was made and its answer lost (it counts as made);
//     after a 504 or no answer at all (a timeout, a broken connection) with
//     the pod untouched, the eviction may still be under way, so the cycle
//     ends and the pod holds the next eviction back as an evicted one does;
//   - at most one pod is evicted per cycle, and no pod is evicted while a pod
//     of the node is terminating (evicted by us or deleted by anyone: its
//     memory is not free yet), so that pressure is relieved one pod at a
//     time, as the kubelet does; a pod that takes longer than its grace
//     period and 30 s more stops holding the next eviction back;
//   - grace periods are capped by Config.MaxPodGracePeriodSeconds (the
//     kubelet's --eviction-max-pod-grace-period, 300 s by default): a longer
//     terminationGracePeriodSeconds is replaced by the cap in the Eviction,
//     and waited for no longer; the arithmetic saturates;
//   - pods are never deleted directly.
//
// The evicted pod gets a Warning event with reason Evicted and the kubelet's
// message ("The node was low on resource: memory. Threshold quantity: ...")
// and annotations. With Config.DryRun nothing is evicted: the event has reason
// EvictionDryRun and the same message. A summary that cannot be read or
// decoded, one the kubelet refuses (401, or 403 for a token without get on
// nodes/stats: ErrKubeletRefused), one longer than the source's MaxBytes
// (16 MiB by default), one with a count of 2^63 or more (ErrAbsurdFigure:
// the kubelet's int64 arithmetic, which the library mirrors, would read it
// as negative, "no memory available"), one of another node (node.nodeName
// is not Config.Node: ErrWrongNode), and a read that outlasts Config.CycleTimeout
// skip the cycle with a Warning event on the Node (reason
// SummaryUnavailable) and count in pressure_evictor_summary_failures_total
// by cause; nothing is evicted on stale, foreign or absent figures. Healthy reports whether cycles still complete (none for
// three intervals past the cycle timeout is stale); the program's /healthz
// answers with it.
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
//   - The kill becomes an Eviction: the pod's terminationGracePeriodSeconds
//     applies up to the cap (the kubelet sends the cap on soft thresholds
//     only and kills at once on hard ones; its cap defaults to 0, which
//     through the API would be a forced deletion, so the evictor's defaults
//     to 300 s and asks for at least 1 s), and the API server checks
//     PodDisruptionBudgets.
//   - A refused eviction moves on to the next pod (the kubelet never asks).
//   - Node-level garbage collection (images, dead containers) is the
//     kubelet's: for a disk signal the evictor does not run it and evicts
//     without waiting for it. The defaults watch memory only.
//   - Local-storage limit evictions (emptyDir sizeLimit, ephemeral-storage
//     limits) are left to the kubelet.
//   - Node conditions are not reported; the kubelet reports them.
package pressureevictor
