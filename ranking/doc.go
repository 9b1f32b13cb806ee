// Package ranking decides which pod a kubelet under node pressure evicts: it computes QoS
// classes and requests the way Kubernetes does, orders pods for memory, disk and PID
// pressure, tells which pods may not be evicted, and writes the kubelet's eviction messages.
//
// It mirrors, for Kubernetes v1.37.2:
//   - k8s.io/kubernetes pkg/kubelet/eviction helpers.go: rankMemoryPressure,
//     rankPIDPressure, rankDiskPressureFunc, buildSignalToRankFunc, orderedBy/multiSorter,
//     the comparators exceedMemoryRequests, memory, priority, process, exceedDiskRequests and
//     disk, the usage readers memoryUsage, processUsage, podDiskUsage, containerUsage,
//     podLocalVolumeUsage and localVolumeNames, cachedStatsFunc, evictionMessage,
//     getThresholdMetInfo and PodIsEvicted;
//   - pkg/kubelet/eviction eviction_manager.go: the eviction loop of synchronize, evictPod,
//     localStorageEviction, emptyDirLimitEviction, podEphemeralStorageLimitEviction and
//     containerEphemeralStorageLimitEviction;
//   - pkg/apis/core/v1/helper/qos qos.go: GetPodQOS and ComputePodQOS; the request defaulting
//     of pkg/apis/core/v1 SetDefaults_Pod and pkg/api/pod DefaultPodLevelResources;
//   - pkg/api/v1/resource GetResourceRequestQuantity over k8s.io/component-helpers resource
//     PodRequests, PodLimits and IsPodLevelResourcesSet; component-helpers scheduling/corev1
//     PodPriority;
//   - pkg/kubelet/types pod_update.go: IsCriticalPod, IsNodeCriticalPod, IsStaticPod,
//     IsMirrorPod;
//   - pkg/kubelet/qos policy.go: GetContainerOOMScoreAdjust ([OOMScoreAdjust]);
//   - kubernetes-sigs/descheduler SortPodsBasedOnPriorityLowToHigh ([ByPriorityThenQoS]).
//
// # Guarantees
//
//   - Every ordering is one of the orders upstream's comparators allow, and it is
//     deterministic: pods upstream considers equal are ordered by namespace, name and UID,
//     then by input position. The result does not depend on the input order (except between
//     pods sharing namespace, name and UID), and ranking a ranked list changes nothing.
//   - Quantities are compared exactly, as upstream's Quantity arithmetic does: fractional
//     and exa-scale requests and sums beyond int64 order correctly.
//   - Nothing modifies a pod. [ForMemory], [ForDisk], [ForPIDs], [ForSignal] and
//     [ByPriorityThenQoS] reorder only the slice they are given.
//   - No package-level state, no feature-gate registry: gates that change answers are fields of
//     [Options], whose zero value is v1.37.2's default; every function a gate affects takes
//     it as its last argument (one form per operation).
//   - One vocabulary with package thresholds: signals are [thresholds.Signal], the
//     signal → resource and signal → filesystem tables are [thresholds.Signal.Resource] and
//     [thresholds.Signal.Filesystem], the disk layout is [thresholds.Layout], and eviction
//     messages read [thresholds.Threshold] and [thresholds.Observations] as the kubelet does.
//   - Nothing panics on bad input: nil pods, a nil [UsageFunc] and unknown signals are
//     handled (an unknown signal is an error wrapping [thresholds.ErrUnsupportedSignal]).
//
// # Ranking
//
// [ForMemory] (memory.available, allocatableMemory.available) puts pods without stats first,
// then pods whose working set exceeds their memory [Request], then lower [Priority], then
// larger usage above request. [ForDisk] (nodefs, imagefs, containerfs;
// .available and .inodesFree) do the same with disk usage; [ForPIDs] (pid.available) orders
// by priority, then pods without stats, then more processes. [ForSignal] picks the ranking
// from a [thresholds.Signal]. The first pod that is [Evictable] is the one the kubelet evicts
// ([Victim]); it evicts at most one per cycle.
//
// Each call computes every pod's request and usage once and sorts compact keys, so a ranking
// costs n usage look-ups plus O(n log n) key comparisons and allocates a constant number of
// times (not at all for up to 128 pods, more than the kubelet's default maxPods of 110);
// upstream recomputes requests (several map allocations) and usage inside every comparison.
// When the keys differ in few bits, as a PID ranking's usually do (a handful of priorities,
// small process counts), each packs with its position into one integer and they sort as
// integers, with no call per comparison (a radix sort from 4,096 pods on); the pods are read
// again only to order equal keys by identity. An exact big-number comparison happens only
// between pods whose figures are fractional or beyond int64 and agree to the byte.
//
// # Usage and kubelet stats
//
// [Usage] is filled by the caller (from the summary API, cAdvisor or a simulation) and
// looked up per pod through a [UsageFunc]; [UsageByUID] matches by UID as the kubelet does.
// Every field corresponds to one reported (non-nil) field of k8s.io/kubelet
// pkg/apis/stats/v1alpha1:
//
//	Usage.MemoryWorkingSet          PodStats.Memory.WorkingSetBytes
//	Usage.Processes                 PodStats.ProcessStats.ProcessCount
//	Usage.EphemeralStorage          PodStats.EphemeralStorage.UsedBytes
//	Usage.Containers[i]             PodStats.Containers[i] (same order)
//	  .Name                           ContainerStats.Name
//	  .MemoryWorkingSet               ContainerStats.Memory.WorkingSetBytes
//	  .Rootfs.UsedBytes/InodesUsed    ContainerStats.Rootfs.UsedBytes/InodesUsed
//	  .Logs.UsedBytes/InodesUsed      ContainerStats.Logs.UsedBytes/InodesUsed
//	Usage.Volumes[i]                PodStats.VolumeStats[i] (same order)
//	  .Name                           VolumeStats.Name
//	  .UsedBytes/InodesUsed           VolumeStats.FsStats.UsedBytes/InodesUsed
//	UsageFunc reports false         no PodStats entry for the pod's UID
//
// Upstream reads an absent stats field as zero when ranking, so rankings agree for any stats;
// eviction messages differ only where upstream checks presence (see below).
//
// # Disk layouts
//
// Which usage a disk ranking adds up depends on the node's filesystems ([thresholds.Layout])
// and on the filesystem under pressure ([thresholds.Filesystem]); [DiskSources] has the
// table. On the zero layout (one filesystem) every filesystem ranks alike. The resource picks
// bytes (ephemeral-storage, for *.available) or inodes ([thresholds.ResourceInodes], for
// *.inodesFree). For
// inodes upstream compares usage with a request for "inodes", which valid pods cannot set,
// and subtracts the ephemeral-storage request in bytes from the inode count; both quirks are
// reproduced.
//
// # QoS and requests
//
// [QOSClass] is the class the API server stores: status.qosClass when set, else the class of
// the pod after API defaulting ([DefaultedRequests]); [ComputeQOSClass] computes from the
// spec as given. Pod-level resources (spec.resources) take precedence when they name cpu,
// memory or hugepages. [Request] is the request the kubelet ranks by; [Limit] the limit its
// local-storage check uses.
//
// # QoS and the OOM killer
//
// QoS also steers the kernel's OOM killer: [OOMScoreAdjust] is the oom_score_adj the kubelet
// gives each container, -997 for Guaranteed and node-critical pods, 1000 for BestEffort, and
// in between for Burstable pods by memory request over node capacity (pod-level requests and
// sidecars included). Its differences from upstream are in its documentation.
//
// # Messages and local storage
//
// [EvictionMessage] returns the message and event annotations of a pressure eviction,
// [EvictedStatus] the pod status the kubelet writes with it (reason [Reason], a
// DisruptionTarget condition). [LocalStorageViolation] and [LocalStorageEvictions] apply the
// emptyDir, pod and container ephemeral-storage limits that the kubelet enforces before
// threshold-driven eviction; [LocalStorageEvictedStatus] is the status they leave.
//
// # Which source each check trusts
//
// [IsStatic], [IsMirror], [IsCritical], [Evictable] and [Victim] read pods as the kubelet
// reads its own copies ([TrustKubelet], upstream's behaviour): a static pod is one whose
// config-source annotation (kubernetes.io/config.source) is present and not "api", a mirror
// pod one with the mirror annotation (kubernetes.io/config.mirror). The kubelet sets the
// first itself on every pod it loads, so there it can be believed. Through the API server
// both are ordinary annotations anyone who may create a pod may set, so a caller reading
// pods from the API server (an evictor acting for the kubelet) uses the methods of
// [TrustAPIServer]: no pod is static, and a mirror pod is one with the mirror annotation
// whose controller owner reference is the Node of its spec.nodeName, which is what the API
// server and its NodeRestriction admission plugin enforce for the mirror pods kubelets
// create. The priority check ([SystemCriticalPriority]) reads spec.priority, which the API
// server resolves from the priority class, under both.
//
// # Differences from upstream
//
//   - Ties: upstream sorts with sort.Sort, which keeps tied pods in input order for up to 12
//     pods (insertion sort) and leaves their order unspecified above that. The library
//     breaks ties by namespace, name and UID, then input position — one of upstream's possible
//     orders, the same for every input order.
//   - Process counts: upstream compares int(p2-p1) on uint64 counts, which misorders
//     differences of 2^63 or more; the library compares exactly. Real counts never get there.
//   - Stats presence: [Usage] has no "not reported" state, so every figure counts as reported.
//     Upstream writes the pod-level memory clause of a message only when pod memory stats
//     exist, and a container's ephemeral-storage clause only when both its rootfs and logs
//     bytes exist (an absent one counts as zero here); it dereferences a volume's used bytes
//     without a nil check in the emptyDir limit check.
//   - [QOSClass] applies API defaulting before computing, as the API server does before
//     storing status.qosClass; upstream's GetPodQOS on a pod that was never defaulted computes
//     on the raw spec, which is [ComputeQOSClass].
//   - [ByPriorityThenQoS] uses a strict ordering and a deterministic tie-break where the
//     descheduler uses an unstable sort with a non-strict comparator, and reads QoS with
//     [QOSClass] (status.qosClass and pod-level resources included).
//   - Nil pods and a nil [UsageFunc] are accepted (no stats); upstream would panic.
//   - [Trust] added: [TrustAPIServer] reads the static and mirror checks from what the API
//     server enforces; the package functions keep upstream's reading.
//   - Options added: [Options] carries gates PodLevelResources,
//     PodLevelResourcesFixKubeletQOSClass, PodLevelResourcesFixDefaulting and
//     InPlacePodVerticalScalingMemoryBackedVolumes instead of a global registry;
//     local-storage checks return messages instead of killing pods.
package ranking
