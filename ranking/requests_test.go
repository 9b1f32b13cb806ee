package ranking

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/thresholds"
)

// TestRequestSpec covers the kubelet's ranking request: sidecars, init containers, overhead,
// pod-level requests and the gate, and the corners of the formula.
func TestRequestSpec(t *testing.T) {
	mem := func(s string) v1.ResourceList { return rl("memory", s) }
	tests := []struct {
		name string
		pod  *v1.Pod
		res  v1.ResourceName
		opts Options
		want string
	}{
		{"sidecar before init", mkPod("p", containers(ctr("c", mem("100Mi"), nil)),
			initContainers(sidecar("s", mem("50Mi"), nil), ctr("i", mem("200Mi"), nil))), v1.ResourceMemory, Options{}, "250Mi"},
		{"init before sidecar", mkPod("p", containers(ctr("c", mem("100Mi"), nil)),
			initContainers(ctr("i", mem("200Mi"), nil), sidecar("s", mem("50Mi"), nil))), v1.ResourceMemory, Options{}, "200Mi"},
		{"overhead added to a non-zero request", mkPod("p", containers(ctr("c", mem("100Mi"), nil)),
			overhead(mem("10Mi"))), v1.ResourceMemory, Options{}, "110Mi"},
		{"overhead not added to a zero request", mkPod("p", containers(ctr("c", nil, nil)),
			overhead(mem("10Mi"))), v1.ResourceMemory, Options{}, "0"},
		{"pod-level memory request", mkPod("p", containers(ctr("c", nil, nil)),
			podResources(mem("250Mi"), nil)), v1.ResourceMemory, Options{}, "250Mi"},
		{"pod-level set: container ephemeral-storage ignored", mkPod("p",
			containers(ctr("c", rl("ephemeral-storage", "1Gi"), nil)),
			podResources(mem("250Mi"), nil)), v1.ResourceEphemeralStorage, Options{}, "0"},
		{"pod-level limits only: request 0", mkPod("p", containers(ctr("c", mem("1Gi"), nil)),
			podResources(nil, mem("2Gi"))), v1.ResourceMemory, Options{}, "0"},
		{"gate off: containers, but a pod-level request still replaces them", mkPod("p",
			containers(ctr("c", rl("memory", "1Gi", "ephemeral-storage", "1Gi"), nil)),
			podResources(mem("250Mi"), nil)), v1.ResourceMemory, Options{DisablePodLevelResources: true}, "250Mi"},
		{"gate off: unsupported resources from containers", mkPod("p",
			containers(ctr("c", rl("memory", "1Gi", "ephemeral-storage", "1Gi"), nil)),
			podResources(mem("250Mi"), nil)), v1.ResourceEphemeralStorage, Options{DisablePodLevelResources: true}, "1Gi"},
		{"inodes are never requested by valid pods", mkPod("p", containers(ctr("c", rl("ephemeral-storage", "1Gi"), nil))),
			thresholds.ResourceInodes, Options{}, "0"},
		{"two sidecars accumulate", mkPod("p", containers(ctr("c", mem("10Mi"), nil)),
			initContainers(sidecar("s1", mem("20Mi"), nil), sidecar("s2", mem("30Mi"), nil), ctr("i", mem("50Mi"), nil))),
			v1.ResourceMemory, Options{}, "100Mi"},
		{"init only", mkPod("p", initContainers(ctr("i", mem("50Mi"), nil))), v1.ResourceMemory, Options{}, "50Mi"},
		{"nil pod", nil, v1.ResourceMemory, Options{}, "0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before *v1.Pod
			if tc.pod != nil {
				before = tc.pod.DeepCopy()
			}
			got := Request(tc.pod, tc.res, tc.opts)
			want := resource.MustParse(tc.want)
			assert.Zero(t, want.Cmp(got), "Request = %s, want %s", got.String(), tc.want)
			assert.Equal(t, before, tc.pod)
		})
	}
}

