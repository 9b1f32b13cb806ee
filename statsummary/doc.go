// Package statsummary decodes the kubelet's stats summary, the JSON that
//
//	kubectl get --raw /api/v1/nodes/NODE/proxy/stats/summary
//
// prints, into what the eviction packages read:
//
//	s, err := statsummary.Decode(data)                    // one pass over the JSON
//	obs := thresholds.MakeObservations(s.Node, thresholds.Linux) // node signals
//	ranking.ForMemory(pods, s.Usage, ranking.Options{})   // API pods joined to their stats
//	victim, ok := ranking.Victim(pods)
//
// It mirrors the schema of k8s.io/kubelet pkg/apis/stats/v1alpha1 (Summary,
// NodeStats, PodStats, ContainerStats, VolumeStats, FsStats, MemoryStats,
// RlimitStats, ProcessStats) at v0.37.2 with its own types, holding only the
// fields that k8s.io/kubernetes v1.37.2 pkg/kubelet/eviction reads:
// makeSignalObservations (node figures), cachedStatsFunc (pods keyed by
// UID), the rank functions' usage readers (memoryUsage, processUsage,
// diskUsage, inodeUsage, podDiskUsage), evictionMessage and the
// local-storage checks of the eviction manager.
//
// # What is read
//
// [Summary.Node] is a [thresholds.Summary]:
//
//	Memory        node.memory
//	PodsMemory    node.systemContainers[name="pods"].memory (the first so named)
//	CommitMemory  node.systemContainers[name="windows-global-commit-memory"].memory
//	NodeFs        node.fs
//	ImageFs       node.runtime.imageFs
//	ContainerFs   node.runtime.containerFs
//	Rlimit        node.rlimit (maxpid, curproc)
//
// with time, availableBytes, workingSetBytes, usageBytes, capacityBytes,
// inodesFree and inodes; a figure absent from the JSON (or null) is nil. Each
// element of pods[] becomes one [Pod] in order: its podRef as a [PodRef] and
// its figures as a [ranking.Usage], exactly the fields the ranking package
// documents (memory.workingSetBytes, process_stats.process_count,
// ephemeral-storage.usedBytes, containers[] with name, memory.workingSetBytes,
// rootfs and logs usedBytes and inodesUsed, volume[] with name, usedBytes and
// inodesUsed); an absent figure reads as zero, as upstream's readers read it.
// Every other field is skipped (but must be well-formed JSON).
//
// # Joining pods
//
// The kubelet keys pod stats by UID, the UID of the pod it runs. For a static
// pod that is the static pod's own UID (a hash of its manifest), which the
// API server's mirror pod carries in its kubernetes.io/config.mirror
// annotation, not the mirror pod's UID: a join of API pods by UID alone loses
// every static (control-plane) pod. [Summary.Usage] joins by namespace and
// name and checks the UID the kubelet knows the pod by ([KubeletUID]); its
// method value is a [ranking.UsageFunc]. [Summary.ByUID] is the kubelet's own
// keying, for the kubelet's pods.
//
// # Errors
//
// Unknown fields are ignored. Malformed JSON, a value of the wrong type in a
// field that is read, a negative or non-integer count and an invalid time
// return an error that names the JSON path and wraps one of [ErrSyntax],
// [ErrWrongType], [ErrNegative], [ErrInvalidNumber] or [ErrInvalidTime]:
//
//	statsummary: pods[3].containers[0].memory.workingSetBytes: negative value -5
//
// No input panics.
//
// # Speed
//
// [Decode] is a single pass over the bytes that materializes only what is
// read; the containers and volumes of all pods share one backing array each.
// On a 110-pod summary (the kubelet's default maxPods) it allocates about nine
// times per pod, for the pod's strings, and about a sixth of the bytes
// encoding/json allocates into the upstream types, which allocates some 180
// times per pod; it runs several times faster (conformance
// BenchmarkDecodeSummary has the figures).
//
// # Differences from encoding/json into the upstream types
//
//   - Field names match exactly, as the kubelet writes them; encoding/json
//     also accepts other cases ("WorkingSetBytes").
//   - A key repeated in one object replaces the earlier value; encoding/json
//     merges a repeated object into the earlier one.
//   - maxpid and curproc are int64 in the upstream types, so encoding/json
//     accepts negative values; the kernel never reports one and Decode
//     rejects them like every other negative count.
//   - Times keep the location they are written in; metav1.Time converts to
//     the local one. They are the same instants.
package statsummary
