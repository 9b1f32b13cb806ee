package nodelifecycle

import (
	"maps"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestZoneKey: the beta failure-domain labels win over the topology ones when present, even
// empty; region and zone join with ":\x00:"; no labels give "".
func TestZoneKey(t *testing.T) {
	cases := []struct {
		name   string
		labels map[string]string
		want   string
	}{
		{"no labels", nil, ""},
		{"empty labels", map[string]string{}, ""},
		{"topology zone", map[string]string{v1.LabelTopologyZone: "z"}, ":\x00:z"},
		{"topology region", map[string]string{v1.LabelTopologyRegion: "r"}, "r:\x00:"},
		{"empty beta zone hides the topology zone", map[string]string{v1.LabelFailureDomainBetaZone: "", v1.LabelTopologyZone: "z"}, ""},
		{"beta zone wins, topology region", map[string]string{v1.LabelFailureDomainBetaZone: "bz", v1.LabelTopologyZone: "z", v1.LabelTopologyRegion: "r"}, "r:\x00:bz"},
		{"beta region wins", map[string]string{v1.LabelFailureDomainBetaRegion: "br", v1.LabelTopologyRegion: "r", v1.LabelTopologyZone: "z"}, "br:\x00:z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ZoneKeyOf(tc.labels))
			assert.Equal(t, tc.want, ZoneKey(&v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: tc.labels}}))
		})
	}
	assert.Equal(t, "", ZoneKey(nil))
}

func TestExcludedFromDisruption(t *testing.T) {
	assert.False(t, ExcludedFromDisruption(nil))
	assert.False(t, ExcludedFromDisruption(mkNode("n", t0)))
	assert.True(t, ExcludedFromDisruption(withLabels(mkNode("n", t0), LabelExcludeDisruption, "")), "any value")
	assert.True(t, ExcludedFromDisruption(withLabels(mkNode("n", t0), LabelExcludeDisruption, "false")), "any value")
}

// members builds a zone's current Ready conditions: ready True, notReady False, missing nil.
func members(ready, notReady, missing int) []*v1.NodeCondition {
	var out []*v1.NodeCondition
	for range ready {
		out = append(out, ptr(readyCond(v1.ConditionTrue, t0, t0)))
	}
	for range notReady {
		out = append(out, ptr(readyCond(v1.ConditionFalse, t0, t0)))
	}
	for range missing {
		out = append(out, nil)
	}
	return out
}

// TestComputeZoneState: zone states from counts, at the default threshold and at thresholds
// where float32 arithmetic matters.
func TestComputeZoneState(t *testing.T) {
	cases := []struct {
		name      string
		members   []*v1.NodeCondition
		threshold float32
		want      ZoneState
	}{
		{"3 ready", members(3, 0, 0), 0.55, ZoneNormal},
		{"27 ready 3 not", members(27, 3, 0), 0.55, ZoneNormal},
		{"9 ready 11 not: exactly the threshold", members(9, 11, 0), 0.55, ZonePartialDisruption},
		{"1 ready 2 not: fewer than 3", members(1, 2, 0), 0.55, ZoneNormal},
		{"2 ready 3 not", members(2, 3, 0), 0.55, ZonePartialDisruption},
		{"one node without Ready", members(0, 0, 1), 0.55, ZoneFullDisruption},
		{"1 ready 3 without Ready", members(1, 0, 3), 0.55, ZonePartialDisruption},
		{"empty zone", nil, 0.55, ZoneNormal},
		{"threshold 0.1: 3 of 30 in float32", members(27, 3, 0), 0.1, ZonePartialDisruption},
		{"the tiniest threshold (upstream's 0): 3 not ready is enough", members(7, 3, 0), math.SmallestNonzeroFloat32, ZonePartialDisruption},
		{"threshold 0 is the default 0.55: 3 of 10 is Normal", members(7, 3, 0), 0, ZoneNormal},
		{"threshold 1: partial never happens", members(9, 11, 0), 1, ZoneNormal},
		{"threshold 1: all not ready is full", members(0, 5, 0), 1, ZoneFullDisruption},
		{"unknown status strings count as not ready", []*v1.NodeCondition{{Status: "maybe"}, {Status: v1.ConditionUnknown}, {Status: ""}, {Status: v1.ConditionTrue}}, 0.55, ZonePartialDisruption},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{}
			cfg.UnhealthyZoneThreshold = tc.threshold
			assert.Equal(t, tc.want, ComputeZoneState(CountReady(tc.members), cfg))
		})
	}
	// The float32 rule differs from float64 arithmetic, which would call 3 of 30 Normal.
	assert.Less(t, 3.0/30.0, float64(float32(0.1)))
}

