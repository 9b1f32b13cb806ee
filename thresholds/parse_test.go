package thresholds

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseConfig(t *testing.T) {
	mem := func(v Value, grace time.Duration, minReclaim *Value) Threshold {
		return Threshold{Signal: MemoryAvailable, Value: v, GracePeriod: grace, MinReclaim: minReclaim}
	}
	alloc := func(v Value, minReclaim *Value) Threshold {
		return Threshold{Signal: AllocatableMemoryAvailable, Value: v, MinReclaim: minReclaim}
	}
	// These cases pass an explicit allocatable list to upstream's
	// ParseThresholdConfig, empty unless they say "allocatable pods"; a nil
	// EnforceNodeAllocatable would be the kubelet's default, ["pods"].
	none := []string{}
	tests := []struct {
		name string
		c    Config
		want []Threshold
	}{
		{
			name: "all maps empty",
			c: Config{Hard: map[string]string{}, Soft: map[string]string{},
				SoftGracePeriod: map[string]string{}, MinimumReclaim: map[string]string{}, EnforceNodeAllocatable: none},
			want: nil,
		},
		{
			name: "all maps empty, default enforcement: nothing to copy",
			c: Config{Hard: map[string]string{}, Soft: map[string]string{},
				SoftGracePeriod: map[string]string{}, MinimumReclaim: map[string]string{}},
			want: nil,
		},
		{
			name: "hard, soft, grace, min-reclaim 0, allocatable pods",
			c: Config{
				Hard:                   map[string]string{"memory.available": "150Mi"},
				Soft:                   map[string]string{"memory.available": "300Mi"},
				SoftGracePeriod:        map[string]string{"memory.available": "30s"},
				MinimumReclaim:         map[string]string{"memory.available": "0"},
				EnforceNodeAllocatable: []string{"system-reserved", NodeAllocatablePods},
			},
			want: []Threshold{
				mem(qv("150Mi"), 0, mr(qv("0"))),
				mem(qv("300Mi"), 30*time.Second, mr(qv("0"))),
				alloc(qv("150Mi"), mr(qv("0"))),
			},
		},
		{
			name: "percentages with percentage min-reclaim",
			c: Config{
				Hard:                   map[string]string{"memory.available": "10%"},
				Soft:                   map[string]string{"memory.available": "30%"},
				SoftGracePeriod:        map[string]string{"memory.available": "30s"},
				MinimumReclaim:         map[string]string{"memory.available": "5%"},
				EnforceNodeAllocatable: none,
			},
			want: []Threshold{
				mem(pv(0.1), 0, mr(pv(0.05))),
				mem(pv(0.3), 30*time.Second, mr(pv(0.05))),
			},
		},
		{
			name: "fractional percentages as float32",
			c: Config{Hard: map[string]string{
				"imagefs.available": "15%", "nodefs.available": "10.5%", "nodefs.inodesFree": "25.5%",
			}, EnforceNodeAllocatable: none},
			want: []Threshold{
				{Signal: ImageFsAvailable, Value: pv(0.15)},
				{Signal: NodeFsAvailable, Value: pv(0.105)},
				{Signal: NodeFsInodesFree, Value: pv(0.255)},
			},
		},
		{
			name: "0% disables hard and soft, no grace needed",
			c: Config{
				Hard: map[string]string{"memory.available": "0%"},
				Soft: map[string]string{"memory.available": "0%"},
			},
			want: nil,
		},
		{
			name: "100% disables hard and soft, no grace needed",
			c: Config{
				Hard: map[string]string{"memory.available": "100%"},
				Soft: map[string]string{"memory.available": "100%"},
			},
			want: nil,
		},
		{
			name: "0.0% and 100.0% create thresholds",
			c:    Config{Hard: map[string]string{"memory.available": "0.0%", "nodefs.available": "100.0%"}, EnforceNodeAllocatable: none},
			want: []Threshold{mem(pv(0), 0, nil), {Signal: NodeFsAvailable, Value: pv(1)}},
		},
		{
			name: "soft with 0s grace becomes hard and gets an allocatable copy",
			c: Config{
				Soft:                   map[string]string{"memory.available": "300Mi"},
				SoftGracePeriod:        map[string]string{"memory.available": "0s"},
				Hard:                   map[string]string{},
				EnforceNodeAllocatable: []string{NodeAllocatablePods},
			},
			want: []Threshold{mem(qv("300Mi"), 0, nil), alloc(qv("300Mi"), nil)},
		},
		{
			name: "grace period without soft threshold is ignored",
			c: Config{
				Hard:                   map[string]string{"memory.available": "150Mi"},
				SoftGracePeriod:        map[string]string{"nodefs.available": "30s"},
				EnforceNodeAllocatable: none,
			},
			want: []Threshold{mem(qv("150Mi"), 0, nil)},
		},
		{
			name: "min-reclaim without threshold is ignored; hard and soft share one",
			c: Config{
				Hard:            map[string]string{"nodefs.available": "1Gi"},
				Soft:            map[string]string{"nodefs.available": "2Gi"},
				SoftGracePeriod: map[string]string{"nodefs.available": "1m30s"},
				MinimumReclaim:  map[string]string{"nodefs.available": "500Mi", "pid.available": "150%"},
			},
			want: []Threshold{
				{Signal: NodeFsAvailable, Value: qv("1Gi"), MinReclaim: mr(qv("500Mi"))},
				{Signal: NodeFsAvailable, Value: qv("2Gi"), GracePeriod: 90 * time.Second, MinReclaim: mr(qv("500Mi"))},
			},
		},
		{
			name: "non-memory hard and soft memory get no allocatable copy",
			c: Config{
				Hard:                   map[string]string{"nodefs.available": "1Gi"},
				Soft:                   map[string]string{"memory.available": "1Gi"},
				SoftGracePeriod:        map[string]string{"memory.available": "10s"},
				EnforceNodeAllocatable: []string{NodeAllocatablePods},
			},
			want: []Threshold{
				{Signal: NodeFsAvailable, Value: qv("1Gi")},
				mem(qv("1Gi"), 10*time.Second, nil),
			},
		},
		{
			name: "allocatable enforcement without pods adds nothing",
			c: Config{
				Hard:                   map[string]string{"memory.available": "1Gi"},
				EnforceNodeAllocatable: []string{"system-reserved", "kube-reserved"},
			},
			want: []Threshold{mem(qv("1Gi"), 0, nil)},
		},
		{
			// kubelet v1beta1 SetDefaults_KubeletConfiguration: a nil
			// enforceNodeAllocatable becomes ["pods"].
			name: "nil enforcement is the kubelet default, pods: hard memory copied",
			c: Config{
				Hard:            map[string]string{"memory.available": "150Mi", "nodefs.available": "1Gi"},
				Soft:            map[string]string{"memory.available": "300Mi"},
				SoftGracePeriod: map[string]string{"memory.available": "30s"},
				MinimumReclaim:  map[string]string{"memory.available": "50Mi"},
			},
			want: []Threshold{
				mem(qv("150Mi"), 0, mr(qv("50Mi"))),
				{Signal: NodeFsAvailable, Value: qv("1Gi")},
				mem(qv("300Mi"), 30*time.Second, mr(qv("50Mi"))),
				alloc(qv("150Mi"), mr(qv("50Mi"))),
			},
		},
		{
			// An explicit empty list (enforceNodeAllocatable: [] in the
			// config file, --enforce-node-allocatable= on the command line,
			// or --experimental-allocatable-ignore-eviction) means none.
			name: "empty non-nil enforcement means none: no copy",
			c:    Config{Hard: map[string]string{"memory.available": "150Mi"}, EnforceNodeAllocatable: []string{}},
			want: []Threshold{mem(qv("150Mi"), 0, nil)},
		},
		{
			name: "enforcement none: no copy",
			c:    Config{Hard: map[string]string{"memory.available": "150Mi"}, EnforceNodeAllocatable: []string{"none"}},
			want: []Threshold{mem(qv("150Mi"), 0, nil)},
		},
		{
			name: "percent signs: all trailing stripped, exponent allowed",
			c:    Config{Hard: map[string]string{"memory.available": "10%%", "nodefs.available": "1e1%"}, EnforceNodeAllocatable: none},
			want: []Threshold{mem(pv(0.1), 0, nil), {Signal: NodeFsAvailable, Value: pv(0.1)}},
		},
		{
			name: "tiny positive quantity accepted",
			c:    Config{Hard: map[string]string{"pid.available": "1m"}},
			want: []Threshold{{Signal: PIDAvailable, Value: qv("1m")}},
		},
		{
			name: "allocatableMemory.available may be configured directly",
			c:    Config{Hard: map[string]string{"allocatableMemory.available": "1Gi"}},
			want: []Threshold{alloc(qv("1Gi"), nil)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseConfig(tc.c)
			require.NoError(t, err)
			assertThresholds(t, tc.want, got)
		})
	}
}

