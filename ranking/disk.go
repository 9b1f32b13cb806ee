package ranking

import "github.com/evictkit/eviction/thresholds"

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
// on filesystem fs under layout (upstream: buildSignalToRankFunc); a signal's filesystem is
// [thresholds.Signal.Filesystem]:
//
//	layout                    nodefs                     imagefs        containerfs
//	no dedicated imagefs      images+root+logs+volumes   same           same
//	imagefs, not split        logs+volumes               root+images    root+images
//	imagefs, split            logs+volumes+root          images         logs+volumes+root
func DiskSources(fs thresholds.Filesystem, layout thresholds.Layout) Sources {
	const all = SourceImages | SourceRoot | SourceLogs | SourceLocalVolumes
	switch {
	case !layout.DedicatedImageFs:
		return all
	case !layout.SplitContainerImageFs:
		if fs == thresholds.ImageFs || fs == thresholds.ContainerFs {
			return SourceRoot | SourceImages
		}
		return SourceLogs | SourceLocalVolumes
	default:
		if fs == thresholds.ImageFs {
			return SourceImages
		}
		return SourceLogs | SourceLocalVolumes | SourceRoot
	}
}
