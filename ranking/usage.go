package ranking

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

// Usage is what the kubelet's summary API reports about one pod, reduced to the figures that
// eviction reads. Every field maps onto one reported (non-nil) field of the kubelet's
// stats/v1alpha1 PodStats; the package documentation has the table.
type Usage struct {
	// MemoryWorkingSet is the pod's memory working set in bytes
	// (PodStats.Memory.WorkingSetBytes). Memory ranking and messages read it.
	MemoryWorkingSet uint64
	// Processes is the number of processes in the pod (PodStats.ProcessStats.ProcessCount).
	// PID ranking reads it.
	Processes uint64
	// EphemeralStorage is the pod's total ephemeral-storage use in bytes
	// (PodStats.EphemeralStorage.UsedBytes). Only the pod-level local-storage limit check reads
	// it; disk ranking adds up Containers and Volumes instead, as upstream does.
	EphemeralStorage uint64
	// Containers holds per-container figures in the order the stats list them
	// (PodStats.Containers).
	Containers []ContainerUsage
	// Volumes holds per-volume figures in the order the stats list them
	// (PodStats.VolumeStats). Any volume may be listed; disk ranking counts only those whose
	// name is a local volume in the pod spec.
	Volumes []VolumeUsage
}

// ContainerUsage is one container's figures (stats: one ContainerStats entry).
type ContainerUsage struct {
	// Name is the container's name (ContainerStats.Name); it matches the spec by name.
	Name string
	// MemoryWorkingSet is the container's working set in bytes
	// (ContainerStats.Memory.WorkingSetBytes); only eviction messages read it.
	MemoryWorkingSet uint64
	// Rootfs is the container's writable layer (ContainerStats.Rootfs).
	Rootfs FSUsage
	// Logs is the container's log files (ContainerStats.Logs).
	Logs FSUsage
}

// VolumeUsage is one volume's figures (stats: one VolumeStats entry).
type VolumeUsage struct {
	// Name is the volume's name in the pod spec (VolumeStats.Name).
	Name string
	FSUsage
}

// FSUsage is what one filesystem consumer uses (stats: FsStats).
type FSUsage struct {
	// UsedBytes is the number of bytes used (FsStats.UsedBytes).
	UsedBytes uint64
	// InodesUsed is the number of inodes used (FsStats.InodesUsed).
	InodesUsed uint64
}

// UsageFunc returns the usage of pod and whether the stats cover it at all (upstream:
// statsFunc). A pod for which it reports false has "no stats" and is ranked first, as upstream
// does. The ranking functions call it once per pod per call; a nil UsageFunc reports no
// stats for every pod.
type UsageFunc func(pod *v1.Pod) (Usage, bool)

// UsageByUID returns a [UsageFunc] that looks pods up by UID in m, as the kubelet matches pod
// stats to pods (upstream: cachedStatsFunc). m is read, not copied, by the returned function.
// A nil pod has no stats.
func UsageByUID(m map[types.UID]Usage) UsageFunc {
	return func(pod *v1.Pod) (Usage, bool) {
		if pod == nil {
			return Usage{}, false
		}
		u, ok := m[pod.UID]
		return u, ok
	}
}

// lookup calls usage for pod, treating a nil function or a nil pod as "no stats".
func lookup(usage UsageFunc, pod *v1.Pod) (Usage, bool) {
	if usage == nil || pod == nil {
		return Usage{}, false
	}
	return usage(pod)
}

// IsLocalVolume reports whether v stores its data on the node's disk and so counts towards the
// pod's ephemeral-storage usage: hostPath, gitRepo, configMap, and emptyDir with the default
// medium (upstream: eviction localVolumeNames over pkg/volume/util IsLocalEphemeralVolume).
// Secrets, projected and downward-API volumes and memory- or hugepage-backed emptyDirs do not
// count.
func IsLocalVolume(v *v1.Volume) bool {
	return v.HostPath != nil || v.GitRepo != nil || v.ConfigMap != nil ||
		(v.EmptyDir != nil && v.EmptyDir.Medium == v1.StorageMediumDefault)
}

// quantityOf returns a uint64 statistic as upstream reads it: converted to int64, so a value of
// 2^63 or more wraps negative exactly as in the kubelet.
func quantityOf(u uint64) resource.Quantity {
	var q resource.Quantity
	q.Set(int64(u))
	q.Format = resource.BinarySI
	return q
}
