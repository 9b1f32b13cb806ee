package ranking

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/podresources"
	"github.com/evictkit/eviction/thresholds"
)

// LocalStorageGracePeriodSeconds is the grace period the kubelet gives a pod it evicts for
// exceeding a local-storage limit.
const LocalStorageGracePeriodSeconds int64 = 1

// LocalStorageEviction is a pod the kubelet evicts for exceeding a local-storage limit, with
// the message it writes.
type LocalStorageEviction struct {
	// Pod is the pod to evict.
	Pod *v1.Pod
	// Message is the status and event message ([LocalStorageEvictedStatus] writes it).
	Message string
}

// LocalStorageViolation reports the first local-storage limit pod exceeds, given its usage u,
// and the message the kubelet writes when it evicts pod for it (upstream: eviction manager
// emptyDirLimitEviction, podEphemeralStorageLimitEviction,
// containerEphemeralStorageLimitEviction). The checks run in this order:
//
//  1. emptyDir: each emptyDir volume in spec order with a positive sizeLimit and a volume
//     entry of that name in u (the last one, as upstream's map keeps it) whose used bytes
//     exceed the limit: `Usage of EmptyDir volume "<name>" exceeds the limit "<limit>". `.
//     Memory-backed emptyDirs are skipped only with
//     [Options].InPlacePodVerticalScalingMemoryBackedVolumes;
//  2. pod: when pod has an ephemeral-storage limit ([Limit]; an explicit zero counts) and
//     u.EphemeralStorage exceeds it:
//     "Pod ephemeral local storage usage exceeds the total limit of containers <limit>. ";
//  3. container: for each container in u's order whose regular or restartable init spec
//     container has an ephemeral-storage limit that rounds up to a non-zero integer, and whose
//     logs bytes, plus rootfs bytes unless layout has a dedicated image filesystem, exceed it:
//     `Container <name> exceeded its local ephemeral storage limit "<limit>". `.
//
// It does not look at criticality; [LocalStorageEvictions] does. pod is not modified.
func LocalStorageViolation(pod *v1.Pod, u Usage, layout thresholds.Layout, opts Options) (string, bool) {
	if pod == nil {
		return "", false
	}
	if msg, ok := opts.emptyDirViolation(pod, u); ok {
		return msg, true
	}
	if limit, ok := Limit(pod, v1.ResourceEphemeralStorage); ok {
		use := quantityOf(u.EphemeralStorage)
		if use.Cmp(limit) > 0 {
			return fmt.Sprintf("Pod ephemeral local storage usage exceeds the total limit of containers %s. ", limit.String()), true
		}
	}
	for i := range u.Containers {
		cu := &u.Containers[i]
		limit, ok := containerStorageLimit(pod, cu.Name)
		if !ok {
			continue
		}
		use := quantityOf(cu.Logs.UsedBytes)
		if !layout.DedicatedImageFs {
			use.Add(quantityOf(cu.Rootfs.UsedBytes))
		}
		if limit.Cmp(use) < 0 {
			return fmt.Sprintf("Container %s exceeded its local ephemeral storage limit %q. ", cu.Name, limit.String()), true
		}
	}
	return "", false
}

func (o Options) emptyDirViolation(pod *v1.Pod, u Usage) (string, bool) {
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		ed := vol.EmptyDir
		if ed == nil {
			continue
		}
		if o.InPlacePodVerticalScalingMemoryBackedVolumes && ed.Medium == v1.StorageMediumMemory {
			continue
		}
		if ed.SizeLimit == nil || ed.SizeLimit.Sign() != 1 {
			continue
		}
		used, ok := lastVolume(u, vol.Name)
		if !ok {
			continue
		}
		size := ed.SizeLimit.DeepCopy()
		use := quantityOf(used)
		if use.Cmp(size) > 0 {
			return fmt.Sprintf("Usage of EmptyDir volume %q exceeds the limit %q. ", vol.Name, size.String()), true
		}
	}
	return "", false
}

// lastVolume returns the used bytes of the last volume entry named name.
func lastVolume(u Usage, name string) (uint64, bool) {
	for i := len(u.Volumes) - 1; i >= 0; i-- {
		if u.Volumes[i].Name == name {
			return u.Volumes[i].UsedBytes, true
		}
	}
	return 0, false
}

// containerStorageLimit returns the ephemeral-storage limit the container check applies to the
// container named name: that of the last regular or restartable init container (in that order)
// with that name whose limit rounds up to a non-zero integer, as upstream's map keeps it.
func containerStorageLimit(pod *v1.Pod, name string) (resource.Quantity, bool) {
	var limit resource.Quantity
	found := false
	consider := func(c *v1.Container) {
		if c.Name != name {
			return
		}
		q, ok := c.Resources.Limits[v1.ResourceEphemeralStorage]
		if ok && q.Value() != 0 {
			limit, found = q, true
		}
	}
	for i := range pod.Spec.Containers {
		consider(&pod.Spec.Containers[i])
	}
	for i := range pod.Spec.InitContainers {
		if podresources.IsSidecar(&pod.Spec.InitContainers[i]) {
			consider(&pod.Spec.InitContainers[i])
		}
	}
	return limit, found
}

// LocalStorageEvictions returns, in input order, the pods the kubelet evicts in one cycle for
// exceeding local-storage limits (upstream: localStorageEviction, which runs before
// pressure-driven eviction and independently of it): every pod with stats that has a
// [LocalStorageViolation] and is [Evictable]. Critical pods are refused, as upstream's
// evictPod refuses them. Several pods may be returned; the kubelet evicts each with
// [LocalStorageGracePeriodSeconds], no annotations and no DisruptionTarget condition.
func LocalStorageEvictions(pods []*v1.Pod, usage UsageFunc, layout thresholds.Layout, opts Options) []LocalStorageEviction {
	var out []LocalStorageEviction
	for _, p := range pods {
		u, found := lookup(usage, p)
		if !found || !Evictable(p) {
			continue
		}
		if msg, ok := LocalStorageViolation(p, u, layout, opts); ok {
			out = append(out, LocalStorageEviction{Pod: p, Message: msg})
		}
	}
	return out
}
