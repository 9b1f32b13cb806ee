package ranking

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/thresholds"
)

// TestLocalStorageSpec covers the emptyDir sizeLimit, container and pod ephemeral-storage
// limit checks.
func TestLocalStorageSpec(t *testing.T) {
	es := func(s string) v1.ResourceList { return rl("ephemeral-storage", s) }
	vol := func(name string, used uint64) Usage {
		return Usage{Volumes: []VolumeUsage{{Name: name, FSUsage: FSUsage{UsedBytes: used}}}}
	}
	ctrUse := func(name string, root, logs uint64) Usage {
		return Usage{Containers: []ContainerUsage{{Name: name, Rootfs: FSUsage{UsedBytes: root}, Logs: FSUsage{UsedBytes: logs}}}}
	}
	imagefs := thresholds.Layout{DedicatedImageFs: true}
	tests := []struct {
		name   string
		pod    *v1.Pod
		usage  Usage
		layout thresholds.Layout
		opts   Options
		want   string // "" = no violation
	}{
		{"emptyDir over its limit", mkPod("p", volumes(emptyDirVol("scratch", "", "1Gi"))), vol("scratch", mib(2048)), thresholds.Layout{}, Options{},
			`Usage of EmptyDir volume "scratch" exceeds the limit "1Gi". `},
		{"emptyDir within its limit", mkPod("p", volumes(emptyDirVol("scratch", "", "1Gi"))), vol("scratch", mib(500)), thresholds.Layout{}, Options{}, ""},
		{"memory emptyDir, gate off: checked", mkPod("p", volumes(emptyDirVol("ram", v1.StorageMediumMemory, "1Gi"))), vol("ram", mib(2048)), thresholds.Layout{}, Options{},
			`Usage of EmptyDir volume "ram" exceeds the limit "1Gi". `},
		{"memory emptyDir, gate on: skipped", mkPod("p", volumes(emptyDirVol("ram", v1.StorageMediumMemory, "1Gi"))), vol("ram", mib(2048)), thresholds.Layout{},
			Options{InPlacePodVerticalScalingMemoryBackedVolumes: true}, ""},
		{"sizeLimit 0", mkPod("p", volumes(emptyDirVol("scratch", "", "0"))), vol("scratch", mib(2048)), thresholds.Layout{}, Options{}, ""},
		{"no sizeLimit", mkPod("p", volumes(emptyDirVol("scratch", "", ""))), vol("scratch", mib(2048)), thresholds.Layout{}, Options{}, ""},
		{"no stats for the volume", mkPod("p", volumes(emptyDirVol("scratch", "", "1Gi"))), vol("other", mib(2048)), thresholds.Layout{}, Options{}, ""},
		{"last stats entry of a name wins", mkPod("p", volumes(emptyDirVol("scratch", "", "1Gi"))),
			Usage{Volumes: []VolumeUsage{{Name: "scratch", FSUsage: FSUsage{UsedBytes: mib(4096)}}, {Name: "scratch", FSUsage: FSUsage{UsedBytes: 1}}}}, thresholds.Layout{}, Options{}, ""},
		{"container rootfs over", mkPod("p", containers(ctr("c", nil, es("1Gi")))), ctrUse("c", mib(2048), 0), thresholds.Layout{}, Options{},
			`Container c exceeded its local ephemeral storage limit "1Gi". `},
		{"container logs over", mkPod("p", containers(ctr("c", nil, es("1Gi")))), ctrUse("c", 0, mib(2048)), thresholds.Layout{}, Options{},
			`Container c exceeded its local ephemeral storage limit "1Gi". `},
		{"dedicated imagefs: rootfs not counted", mkPod("p", containers(ctr("c", nil, es("1Gi")))), ctrUse("c", mib(2048), 0), imagefs, Options{}, ""},
		{"dedicated imagefs: logs counted", mkPod("p", containers(ctr("c", nil, es("1Gi")))), ctrUse("c", 0, mib(2048)), imagefs, Options{},
			`Container c exceeded its local ephemeral storage limit "1Gi". `},
		{"sidecar limit", mkPod("p", initContainers(sidecar("s", nil, es("10Mi"))), containers(ctr("c", nil, nil))), ctrUse("s", mib(50), mib(50)), thresholds.Layout{}, Options{},
			`Container s exceeded its local ephemeral storage limit "10Mi". `},
		{"plain init container ignored", mkPod("p", initContainers(ctr("i", nil, es("10Mi"))), containers(ctr("c", nil, nil))), ctrUse("i", mib(50), mib(50)), thresholds.Layout{}, Options{}, ""},
		{"pod limit", mkPod("p", containers(ctr("a", nil, es("400Mi")), ctr("b", nil, es("400Mi")))), Usage{EphemeralStorage: mib(1600)}, thresholds.Layout{}, Options{},
			"Pod ephemeral local storage usage exceeds the total limit of containers 800Mi. "},
		{"explicit zero limit: any usage", mkPod("p", containers(ctr("a", nil, es("0")), ctr("b", nil, nil))), Usage{EphemeralStorage: 1}, thresholds.Layout{}, Options{},
			"Pod ephemeral local storage usage exceeds the total limit of containers 0. "},
		{"no limit at all", mkPod("p", containers(ctr("a", nil, nil))), Usage{EphemeralStorage: mib(1 << 20)}, thresholds.Layout{}, Options{}, ""},
		{"emptyDir checked before the pod limit", mkPod("p", volumes(emptyDirVol("scratch", "", "1Gi")), containers(ctr("a", nil, es("1Mi")))),
			Usage{EphemeralStorage: mib(4096), Volumes: []VolumeUsage{{Name: "scratch", FSUsage: FSUsage{UsedBytes: mib(4096)}}}}, thresholds.Layout{}, Options{},
			`Usage of EmptyDir volume "scratch" exceeds the limit "1Gi". `},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.pod.DeepCopy()
			msg, ok := LocalStorageViolation(tc.pod, tc.usage, tc.layout, tc.opts)
			assert.Equal(t, tc.want != "", ok)
			assert.Equal(t, tc.want, msg)
			assert.Equal(t, before, tc.pod)
		})
	}
	_, ok := LocalStorageViolation(nil, Usage{}, thresholds.Layout{}, Options{})
	assert.False(t, ok)
}

