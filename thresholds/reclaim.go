package thresholds

// ReclaimAction is a node-level garbage collection the kubelet runs before
// evicting pods for a filesystem signal.
type ReclaimAction string

// Node-level reclaim actions, named after the kubelet's garbage collectors.
const (
	// DeleteAllUnusedContainers removes dead containers.
	DeleteAllUnusedContainers ReclaimAction = "DeleteAllUnusedContainers"
	// DeleteUnusedImages removes images no container uses.
	DeleteUnusedImages ReclaimAction = "DeleteUnusedImages"
)

// NodeReclaimActions returns, in the order the kubelet runs them, the
// garbage collections that may relieve pressure on sig under layout l:
//
//	layout            nodefs.*            imagefs.*           containerfs.*
//	single fs         containers, images  containers, images  as nodefs
//	imagefs           none                containers, images  as imagefs
//	imagefs + split   containers          images              as nodefs
//
// Memory and PID signals have none. After running them the kubelet re-reads
// the statistics and skips pod eviction if no configured threshold is met
// with minimum reclaim enforced ([Evaluator.ReclaimSatisfied]). With no
// action, pods are evicted.
func NodeReclaimActions(sig Signal, l Layout) []ReclaimAction {
	both := []ReclaimAction{DeleteAllUnusedContainers, DeleteUnusedImages}
	imagefs := l.DedicatedImageFs && !l.SplitContainerImageFs
	split := l.DedicatedImageFs && l.SplitContainerImageFs
	switch sig {
	case ContainerFsAvailable:
		sig = NodeFsAvailable
		if imagefs {
			sig = ImageFsAvailable
		}
	case ContainerFsInodesFree:
		sig = NodeFsInodesFree
		if imagefs {
			sig = ImageFsInodesFree
		}
	}
	switch sig {
	case NodeFsAvailable, NodeFsInodesFree:
		switch {
		case imagefs:
			return nil
		case split:
			return []ReclaimAction{DeleteAllUnusedContainers}
		}
		return both
	case ImageFsAvailable, ImageFsInodesFree:
		if split {
			return []ReclaimAction{DeleteUnusedImages}
		}
		return both
	}
	return nil
}