// TestLimit checks the pod limit the local-storage check uses.
func TestLimit(t *testing.T) {
	es := func(s string) v1.ResourceList { return rl("ephemeral-storage", s) }
	tests := []struct {
		name   string
		pod    *v1.Pod
		want   string
		wantOK bool
	}{
		{"no limits", mkPod("p", containers(ctr("c", nil, nil))), "0", false},
		{"sum of containers that set one", mkPod("p", containers(ctr("a", nil, es("1Gi")), ctr("b", nil, nil), ctr("c", nil, es("1Gi")))), "2Gi", true},
		{"explicit zero counts", mkPod("p", containers(ctr("a", nil, es("0")))), "0", true},
		{"init by max, sidecars added", mkPod("p", containers(ctr("a", nil, es("1Gi"))),
			initContainers(ctr("i", nil, es("3Gi")), sidecar("s", nil, es("1Gi")))), "3Gi", true},
		{"overhead added to non-zero", mkPod("p", containers(ctr("a", nil, es("1Gi"))), overhead(es("1Gi"))), "2Gi", true},
		{"overhead not added to zero", mkPod("p", containers(ctr("a", nil, es("0"))), overhead(es("1Gi"))), "0", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Limit(tc.pod, v1.ResourceEphemeralStorage)
			assert.Equal(t, tc.wantOK, ok)
			want := resource.MustParse(tc.want)
			assert.Zero(t, want.Cmp(got), "Limit = %s, want %s", got.String(), tc.want)
		})
	}
	_, ok := Limit(nil, v1.ResourceMemory)
	assert.False(t, ok)
	got, ok := Limit(mkPod("p", containers(ctr("a", nil, rl("memory", "1Gi"))), podResources(nil, rl("memory", "3Gi"))), v1.ResourceMemory)
	assert.True(t, ok)
	assert.Equal(t, "3Gi", got.String(), "pod-level limit replaces the containers'")
}

// TestLocalVolumes covers which volumes count as local (host paths, disk-backed emptyDir,
// config maps, git repos) and how their disk usage is summed.
func TestLocalVolumes(t *testing.T) {
	vols := []v1.Volume{
		hostPathVol("host"),
		emptyDirVol("disk", v1.StorageMediumDefault, ""),
		emptyDirVol("ram", v1.StorageMediumMemory, ""),
		configMapVol("cm"),
		secretVol("secret"),
		{Name: "git", VolumeSource: v1.VolumeSource{GitRepo: &v1.GitRepoVolumeSource{}}},
		emptyDirVol("huge", v1.StorageMediumHugePages, ""),
	}
	var local []string
	for i := range vols {
		if IsLocalVolume(&vols[i]) {
			local = append(local, vols[i].Name)
		}
	}
	assert.Equal(t, []string{"host", "disk", "cm", "git"}, local)

	// Disk usage counts local volumes only, the first stats entry per name.
	pod := mkPod("p", volumes(vols...))
	u := Usage{Volumes: []VolumeUsage{
		{Name: "host", FSUsage: FSUsage{UsedBytes: 1, InodesUsed: 10}},
		{Name: "host", FSUsage: FSUsage{UsedBytes: 1000, InodesUsed: 1000}},
		{Name: "disk", FSUsage: FSUsage{UsedBytes: 2, InodesUsed: 20}},
		{Name: "ram", FSUsage: FSUsage{UsedBytes: 4, InodesUsed: 40}},
		{Name: "cm", FSUsage: FSUsage{UsedBytes: 8, InodesUsed: 80}},
		{Name: "secret", FSUsage: FSUsage{UsedBytes: 16, InodesUsed: 160}},
	}}
	b := DiskUsage(pod, u, SourceLocalVolumes, v1.ResourceEphemeralStorage)
	assert.Equal(t, int64(11), b.Value())
	in := DiskUsage(pod, u, SourceLocalVolumes, thresholds.ResourceInodes)
	assert.Equal(t, int64(110), in.Value())
	zero := DiskUsage(pod, u, SourceRoot|SourceLogs, v1.ResourceEphemeralStorage)
	assert.True(t, zero.IsZero())
	other := DiskUsage(pod, u, SourceLocalVolumes, v1.ResourceMemory)
	assert.True(t, other.IsZero(), "other resources read zero")
}

