package tolerations

import (
	"testing"

	"github.com/evictkit/eviction/taints"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

func TestWithDefaultSeconds(t *testing.T) {
	notReady300 := tol(taints.KeyNotReady, exists, "", noExec, 300)
	unreachable300 := tol(taints.KeyUnreachable, exists, "", noExec, 300)
	tests := []struct {
		name        string
		tols        []v1.Toleration
		opts        DefaultSecondsOptions
		want        []v1.Toleration
		wantChanged bool
	}{
		{"no tolerations", nil, DefaultSecondsOptions{}, []v1.Toleration{notReady300, unreachable300}, true},
		{
			"unreachable without effect covers unreachable",
			[]v1.Toleration{tol(taints.KeyUnreachable, exists, "", "", 700)}, DefaultSecondsOptions{},
			[]v1.Toleration{tol(taints.KeyUnreachable, exists, "", "", 700), notReady300}, true,
		},
		{"empty key covers both", []v1.Toleration{tol("", exists, "", "", 700)}, DefaultSecondsOptions{}, []v1.Toleration{tol("", exists, "", "", 700)}, false},
		{
			"not-ready Equal x covers not-ready (pitfall)",
			[]v1.Toleration{tol(taints.KeyNotReady, equal, "x", noExec)}, DefaultSecondsOptions{},
			[]v1.Toleration{tol(taints.KeyNotReady, equal, "x", noExec), unreachable300}, true,
		},
		{
			"NoSchedule toleration does not cover",
			[]v1.Toleration{tol("", exists, "", noSched)}, DefaultSecondsOptions{},
			[]v1.Toleration{tol("", exists, "", noSched), notReady300, unreachable300}, true,
		},
		{
			"flag values", nil, DefaultSecondsOptions{NotReady: secs(0), Unreachable: secs(60)},
			[]v1.Toleration{tol(taints.KeyNotReady, exists, "", noExec, 0), tol(taints.KeyUnreachable, exists, "", noExec, 60)}, true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := deepClone(tc.tols)
			got, changed := WithDefaultSeconds(tc.tols, tc.opts)
			assert.Equal(t, tc.wantChanged, changed)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, before, tc.tols, "input mutated")
		})
	}
}

func TestWithDefaultSecondsOwnPointers(t *testing.T) {
	// Upstream hands every pod a pointer to one shared variable; here each call gets its own.
	flag := int64(42)
	opts := DefaultSecondsOptions{NotReady: &flag, Unreachable: &flag}
	a, _ := WithDefaultSeconds(nil, opts)
	b, _ := WithDefaultSeconds(nil, opts)
	require.Len(t, a, 2)
	require.Len(t, b, 2)
	assert.NotSame(t, a[0].TolerationSeconds, b[0].TolerationSeconds)
	assert.NotSame(t, a[0].TolerationSeconds, a[1].TolerationSeconds)
	assert.NotSame(t, &flag, a[0].TolerationSeconds)
	*a[0].TolerationSeconds = 1
	assert.Equal(t, int64(42), *b[0].TolerationSeconds)
	assert.Equal(t, int64(42), flag)
}

func TestWithDefaultSecondsDoesNotAlias(t *testing.T) {
	tols := make([]v1.Toleration, 1, 10) // spare capacity an append would reuse
	tols[0] = tol("x", exists, "", noSched)
	got, _ := WithDefaultSeconds(tols, DefaultSecondsOptions{})
	got[0].Key = "changed"
	assert.Equal(t, "x", tols[0].Key)
	assert.Equal(t, v1.Toleration{}, tols[:2][1], "spare capacity untouched")
}

func TestPodSpecWithDefaultSeconds(t *testing.T) {
	spec := &v1.PodSpec{NodeName: "n", Tolerations: []v1.Toleration{tol(taints.KeyNotReady, exists, "", noExec, 5)}}
	got := PodSpecWithDefaultSeconds(spec, DefaultSecondsOptions{})
	assert.Equal(t, "n", got.NodeName)
	assert.Equal(t, []v1.Toleration{tol(taints.KeyNotReady, exists, "", noExec, 5), tol(taints.KeyUnreachable, exists, "", noExec, 300)}, got.Tolerations)
	assert.Len(t, spec.Tolerations, 1, "input mutated")
	assert.NotSame(t, spec.Tolerations[0].TolerationSeconds, got.Tolerations[0].TolerationSeconds, "deep copy")
	assert.Nil(t, PodSpecWithDefaultSeconds(nil, DefaultSecondsOptions{}))
}