func TestParseConfigFloat32Percentages(t *testing.T) {
	// The stored value is float32(number)/100 computed in float32.
	got, err := ParseConfig(Config{Hard: map[string]string{"nodefs.available": "10.5%"}})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, float32(0.105), got[0].Value.Percentage)
	assert.Nil(t, got[0].Value.Quantity)
}

func TestParseConfigZeroPercentNeverMet(t *testing.T) {
	// 0.0% resolves to 0, which is not greater than 0 available.
	ts, err := ParseConfig(Config{Hard: map[string]string{"memory.available": "0.0%"}, EnforceNodeAllocatable: []string{}})
	require.NoError(t, err)
	require.Len(t, ts, 1)
	o := Observations{MemoryAvailable: obs("0", "1000", t0)}
	assert.Empty(t, Met(ts, o, false))
	assert.Empty(t, Met(ts, o, true))
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name    string
		c       Config
		want    error
		message []string // substrings the message must contain
	}{
		{
			name:    "unsupported signal",
			c:       Config{Hard: map[string]string{"mem.available": "150Mi"}},
			want:    ErrUnsupportedSignal,
			message: []string{"unsupported eviction signal mem.available", "eviction-hard"},
		},
		{
			name: "valid and invalid mixed",
			c:    Config{Hard: map[string]string{"memory.available": "150Mi", "mem.available": "150Mi"}},
			want: ErrUnsupportedSignal,
		},
		{name: "negative quantity", c: hardOnly("-150Mi"), want: ErrInvalidThreshold, message: []string{"memory.available", "-150Mi", "positive"}},
		{name: "zero quantity", c: hardOnly("0"), want: ErrInvalidThreshold, message: []string{"positive"}},
		{name: "negative percentage", c: hardOnly("-15%"), want: ErrInvalidThreshold, message: []string{"-15%", ">= 0%"}},
		{name: "percentage above 100", c: hardOnly("150%"), want: ErrInvalidThreshold, message: []string{"150%", "<= 100%"}},
		{name: "empty value", c: hardOnly(""), want: ErrInvalidThreshold},
		{name: "malformed percentage", c: hardOnly("10..5%"), want: ErrInvalidThreshold, message: []string{"10..5%"}},
		{name: "malformed quantity", c: hardOnly("1x"), want: ErrInvalidThreshold, message: []string{"memory.available<1x"}},
		{name: "padded value is not trimmed", c: hardOnly(" 100Mi"), want: ErrInvalidThreshold},
		{name: "infinite percentage", c: hardOnly("inf%"), want: ErrInvalidThreshold},
		{name: "percentage out of float32 range", c: hardOnly("1e40%"), want: ErrInvalidThreshold},
		{
			// Upstream accepts NaN% and resolves it in a platform-specific way.
			name: "NaN percentage rejected (upstream accepts)",
			c:    hardOnly("NaN%"),
			want: ErrInvalidThreshold,
		},
		{
			name:    "soft without grace period",
			c:       Config{Soft: map[string]string{"memory.available": "150Mi"}},
			want:    ErrMissingGracePeriod,
			message: []string{"grace period must be specified for the soft eviction threshold memory.available"},
		},
		{
			name: "soft statement errors before missing grace",
			c:    Config{Soft: map[string]string{"memory.available": "0"}},
			want: ErrInvalidThreshold,
		},
		{name: "negative grace", c: graceOnly("memory.available", "-30s"), want: ErrInvalidGracePeriod, message: []string{"-30s", "positive"}},
		{name: "bad duration", c: graceOnly("memory.available", "30mins"), want: ErrInvalidGracePeriod, message: []string{"30mins"}},
		{name: "grace for unknown signal", c: graceOnly("mem.available", "30s"), want: ErrUnsupportedSignal, message: []string{"unsupported eviction signal mem.available"}},
		{name: "negative min-reclaim", c: reclaimOnly("memory.available", "-300Mi"), want: ErrInvalidMinReclaim, message: []string{"-300Mi", "negative"}},
		{name: "negative percentage min-reclaim", c: reclaimOnly("memory.available", "-15%"), want: ErrInvalidMinReclaim, message: []string{"positive"}},
		{name: "zero percentage min-reclaim", c: reclaimOnly("memory.available", "0%"), want: ErrInvalidMinReclaim, message: []string{"positive"}},
		{name: "empty min-reclaim", c: reclaimOnly("memory.available", ""), want: ErrInvalidMinReclaim},
		{name: "malformed percentage min-reclaim", c: reclaimOnly("memory.available", "10..5%"), want: ErrInvalidMinReclaim},
		{name: "min-reclaim for unknown signal", c: reclaimOnly("mem.available", "100Mi"), want: ErrUnsupportedSignal},
		{
			name: "hard errors are reported before soft errors",
			c: Config{
				Hard: map[string]string{"memory.available": "-1"},
				Soft: map[string]string{"mem.available": "1"},
			},
			want: ErrInvalidThreshold,
		},
		{
			name:    "keys are checked in lexicographic order",
			c:       Config{Hard: map[string]string{"nodefs.available": "-1", "imagefs.available": "x"}},
			want:    ErrInvalidThreshold,
			message: []string{"imagefs.available<x"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseConfig(tc.c)
			require.ErrorIs(t, err, tc.want)
			assert.Nil(t, got)
			for _, m := range tc.message {
				assert.Contains(t, err.Error(), m)
			}
			assert.True(t, strings.HasPrefix(err.Error(), "thresholds: "), err.Error())
			assert.Equal(t, 1, countSentinels(err), "exactly one sentinel: %v", err)
		})
	}
}