func TestPriority(t *testing.T) {
	assert.Equal(t, int32(0), Priority(nil))
	assert.Equal(t, int32(0), Priority(mkPod("p")))
	assert.Equal(t, int32(-5), Priority(mkPod("p", priority(-5))))
}

func TestDiskSources(t *testing.T) {
	all := SourceImages | SourceRoot | SourceLogs | SourceLocalVolumes
	tests := []struct {
		layout                      thresholds.Layout
		nodefs, imagefs, containerf Sources
	}{
		{thresholds.Layout{}, all, all, all},
		{thresholds.Layout{SplitContainerImageFs: true}, all, all, all},
		{thresholds.Layout{DedicatedImageFs: true}, SourceLogs | SourceLocalVolumes, SourceRoot | SourceImages, SourceRoot | SourceImages},
		{thresholds.Layout{DedicatedImageFs: true, SplitContainerImageFs: true}, SourceLogs | SourceLocalVolumes | SourceRoot, SourceImages, SourceLogs | SourceLocalVolumes | SourceRoot},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.nodefs, DiskSources(thresholds.NodeFs, tc.layout), "%+v nodefs", tc.layout)
		assert.Equal(t, tc.imagefs, DiskSources(thresholds.ImageFs, tc.layout), "%+v imagefs", tc.layout)
		assert.Equal(t, tc.containerf, DiskSources(thresholds.ContainerFs, tc.layout), "%+v containerfs", tc.layout)
		assert.Equal(t, tc.nodefs, DiskSources(thresholds.Filesystem(9), tc.layout), "unknown filesystem ranks as nodefs")
	}
	assert.Equal(t, "nodefs", thresholds.NodeFs.String())
	assert.Equal(t, "imagefs", thresholds.ImageFs.String())
	assert.Equal(t, "containerfs", thresholds.ContainerFs.String())
}

// TestCeilInt64 checks the saturating ceiling behind the sort keys, including values in
// big-decimal form and extreme exponents (a fuzzing regression: building 10^8000000 took
// seconds).
func TestCeilInt64(t *testing.T) {
	dec := func(base, add string) resource.Quantity {
		q := resource.MustParse(base)
		q.Add(resource.MustParse(add))
		q.Sub(resource.MustParse(base))
		return q
	}
	tests := []struct {
		name string
		q    resource.Quantity
		want int64
	}{
		{"fraction up", resource.MustParse("1500m"), 2},
		{"negative fraction up", resource.MustParse("-1500m"), -1},
		{"nano", resource.MustParse("1n"), 1},
		{"negative nano", resource.MustParse("-1n"), 0},
		{"max", resource.MustParse("9223372036854775807"), math.MaxInt64},
		{"above max", resource.MustParse("9223372036854775808"), math.MaxInt64},
		{"below min", resource.MustParse("-9223372036854775809"), math.MinInt64},
		{"milli beyond int64", resource.MustParse("12345678901234567890123m"), math.MaxInt64},
		{"huge exponent", resource.MustParse("100E0000000000000008000000"), math.MaxInt64},
		{"huge negative exponent", resource.MustParse("-1e8000000"), math.MinInt64},
		{"big-decimal tiny positive", dec("1e30", "1n"), 1},
		{"big-decimal tiny negative", dec("1e30", "-1n"), 0},
		{"big-decimal integer", dec("1e30", "-5"), -5},
		{"zero", resource.MustParse("0"), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ceilInt64(tc.q))
		})
	}
}