func TestDaemonSet(t *testing.T) {
	want := []v1.Toleration{
		tol(taints.KeyNotReady, exists, "", noExec),
		tol(taints.KeyUnreachable, exists, "", noExec),
		tol(taints.KeyDiskPressure, exists, "", noSched),
		tol(taints.KeyMemoryPressure, exists, "", noSched),
		tol(taints.KeyPIDPressure, exists, "", noSched),
		tol(taints.KeyUnschedulable, exists, "", noSched),
	}
	assert.Equal(t, want, DaemonSet(DaemonSetOptions{}))
	assert.Equal(t, append(want, tol(taints.KeyNetworkUnavailable, exists, "", noSched)), DaemonSet(DaemonSetOptions{HostNetwork: true}))

	// A daemon pod survives not-ready and unreachable NoExecute taints forever.
	node := []v1.Taint{taints.NotReadyNoExecute(), taints.UnreachableNoExecute(), {Key: taints.KeyUnschedulable, Effect: noSched}}
	assert.Equal(t, Decision{Kind: Never}, NoExecuteDecision(node, WithDaemonSet(nil, DaemonSetOptions{}), Options{}))
	_, untolerated := FindUntolerated(node, DaemonSet(DaemonSetOptions{}), NoScheduleOrNoExecute, Options{})
	assert.False(t, untolerated)
}

func TestWithDaemonSet(t *testing.T) {
	tols := []v1.Toleration{tol("app", equal, "x", noSched), tol(taints.KeyNotReady, exists, "", noExec, 300)}
	before := deepClone(tols)
	got := WithDaemonSet(tols, DaemonSetOptions{})
	assert.Equal(t, before, tols)
	assert.Equal(t, []v1.Toleration{
		tol("app", equal, "x", noSched),
		tol(taints.KeyNotReady, exists, "", noExec), // seconds dropped: replaced in place
		tol(taints.KeyUnreachable, exists, "", noExec),
		tol(taints.KeyDiskPressure, exists, "", noSched),
		tol(taints.KeyMemoryPressure, exists, "", noSched),
		tol(taints.KeyPIDPressure, exists, "", noSched),
		tol(taints.KeyUnschedulable, exists, "", noSched),
	}, got)
}

func TestAddOrUpdate(t *testing.T) {
	a := tol("k", exists, "", noExec)
	a300 := tol("k", exists, "", noExec, 300)
	tests := []struct {
		name        string
		tols        []v1.Toleration
		add         v1.Toleration
		want        []v1.Toleration
		wantChanged bool
	}{
		{"append", nil, a, []v1.Toleration{a}, true},
		// Upstream (AddOrUpdateTolerationInPodSpec) reports true here: it compares a pointer
		// with a value. The list is the same either way.
		{"identical: unchanged", []v1.Toleration{a}, a, []v1.Toleration{a}, false},
		{"identical seconds by value", []v1.Toleration{a300}, tol("k", exists, "", noExec, 300), []v1.Toleration{a300}, false},
		{"seconds replaced in place", []v1.Toleration{tol("x", exists, "", ""), a300}, a, []v1.Toleration{tol("x", exists, "", ""), a}, true},
		{"every duplicate replaced", []v1.Toleration{a300, a}, a, []v1.Toleration{a, a}, true},
		{"operator is identity", []v1.Toleration{tol("k", equal, "", noExec)}, a, []v1.Toleration{tol("k", equal, "", noExec), a}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := deepClone(tc.tols)
			got, changed := AddOrUpdate(tc.tols, &tc.add)
			assert.Equal(t, tc.wantChanged, changed)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, before, tc.tols)
		})
	}
}