func TestParseConfigMinReclaimAccepted(t *testing.T) {
	// 0 and 150% are valid minimum reclaims.
	for _, v := range []string{"0", "150%"} {
		t.Run(v, func(t *testing.T) {
			ts, err := ParseConfig(Config{
				Hard:                   map[string]string{"memory.available": "1Gi"},
				MinimumReclaim:         map[string]string{"memory.available": v},
				EnforceNodeAllocatable: []string{},
			})
			require.NoError(t, err)
			require.Len(t, ts, 1)
			require.NotNil(t, ts[0].MinReclaim)
			assert.Equal(t, v, ts[0].MinReclaim.String())
		})
	}
}

func hardOnly(v string) Config {
	return Config{Hard: map[string]string{"memory.available": v}}
}

func graceOnly(k, v string) Config {
	return Config{Hard: map[string]string{}, SoftGracePeriod: map[string]string{k: v}}
}

func reclaimOnly(k, v string) Config {
	return Config{Hard: map[string]string{"memory.available": "1Gi"}, MinimumReclaim: map[string]string{k: v}}
}

var sentinels = []error{
	ErrUnsupportedSignal, ErrInvalidThreshold, ErrInvalidGracePeriod, ErrMissingGracePeriod,
	ErrInvalidMinReclaim, ErrMalformedPair, ErrContainerFsOverride, ErrSplitFsDisabled,
	ErrConflictingThresholds,
}