func TestLocalStorageEvictions(t *testing.T) {
	es := rl("ephemeral-storage", "1Gi")
	over := mkPod("over", containers(ctr("c", nil, es)))
	over2 := mkPod("over2", containers(ctr("c", nil, es)))
	critical := mkPod("critical", priority(SystemCriticalPriority), containers(ctr("c", nil, es)))
	noStats := mkPod("nostats", containers(ctr("c", nil, es)))
	within := mkPod("within", containers(ctr("c", nil, es)))
	usage := usageMap(map[string]Usage{
		"over":     {EphemeralStorage: mib(2048)},
		"over2":    {Containers: []ContainerUsage{{Name: "c", Logs: FSUsage{UsedBytes: mib(2048)}}}},
		"critical": {EphemeralStorage: mib(2048)},
		"within":   {EphemeralStorage: mib(10)},
	})
	got := LocalStorageEvictions([]*v1.Pod{over, critical, noStats, within, over2}, usage, thresholds.Layout{}, Options{})
	require.Len(t, got, 2)
	assert.Same(t, over, got[0].Pod)
	assert.Equal(t, "Pod ephemeral local storage usage exceeds the total limit of containers 1Gi. ", got[0].Message)
	assert.Same(t, over2, got[1].Pod)
	assert.Equal(t, `Container c exceeded its local ephemeral storage limit "1Gi". `, got[1].Message)
	assert.Equal(t, int64(1), LocalStorageGracePeriodSeconds)
	assert.Empty(t, LocalStorageEvictions(nil, usage, thresholds.Layout{}, Options{}))
}
