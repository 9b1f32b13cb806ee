package thresholds

import v1 "k8s.io/api/core/v1"

// Signal names one observed quantity that can trigger eviction, such as
// "memory.available". The nine valid names are the constants below; they are
// case-sensitive.
type Signal string

// The nine eviction signals of the kubelet. Each is compared with the implied
// operator "less than": a threshold is met when the available amount falls
// below it.
const (
	// MemoryAvailable is node memory available (capacity minus working set);
	// on Windows it is the commit memory still available.
	MemoryAvailable Signal = "memory.available"
	// AllocatableMemoryAvailable is memory available to pods (allocatable
	// minus the working set of the pods cgroup).
	AllocatableMemoryAvailable Signal = "allocatableMemory.available"
	// NodeFsAvailable is bytes available on the filesystem holding the
	// kubelet's root directory (volumes, logs).
	NodeFsAvailable Signal = "nodefs.available"
	// NodeFsInodesFree is free inodes on the nodefs filesystem.
	NodeFsInodesFree Signal = "nodefs.inodesFree"
	// ImageFsAvailable is bytes available on the filesystem holding image
	// layers (and writable layers unless they are split off).
	ImageFsAvailable Signal = "imagefs.available"
	// ImageFsInodesFree is free inodes on the imagefs filesystem.
	ImageFsInodesFree Signal = "imagefs.inodesFree"
	// ContainerFsAvailable is bytes available on the filesystem holding
	// container writable layers. Its thresholds are derived, see
	// [WithContainerFs].
	ContainerFsAvailable Signal = "containerfs.available"
	// ContainerFsInodesFree is free inodes on the containerfs filesystem.
	ContainerFsInodesFree Signal = "containerfs.inodesFree"
	// PIDAvailable is process IDs available (max PID minus running processes).
	PIDAvailable Signal = "pid.available"
)

// Internal resource names the kubelet reclaims under inode and PID pressure,
// as [Signal.Resource] returns them and eviction messages print them. They
// are not API resources.
const (
	// ResourceInodes is the resource reclaimed for the *.inodesFree signals.
	ResourceInodes v1.ResourceName = "inodes"
	// ResourcePIDs is the resource reclaimed for pid.available.
	ResourcePIDs v1.ResourceName = "pids"
)

// Signals returns the nine eviction signals in eviction-priority order:
// memory signals first, then filesystems, then PIDs. The slice is fresh on
// every call.
func Signals() []Signal {
	return []Signal{
		MemoryAvailable,
		AllocatableMemoryAvailable,
		NodeFsAvailable,
		NodeFsInodesFree,
		ImageFsAvailable,
		ImageFsInodesFree,
		ContainerFsAvailable,
		ContainerFsInodesFree,
		PIDAvailable,
	}
}

// Valid reports whether s is one of the nine eviction signals.
func (s Signal) Valid() bool {
	_, ok := s.Resource()
	return ok
}

// Resource returns the resource the kubelet reclaims when a threshold on s is
// met: memory, ephemeral-storage, [ResourceInodes] or [ResourcePIDs]. ok is
// false for an unknown signal.
func (s Signal) Resource() (res v1.ResourceName, ok bool) {
	switch s {
	case MemoryAvailable, AllocatableMemoryAvailable:
		return v1.ResourceMemory, true
	case NodeFsAvailable, ImageFsAvailable, ContainerFsAvailable:
		return v1.ResourceEphemeralStorage, true
	case NodeFsInodesFree, ImageFsInodesFree, ContainerFsInodesFree:
		return ResourceInodes, true
	case PIDAvailable:
		return ResourcePIDs, true
	}
	return "", false
}

// Filesystem returns the filesystem a disk signal watches: [NodeFs] for
// nodefs.*, [ImageFs] for imagefs.*, [ContainerFs] for containerfs.*. ok is
// false for the memory and PID signals and for unknown ones.
func (s Signal) Filesystem() (fs Filesystem, ok bool) {
	switch s {
	case NodeFsAvailable, NodeFsInodesFree:
		return NodeFs, true
	case ImageFsAvailable, ImageFsInodesFree:
		return ImageFs, true
	case ContainerFsAvailable, ContainerFsInodesFree:
		return ContainerFs, true
	}
	return NodeFs, false
}

// NodeCondition returns the node condition reported while a threshold on s
// is met: MemoryPressure, DiskPressure or PIDPressure. ok is false for an
// unknown signal.
func (s Signal) NodeCondition() (cond v1.NodeConditionType, ok bool) {
	switch s {
	case MemoryAvailable, AllocatableMemoryAvailable:
		return v1.NodeMemoryPressure, true
	case NodeFsAvailable, NodeFsInodesFree, ImageFsAvailable, ImageFsInodesFree,
		ContainerFsAvailable, ContainerFsInodesFree:
		return v1.NodeDiskPressure, true
	case PIDAvailable:
		return v1.NodePIDPressure, true
	}
	return "", false
}

// ObservedOn reports whether a kubelet running on os reports an observation
// for s. pid.available comes from rlimit statistics, which only Linux
// provides; Windows filesystems report no inode counts. A threshold on a
// signal that is never observed is valid but never met.
func (s Signal) ObservedOn(os OS) bool {
	if !s.Valid() {
		return false
	}
	switch s {
	case PIDAvailable:
		return os.normalize() == Linux
	case NodeFsInodesFree, ImageFsInodesFree, ContainerFsInodesFree:
		return os.normalize() != Windows
	}
	return true
}

// OS selects the operating-system specific behaviour of the kubelet: its
// default hard thresholds and how memory.available is observed. The zero
// value means [Linux]; any name other than "linux" and "windows" (for
// example "darwin") selects the set upstream builds for other systems, so
// OS(runtime.GOOS) picks what a kubelet built for this machine would do.
type OS string

// Operating systems with distinct eviction defaults.
const (
	// Linux is the default: all five default hard thresholds.
	Linux OS = "linux"
	// Windows uses a 500Mi memory default, no inode defaults and commit
	// memory for memory.available.
	Windows OS = "windows"
	// Other is any other system: no inode defaults.
	Other OS = "other"
)

func (os OS) normalize() OS {
	switch os {
	case "", Linux:
		return Linux
	case Windows:
		return Windows
	}
	return Other
}