func countSentinels(err error) int {
	n := 0
	for _, s := range sentinels {
		if errors.Is(err, s) {
			n++
		}
	}
	return n
}

func TestDefaults(t *testing.T) {
	// And the minimum-reclaim examples.
	tests := []struct {
		os   OS
		want map[string]string
	}{
		{"", map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%", "imagefs.inodesFree": "5%"}},
		{Linux, map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%", "imagefs.inodesFree": "5%"}},
		{Windows, map[string]string{"memory.available": "500Mi", "nodefs.available": "10%", "imagefs.available": "15%"}},
		{Other, map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "imagefs.available": "15%"}},
		{"darwin", map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "imagefs.available": "15%"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.os), func(t *testing.T) {
			assert.Equal(t, tc.want, Defaults(tc.os))
		})
	}
}

func TestParseConfigDefaults(t *testing.T) {
	linuxDefaults := []Threshold{
		{Signal: ImageFsAvailable, Value: pv(0.15)},
		{Signal: ImageFsInodesFree, Value: pv(0.05)},
		{Signal: MemoryAvailable, Value: qv("100Mi")},
		{Signal: NodeFsAvailable, Value: pv(0.1)},
		{Signal: NodeFsInodesFree, Value: pv(0.05)},
	}
	// A kubelet with default settings also enforces node allocatable for
	// pods, which copies memory.available<100Mi to
	// allocatableMemory.available: 6 hard thresholds on Linux.
	defaultKubelet := append(slices.Clone(linuxDefaults), Threshold{Signal: AllocatableMemoryAvailable, Value: qv("100Mi")})
	none := []string{} // no allocatable enforcement
	tests := []struct {
		name string
		c    Config
		want []Threshold
	}{
		{name: "hard map absent gives the Linux defaults", c: Config{EnforceNodeAllocatable: none}, want: linuxDefaults},
		{name: "zero Config is a default kubelet: 6 hard thresholds on Linux", c: Config{}, want: defaultKubelet},
		{name: "zero Config with explicit pods enforcement", c: Config{EnforceNodeAllocatable: []string{NodeAllocatablePods}}, want: defaultKubelet},
		{
			name: "user hard map without merge replaces the defaults",
			c:    Config{Hard: map[string]string{"memory.available": "200Mi"}, EnforceNodeAllocatable: none},
			want: []Threshold{{Signal: MemoryAvailable, Value: qv("200Mi")}},
		},
		{
			name: "user hard map without merge, default enforcement",
			c:    Config{Hard: map[string]string{"memory.available": "200Mi"}},
			want: []Threshold{{Signal: MemoryAvailable, Value: qv("200Mi")}, {Signal: AllocatableMemoryAvailable, Value: qv("200Mi")}},
		},
		{
			name: "user hard map with merge keeps the other defaults",
			c:    Config{Hard: map[string]string{"memory.available": "200Mi"}, MergeDefaults: true, EnforceNodeAllocatable: none},
			want: []Threshold{
				{Signal: ImageFsAvailable, Value: pv(0.15)},
				{Signal: ImageFsInodesFree, Value: pv(0.05)},
				{Signal: MemoryAvailable, Value: qv("200Mi")},
				{Signal: NodeFsAvailable, Value: pv(0.1)},
				{Signal: NodeFsInodesFree, Value: pv(0.05)},
			},
		},
		{
			name: "merge with 0% disables one default",
			c:    Config{Hard: map[string]string{"imagefs.inodesFree": "0%", "nodefs.inodesFree": "100%"}, MergeDefaults: true},
			want: []Threshold{
				{Signal: ImageFsAvailable, Value: pv(0.15)},
				{Signal: MemoryAvailable, Value: qv("100Mi")},
				{Signal: NodeFsAvailable, Value: pv(0.1)},
				{Signal: AllocatableMemoryAvailable, Value: qv("100Mi")},
			},
		},
		{
			name: "merge into an empty map gives all defaults",
			c:    Config{Hard: map[string]string{}, MergeDefaults: true, EnforceNodeAllocatable: none},
			want: linuxDefaults,
		},
		{
			name: "merge without a hard map is the defaults",
			c:    Config{MergeDefaults: true},
			want: defaultKubelet,
		},
		{
			// The kubelet passes enforceNodeAllocatable to
			// ParseThresholdConfig on Windows too (its validation only
			// warns that enforcement is not supported there).
			name: "Windows defaults",
			c:    Config{OS: Windows},
			want: []Threshold{
				{Signal: ImageFsAvailable, Value: pv(0.15)},
				{Signal: MemoryAvailable, Value: qv("500Mi")},
				{Signal: NodeFsAvailable, Value: pv(0.1)},
				{Signal: AllocatableMemoryAvailable, Value: qv("500Mi")},
			},
		},
		{
			name: "Windows merge",
			c:    Config{OS: Windows, Hard: map[string]string{"nodefs.available": "5%"}, MergeDefaults: true, EnforceNodeAllocatable: none},
			want: []Threshold{
				{Signal: ImageFsAvailable, Value: pv(0.15)},
				{Signal: MemoryAvailable, Value: qv("500Mi")},
				{Signal: NodeFsAvailable, Value: pv(0.05)},
			},
		},
		{
			name: "no defaults for soft thresholds",
			c:    Config{Hard: map[string]string{}, Soft: map[string]string{}},
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hard := maps.Clone(tc.c.Hard)
			got, err := ParseConfig(tc.c)
			require.NoError(t, err)
			assertThresholds(t, tc.want, got)
			assert.Equal(t, hard, tc.c.Hard, "merge must not modify the caller's map")
		})
	}
}

func TestParseConfigAllocatableCopies(t *testing.T) {
	// Two hard memory thresholds (built directly, as no flag map can
	// hold two) get two copies with matching values and minimum reclaims.
	in := []Threshold{
		{Signal: MemoryAvailable, Value: qv("150Mi"), MinReclaim: mr(qv("0"))},
		{Signal: MemoryAvailable, Value: qv("200Mi"), MinReclaim: mr(qv("1Gi"))},
		{Signal: MemoryAvailable, Value: qv("300Mi"), GracePeriod: time.Minute},
	}
	got := withAllocatable(slices.Clone(in))
	want := append(slices.Clone(in),
		Threshold{Signal: AllocatableMemoryAvailable, Value: qv("150Mi"), MinReclaim: mr(qv("0"))},
		Threshold{Signal: AllocatableMemoryAvailable, Value: qv("200Mi"), MinReclaim: mr(qv("1Gi"))},
	)
	assertThresholds(t, want, got)
}
