package thresholds

// Layout describes how a node's filesystems are arranged, as the kubelet
// learns it on its first eviction cycle (cAdvisor's HasDedicatedImageFs and
// HasDedicatedContainerFs). It decides which thresholds containerfs inherits
// ([WithContainerFs]), which garbage collections relieve a filesystem
// ([NodeReclaimActions]) and which usage a disk ranking adds up (package
// ranking). The zero value is a node with one filesystem for everything.
type Layout struct {
	// DedicatedImageFs is true when images live on a filesystem other than
	// the kubelet's root (nodefs).
	DedicatedImageFs bool
	// SplitContainerImageFs is true when container writable layers live on
	// a filesystem other than images (the node filesystem). It matters only
	// together with DedicatedImageFs.
	SplitContainerImageFs bool
	// DisableSeparateDiskGC models the KubeletSeparateDiskGC feature gate
	// turned off (it is on by default since v1.31); a split layout is then
	// a fatal error.
	DisableSeparateDiskGC bool
}

// ContainerFsSource returns the filesystem whose thresholds containerfs
// inherits under l: nodefs for a single filesystem or a split layout,
// imagefs for a dedicated image filesystem holding writable layers too.
// ok is false for the inconsistent layout "split but no dedicated imagefs",
// where the kubelet derives nothing.
func (l Layout) ContainerFsSource() (available, inodesFree Signal, ok bool) {
	switch {
	case l.DedicatedImageFs && !l.SplitContainerImageFs:
		return ImageFsAvailable, ImageFsInodesFree, true
	case l.DedicatedImageFs == l.SplitContainerImageFs:
		return NodeFsAvailable, NodeFsInodesFree, true
	}
	return "", "", false
}

// Filesystem names the filesystem a disk signal watches: the one in the
// signal's name (nodefs.*, imagefs.*, containerfs.*). The zero value is
// [NodeFs].
type Filesystem uint8

// The three filesystems of the kubelet's disk signals.
const (
	// NodeFs is the kubelet's root filesystem (nodefs.available,
	// nodefs.inodesFree).
	NodeFs Filesystem = iota
	// ImageFs is the filesystem holding container images (imagefs.available,
	// imagefs.inodesFree).
	ImageFs
	// ContainerFs is the filesystem holding container writable layers
	// (containerfs.available, containerfs.inodesFree).
	ContainerFs
)

// String returns "nodefs", "imagefs" or "containerfs", the signal prefix;
// values other than the three constants print as "nodefs".
func (f Filesystem) String() string {
	switch f {
	case ImageFs:
		return "imagefs"
	case ContainerFs:
		return "containerfs"
	default:
		return "nodefs"
	}
}
