package ranking

// Options holds the feature gates that change this package's answers; every function whose
// answer a gate can change takes it as its last argument. The zero value is Kubernetes
// v1.37.2's default for every gate, so fields of gates that default to on are named
// Disable…; the one alpha gate that defaults to off keeps its own name.
type Options struct {
	// DisablePodLevelResources turns gate PodLevelResources (beta, on by default) off:
	// pod-level spec.resources are then ignored by the QoS class and by the kubelet's
	// request figure (pod-level requests still override container sums there, as upstream's
	// PodRequests does), and the pod-level defaulting of [DefaultedRequests] is
	// skipped.
	DisablePodLevelResources bool
	// DisablePodLevelResourcesFixKubeletQOSClass turns gate PodLevelResourcesFixKubeletQOSClass
	// (beta, on by default) off: a non-nil spec.resources then decides the QoS class even when
	// it names no cpu, memory or hugepages (an empty one gives BestEffort).
	DisablePodLevelResourcesFixKubeletQOSClass bool
	// DisablePodLevelResourcesFixDefaulting turns gate PodLevelResourcesFixDefaulting (beta, on
	// by default) off: pod-level requests are then defaulted the older way (only when pod-level
	// limits exist, and pod-level limits are never defaulted from container limits).
	DisablePodLevelResourcesFixDefaulting bool
	// InPlacePodVerticalScalingMemoryBackedVolumes turns the alpha gate of that name (off by
	// default) on: memory-backed emptyDir volumes are then skipped by the local-storage limit
	// check ([LocalStorageViolation]).
	InPlacePodVerticalScalingMemoryBackedVolumes bool
}
