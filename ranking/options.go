package ranking

// Options holds the feature gates that change this package's answers. The zero value is
// Kubernetes v1.37.2's default for every gate, so fields of gates that default to on are
// named Disable…; the one alpha gate that defaults to off keeps its own name.
type Options struct {
	// DisablePodLevelResources turns gate PodLevelResources (beta, on by default) off:
	// pod-level spec.resources are then ignored by the QoS class and by the kubelet's
	// request figure (pod-level requests still override container sums there, as upstream's
	// PodRequests does), and the pod-level defaulting of [Options.DefaultedRequests] is
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
	// check ([Options.LocalStorageViolation]).
	InPlacePodVerticalScalingMemoryBackedVolumes bool
}

// Layout describes how a node's filesystems are laid out; it decides which usage a disk
// ranking measures ([DiskSources]). The zero value is a node without a dedicated image
// filesystem, where nodefs, imagefs and containerfs are one device.
type Layout struct {
	// DedicatedImageFS reports a separate image filesystem (upstream: withImageFs, the
	// kubelet's HasDedicatedImageFs).
	DedicatedImageFS bool
	// SplitContainerFS reports that container writable layers live on the node filesystem
	// while images have their own (upstream: imageContainerSplitFs, KubeletSeparateDiskGC).
	// It matters only together with DedicatedImageFS.
	SplitContainerFS bool
}

// Filesystem names the filesystem whose pressure a disk ranking answers: the one in the
// signal's name (nodefs.*, imagefs.*, containerfs.*). The zero value is [NodeFS]; values
// other than the three constants rank as [NodeFS].
type Filesystem uint8

const (
	// NodeFS is the kubelet's root filesystem (signals nodefs.available, nodefs.inodesFree).
	NodeFS Filesystem = iota
	// ImageFS is the filesystem holding container images (imagefs.available, imagefs.inodesFree).
	ImageFS
	// ContainerFS is the filesystem holding writable layers (containerfs.available,
	// containerfs.inodesFree).
	ContainerFS
)

// String returns "nodefs", "imagefs" or "containerfs" (the signal prefix).
func (f Filesystem) String() string {
	switch f {
	case ImageFS:
		return "imagefs"
	case ContainerFS:
		return "containerfs"
	default:
		return "nodefs"
	}
}

// Sources is a set of usage sources a disk ranking adds up (upstream: fsStatsType).
type Sources uint8

const (
	// SourceImages stands for image layers. Upstream lists it but no pod usage is attributed to
	// it, so it contributes nothing.
	SourceImages Sources = 1 << iota
	// SourceRoot is each container's writable layer ([ContainerUsage].Rootfs).
	SourceRoot
	// SourceLogs is each container's logs ([ContainerUsage].Logs).
	SourceLogs
	// SourceLocalVolumes is the pod's local volumes: hostPath, gitRepo, configMap and emptyDir
	// volumes with the default medium ([Usage].Volumes matched by name).
	SourceLocalVolumes
)

// Has reports whether s includes every source in t.
func (s Sources) Has(t Sources) bool { return s&t == t }

// DiskSources returns the usage sources the kubelet measures when ranking pods for pressure
// on filesystem fs under layout (upstream: buildSignalToRankFunc):
//
//	layout                    nodefs                     imagefs        containerfs
//	no dedicated imagefs      images+root+logs+volumes   same           same
//	imagefs, not split        logs+volumes               root+images    root+images
//	imagefs, split            logs+volumes+root          images         logs+volumes+root
func DiskSources(fs Filesystem, layout Layout) Sources {
	const all = SourceImages | SourceRoot | SourceLogs | SourceLocalVolumes
	switch {
	case !layout.DedicatedImageFS:
		return all
	case !layout.SplitContainerFS:
		if fs == ImageFS || fs == ContainerFS {
			return SourceRoot | SourceImages
		}
		return SourceLogs | SourceLocalVolumes
	default:
		if fs == ImageFS {
			return SourceImages
		}
		return SourceLogs | SourceLocalVolumes | SourceRoot
	}
}