// TestZoneRate: the rate of each state, partial zones split at LargeClusterThreshold.
func TestZoneRate(t *testing.T) {
	cfg := Config{}
	cases := []struct {
		name  string
		state ZoneState
		size  int
		want  float32
		ok    bool
	}{
		{"partial, 50 nodes: stopped", ZonePartialDisruption, 50, 0, true},
		{"partial, 51 nodes: secondary rate", ZonePartialDisruption, 51, 0.01, true},
		{"full while another zone is not", ZoneFullDisruption, 3, 0.1, true},
		{"normal", ZoneNormal, 3, 0.1, true},
		{"initial: limiter untouched", ZoneInitial, 3, 0, false},
		{"empty state: limiter untouched", "", 3, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ZoneRate(tc.state, tc.size, cfg)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

func full(n int) ZoneCounts      { return ZoneCounts{NotReady: n} }
func healthy(n int) ZoneCounts   { return ZoneCounts{Ready: n} }
func partialOf(n int) ZoneCounts { return ZoneCounts{Ready: n - n*6/10, NotReady: n * 6 / 10} }
func ratesOf(kv ...any) map[string]float32 {
	m := map[string]float32{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = float32(kv[i+1].(float64))
	}
	return m
}

// TestHandleDisruption: entering and leaving the all-zones-down mode, zones not counted
// dropped, and the rate changes of each transition.
func TestHandleDisruption(t *testing.T) {
	cfg := Config{}
	cases := []struct {
		name    string
		prev    map[string]ZoneState
		counts  map[string]ZoneCounts
		states  map[string]ZoneState
		rates   map[string]float32
		dropped []string
		entered bool
		exited  bool
	}{
		{
			name:    "first pass, both zones full: enter the all-zones-down mode",
			prev:    map[string]ZoneState{"A": ZoneInitial, "B": ZoneInitial},
			counts:  map[string]ZoneCounts{"A": full(2), "B": full(3)},
			states:  map[string]ZoneState{"A": ZoneFullDisruption, "B": ZoneFullDisruption},
			rates:   ratesOf("A", 0.0, "B", 0.0),
			entered: true,
		},
		{
			name:   "next pass, B normal again: exit, every zone gets its state's rate",
			prev:   map[string]ZoneState{"A": ZoneFullDisruption, "B": ZoneFullDisruption},
			counts: map[string]ZoneCounts{"A": full(2), "B": healthy(3)},
			states: map[string]ZoneState{"A": ZoneFullDisruption, "B": ZoneNormal},
			rates:  ratesOf("A", 0.1, "B", 0.1),
			exited: true,
		},
		{
			name:    "an excluded-only zone is not counted and is dropped",
			prev:    map[string]ZoneState{"A": ZoneInitial, "B": ZoneNormal},
			counts:  map[string]ZoneCounts{"B": healthy(3)},
			states:  map[string]ZoneState{"B": ZoneNormal},
			rates:   ratesOf(),
			dropped: []string{"A"},
		},
		{
			name:    "no node counted: everything dropped, nothing else",
			prev:    map[string]ZoneState{"A": ZoneNormal, "B": ZoneFullDisruption},
			counts:  map[string]ZoneCounts{},
			states:  map[string]ZoneState{},
			rates:   ratesOf(),
			dropped: []string{"A", "B"},
		},
		{
			name:   "a new zone starts Initial and gets its state's rate",
			prev:   nil,
			counts: map[string]ZoneCounts{"A": healthy(1), "B": partialOf(10)},
			states: map[string]ZoneState{"A": ZoneNormal, "B": ZonePartialDisruption},
			rates:  ratesOf("A", 0.1, "B", 0.0),
		},
		{
			name:   "unchanged states keep their rates, even when the size crosses the threshold",
			prev:   map[string]ZoneState{"A": ZonePartialDisruption, "B": ZoneNormal},
			counts: map[string]ZoneCounts{"A": partialOf(100), "B": healthy(3)},
			states: map[string]ZoneState{"A": ZonePartialDisruption, "B": ZoneNormal},
			rates:  ratesOf(),
		},
		{
			name:   "a zone turning partial in a large zone gets the secondary rate",
			prev:   map[string]ZoneState{"A": ZoneNormal, "B": ZoneNormal},
			counts: map[string]ZoneCounts{"A": partialOf(100), "B": healthy(3)},
			states: map[string]ZoneState{"A": ZonePartialDisruption, "B": ZoneNormal},
			rates:  ratesOf("A", 0.01),
		},
		{
			name:   "one zone fully down while another is alive: normal rate",
			prev:   map[string]ZoneState{"A": ZoneNormal, "B": ZoneNormal},
			counts: map[string]ZoneCounts{"A": full(4), "B": healthy(3)},
			states: map[string]ZoneState{"A": ZoneFullDisruption, "B": ZoneNormal},
			rates:  ratesOf("A", 0.1),
		},
		{
			name:   "all down now and before: nothing changes",
			prev:   map[string]ZoneState{"A": ZoneFullDisruption},
			counts: map[string]ZoneCounts{"A": full(4)},
			states: map[string]ZoneState{"A": ZoneFullDisruption},
			rates:  ratesOf(),
		},
		{
			name:    "single zone going all down enters the mode",
			prev:    map[string]ZoneState{"A": ZoneNormal},
			counts:  map[string]ZoneCounts{"A": full(4)},
			states:  map[string]ZoneState{"A": ZoneFullDisruption},
			rates:   ratesOf("A", 0.0),
			entered: true,
		},
		{
			name:    "a vanished zone does not count towards 'all were down'",
			prev:    map[string]ZoneState{"A": ZoneFullDisruption, "gone": ZoneNormal},
			counts:  map[string]ZoneCounts{"A": healthy(1)},
			states:  map[string]ZoneState{"A": ZoneNormal},
			rates:   ratesOf("A", 0.1),
			dropped: []string{"gone"},
			exited:  true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prevCopy := maps.Clone(tc.prev)
			got := HandleDisruption(tc.prev, tc.counts, cfg)
			assert.Equal(t, tc.states, got.States)
			assert.Equal(t, tc.rates, got.Rates)
			assert.Equal(t, tc.dropped, got.Dropped)
			assert.Equal(t, tc.entered, got.Entered, "entered")
			assert.Equal(t, tc.exited, got.Exited, "exited")
			assert.Equal(t, prevCopy, tc.prev, "prev not modified")
		})
	}
}

// A node excluded from its zone's disruption count is still queued for its
// NoExecute taint when it is not ready: the exclusion only keeps it out of the counts.
func TestExcludedNodeStillActedOn(t *testing.T) {
	n := withLabels(mkNode("a1", t0, readyCond(v1.ConditionFalse, t0, t0)), LabelExcludeDisruption, "", v1.LabelTopologyZone, "A")
	require.True(t, ExcludedFromDisruption(n))
	assert.Equal(t, Action{Kind: Enqueue, ClearTombstone: true}, NoExecuteAction(n, &n.Status.Conditions[0]))
}

func TestDisruptionString(t *testing.T) {
	d := HandleDisruption(map[string]ZoneState{"old": ZoneNormal}, map[string]ZoneCounts{"b": full(1), "a": healthy(2)}, Config{})
	assert.Equal(t, `entered=false exited=false "a"=Normal@0.1 "b"=FullDisruption@0.1 dropped=["old"]`, d.String())
	assert.False(t, d.AllDown())
	assert.True(t, Disruption{}.AllDown())
}
