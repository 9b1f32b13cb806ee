package ranking

import (
	v1 "k8s.io/api/core/v1"
)

const (
	// ConfigSourceAnnotationKey is the annotation the kubelet sets to the source a pod came
	// from ("api", "file", "http").
	ConfigSourceAnnotationKey = "kubernetes.io/config.source"
	// ConfigMirrorAnnotationKey is the annotation that marks a mirror pod (the API object the
	// kubelet creates for a static pod).
	ConfigMirrorAnnotationKey = "kubernetes.io/config.mirror"
	// APIServerSource is the config source of pods that came from the API server.
	APIServerSource = "api"
	// SystemCriticalPriority is the lowest priority that makes a pod critical: the value of
	// system-cluster-critical (system-node-critical is 2000001000).
	SystemCriticalPriority int32 = 2_000_000_000
)

// IsStatic reports whether pod is a static pod: its config-source annotation is present and is
// not "api" (any other value counts, even the empty string) (upstream: pkg/kubelet/types
// IsStaticPod). It trusts the annotation, as the kubelet does on its own copies of pods
// ([TrustKubelet]); for pods read from the API server use [TrustAPIServer].IsStatic. A nil pod
// is not static.
func IsStatic(pod *v1.Pod) bool { return TrustKubelet.IsStatic(pod) }

// IsMirror reports whether pod is a mirror pod: the mirror annotation is present, whatever its
// value (upstream: IsMirrorPod). It trusts the annotation ([TrustKubelet]); for pods read from
// the API server use [TrustAPIServer].IsMirror. A nil pod is not a mirror pod.
func IsMirror(pod *v1.Pod) bool { return TrustKubelet.IsMirror(pod) }

// IsCritical reports whether the kubelet refuses to evict pod: a static pod, a mirror pod, or
// a pod whose resolved spec.priority is at least [SystemCriticalPriority] (upstream:
// IsCriticalPod). A priority class name without a resolved priority does not count. It reads
// pods as the kubelet's own copies ([TrustKubelet]). A nil pod is not critical.
func IsCritical(pod *v1.Pod) bool { return TrustKubelet.IsCritical(pod) }

// Evictable reports whether the kubelet's eviction manager may evict pod, that is whether pod
// is not [IsCritical] (upstream: the check at the top of evictPod). It reads pods as the
// kubelet's own copies ([TrustKubelet]); for pods read from the API server use
// [TrustAPIServer].Evictable. A nil pod is not evictable.
func Evictable(pod *v1.Pod) bool { return TrustKubelet.Evictable(pod) }

// Victim returns the pod the kubelet evicts from a ranked list: the first [Evictable] one.
// Critical pods stay in the ranking and are skipped (upstream: the loop at the end of
// synchronize, which evicts at most one pod per cycle). It reports false when no pod is
// evictable.
func Victim(ranked []*v1.Pod) (*v1.Pod, bool) { return TrustKubelet.Victim(ranked) }
