package thresholds

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithContainerFs(t *testing.T) {
	const grace = time.Minute
	nodeFs := []Threshold{
		{Signal: NodeFsAvailable, Value: qv("100Mi"), MinReclaim: mr(qv("1Gi"))},
		{Signal: NodeFsAvailable, Value: qv("200Mi"), GracePeriod: grace, MinReclaim: mr(qv("1Gi"))},
		{Signal: NodeFsInodesFree, Value: qv("100Mi"), MinReclaim: mr(qv("1Gi"))},
		{Signal: NodeFsInodesFree, Value: qv("200Mi"), GracePeriod: grace, MinReclaim: mr(qv("2Gi"))},
	}
	imageFs := []Threshold{
		{Signal: ImageFsAvailable, Value: qv("150Mi"), MinReclaim: mr(qv("2Gi"))},
		{Signal: ImageFsAvailable, Value: qv("300Mi"), GracePeriod: grace, MinReclaim: mr(qv("2Gi"))},
		{Signal: ImageFsInodesFree, Value: pv(0.05)},
		{Signal: ImageFsInodesFree, Value: pv(0.1), GracePeriod: grace},
	}
	as := func(sig Signal, ts ...Threshold) []Threshold {
		out := make([]Threshold, len(ts))
		for i, t := range ts {
			t.Signal = sig
			out[i] = t
		}
		return out
	}
	both := slices.Concat(nodeFs, imageFs)
	fromNodeFs := slices.Concat(as(ContainerFsAvailable, nodeFs[0], nodeFs[1]), as(ContainerFsInodesFree, nodeFs[2], nodeFs[3]))
	fromImageFs := slices.Concat(as(ContainerFsAvailable, imageFs[0], imageFs[1]), as(ContainerFsInodesFree, imageFs[2], imageFs[3]))
	userCfs := []Threshold{
		{Signal: ContainerFsAvailable, Value: qv("1Ti")},
		{Signal: ContainerFsInodesFree, Value: qv("1"), GracePeriod: time.Hour},
	}

	tests := []struct {
		name      string
		in        []Threshold
		layout    Layout
		want      []Threshold
		overrides int // number of warnings, each wrapping ErrContainerFsOverride
	}{
		{
			name:   "single filesystem copies nodefs",
			in:     both,
			layout: Layout{},
			want:   slices.Concat(both, fromNodeFs),
		},
		{
			name:   "dedicated imagefs copies imagefs",
			in:     both,
			layout: Layout{DedicatedImageFs: true},
			want:   slices.Concat(both, fromImageFs),
		},
		{
			name:   "split layout copies nodefs",
			in:     both,
			layout: Layout{DedicatedImageFs: true, SplitContainerImageFs: true},
			want:   slices.Concat(both, fromNodeFs),
		},
		{
			name:   "split without imagefs derives nothing",
			in:     both,
			layout: Layout{SplitContainerImageFs: true},
			want:   both,
		},
		{
			name:      "user containerfs thresholds are overwritten in place",
			in:        slices.Concat(userCfs, both),
			layout:    Layout{DedicatedImageFs: true},
			want:      slices.Concat(fromImageFs[0:1], fromImageFs[3:4], both, fromImageFs[1:3]),
			overrides: 2,
		},
		{
			name:      "user containerfs thresholds survive the inconsistent layout",
			in:        slices.Concat(userCfs, both),
			layout:    Layout{SplitContainerImageFs: true},
			want:      slices.Concat(userCfs, both),
			overrides: 2,
		},
		{
			// Upstream appends four placeholders with an empty operator.
			name:   "missing sources yield no placeholders",
			in:     []Threshold{{Signal: MemoryAvailable, Value: qv("1Gi")}},
			layout: Layout{},
			want:   []Threshold{{Signal: MemoryAvailable, Value: qv("1Gi")}},
		},
		{
			// Upstream overwrites it with a placeholder that is never met.
			name:      "user containerfs threshold without source is dropped",
			in:        []Threshold{userCfs[0]},
			layout:    Layout{},
			want:      []Threshold{},
			overrides: 1,
		},
		{
			// Upstream keeps the earlier one unchanged and overwrites the last.
			name: "only the last user threshold of a kind is replaced",
			in: slices.Concat([]Threshold{
				{Signal: ContainerFsAvailable, Value: qv("1Ti")},
				{Signal: ContainerFsAvailable, Value: qv("2Ti")},
			}, nodeFs[:1]),
			layout:    Layout{},
			want:      slices.Concat(fromNodeFs[:1], nodeFs[:1]),
			overrides: 2,
		},
		{
			name: "the last source threshold of a kind wins",
			in: []Threshold{
				{Signal: NodeFsAvailable, Value: qv("1Gi")},
				{Signal: NodeFsAvailable, Value: qv("2Gi"), GracePeriod: 0},
			},
			layout: Layout{},
			want: []Threshold{
				{Signal: NodeFsAvailable, Value: qv("1Gi")},
				{Signal: NodeFsAvailable, Value: qv("2Gi")},
				{Signal: ContainerFsAvailable, Value: qv("2Gi")},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := describeAll(tc.in)
			got, warnings, err := WithContainerFs(tc.in, tc.layout)
			require.NoError(t, err)
			assertThresholds(t, tc.want, got)
			assert.Equal(t, before, describeAll(tc.in), "input must not change")
			assert.Len(t, warnings, tc.overrides)
			for _, w := range warnings {
				require.ErrorIs(t, w, ErrContainerFsOverride)
				assert.True(t, strings.HasPrefix(w.Error(), "thresholds: "), "warning %q has the package prefix", w)
			}
		})
	}
}

