// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// tests can call the package's unexported helpers. It only names them.

package eviction

import (
	v1 "k8s.io/api/core/v1"

	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
)

// The stats readers of the rank functions and the local-storage checks.
var (
	MemoryUsage  = memoryUsage
	ProcessUsage = processUsage
	DiskUsage    = diskUsage
	InodeUsage   = inodeUsage
	PodDiskUsage = podDiskUsage
)

// FsStatsType and its values name what podDiskUsage measures.
type FsStatsType = fsStatsType

const (
	FsStatsRoot              = fsStatsRoot
	FsStatsLogs              = fsStatsLogs
	FsStatsLocalVolumeSource = fsStatsLocalVolumeSource
	FsStatsImages            = fsStatsImages
)

// NewAdmitter returns the eviction manager's admission handler as it stands
// after a cycle that reported conditions.
func NewAdmitter(conditions []v1.NodeConditionType) lifecycle.PodAdmitHandler {
	return &managerImpl{nodeConditions: conditions}
}