func TestWithContainerFsSplitDisabled(t *testing.T) {
	// A split layout with KubeletSeparateDiskGC off is fatal.
	got, warnings, err := WithContainerFs(nil, Layout{DedicatedImageFs: true, SplitContainerImageFs: true, DisableSeparateDiskGC: true})
	require.ErrorIs(t, err, ErrSplitFsDisabled)
	assert.Nil(t, got)
	assert.Nil(t, warnings)

	imageFs := Threshold{Signal: ImageFsAvailable, Value: pv(0.15)}
	got, _, err = WithContainerFs([]Threshold{imageFs}, Layout{DedicatedImageFs: true, DisableSeparateDiskGC: true})
	require.NoError(t, err, "the gate only matters for split layouts")
	assertThresholds(t, []Threshold{imageFs, {Signal: ContainerFsAvailable, Value: pv(0.15)}}, got)
}

func TestNodeReclaimActions(t *testing.T) {
	both := []ReclaimAction{DeleteAllUnusedContainers, DeleteUnusedImages}
	containers := []ReclaimAction{DeleteAllUnusedContainers}
	images := []ReclaimAction{DeleteUnusedImages}
	single, imagefs, split := Layout{}, Layout{DedicatedImageFs: true}, Layout{DedicatedImageFs: true, SplitContainerImageFs: true}
	tests := []struct {
		sig    Signal
		layout Layout
		want   []ReclaimAction
	}{
		{NodeFsAvailable, single, both},
		{NodeFsInodesFree, single, both},
		{ImageFsAvailable, single, both},
		{ContainerFsInodesFree, single, both},
		{NodeFsAvailable, imagefs, nil},
		{ImageFsInodesFree, imagefs, both},
		{ContainerFsAvailable, imagefs, both},
		{NodeFsAvailable, split, containers},
		{ImageFsAvailable, split, images},
		{ContainerFsAvailable, split, containers},
		{ContainerFsInodesFree, split, containers},
		{NodeFsAvailable, Layout{SplitContainerImageFs: true}, both},
		{MemoryAvailable, single, nil},
		{AllocatableMemoryAvailable, split, nil},
		{PIDAvailable, imagefs, nil},
		{"mem.available", single, nil},
	}
	for _, tc := range tests {
		t.Run(string(tc.sig), func(t *testing.T) {
			assert.Equal(t, tc.want, NodeReclaimActions(tc.sig, tc.layout), "layout %+v", tc.layout)
		})
	}
}
