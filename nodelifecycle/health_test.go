package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

// healthStep is one judgement of a node; the probe carries over to the next step as the
// controller would save it (writes succeed).
type healthStep struct {
	now   time.Time
	node  *v1.Node
	lease *coordinationv1.Lease
	// live answers a NeedsLeaseCheck (breaker on); nil means "the step expects none".
	live *LiveLease

	verdict    Verdict
	probe      time.Time // saved ProbeTime after the step
	transition time.Time // saved ReadyTransitionTime after the step
	write      bool      // a status write is expected
	current    v1.ConditionStatus
	currentNil bool
	savedReady v1.ConditionStatus // "" = don't check; "nil" = saved Ready must be nil
	check      func(t *testing.T, h Health)
}

type healthCase struct {
	name  string
	cfg   Config
	saved *Probe
	steps []healthStep
}

func runHealthCase(t *testing.T, tc healthCase) {
	t.Helper()
	saved := tc.saved
	for i, st := range tc.steps {
		h := Evaluate(st.node, st.lease, saved, st.now, tc.cfg)
		if h.Verdict == NeedsLeaseCheck {
			require.NotNil(t, st.live, "step %d: unexpected NeedsLeaseCheck", i)
			h = EvaluateWithLiveLease(st.node, st.lease, saved, *st.live, st.now, tc.cfg)
		}
		require.Equal(t, st.verdict, h.Verdict, "step %d verdict", i)
		assert.Equal(t, st.write, h.Status != nil, "step %d write", i)
		switch {
		case st.currentNil:
			assert.Nil(t, h.Current, "step %d current", i)
		case st.current != "":
			require.NotNil(t, h.Current, "step %d current", i)
			assert.Equal(t, st.current, h.Current.Status, "step %d current", i)
		}
		next := h.Saved()
		if !st.probe.IsZero() {
			assert.True(t, st.probe.Equal(next.ProbeTime), "step %d probe: want %v got %v", i, st.probe, next.ProbeTime)
		}
		if !st.transition.IsZero() {
			assert.True(t, st.transition.Equal(next.ReadyTransitionTime), "step %d transition: want %v got %v", i, st.transition, next.ReadyTransitionTime)
		}
		switch st.savedReady {
		case "":
		case "nil":
			assert.Nil(t, next.Ready, "step %d saved Ready", i)
		default:
			require.NotNil(t, next.Ready, "step %d saved Ready", i)
			assert.Equal(t, st.savedReady, next.Ready.Status, "step %d saved Ready", i)
		}
		if st.check != nil {
			st.check(t, h)
		}
		saved = &next
	}
}

// TestEvaluateSteps judges nodes step by step through first sight, silence past the grace
// period, heartbeats and transitions, nodes that never posted, a removed Ready condition and
// Lease renewals, with the lease circuit breaker off, then again with it on and the live
// Lease agreeing with the saved one (the answer must not change).
func TestEvaluateSteps(t *testing.T) {
	longAgo := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	utcPlus1 := time.FixedZone("UTC+1", 3600)

	readyNode := mkNode("n", t0.Add(-2*time.Hour), readyCond(v1.ConditionTrue, at(-time.Hour), at(-2*time.Hour)))
	savedT0 := &Probe{ProbeTime: t0, ReadyTransitionTime: t0, Ready: ptr(readyCond(v1.ConditionTrue, t0, at(-time.Hour)))}
	unknownWritten := func(t *testing.T, h Health) {
		t.Helper()
		r := findCondition(h.Status.Conditions, v1.NodeReady)
		require.NotNil(t, r)
		assert.Equal(t, v1.ConditionUnknown, r.Status)
		assert.Equal(t, ReasonStatusUnknown, r.Reason)
		assert.Equal(t, MessageStatusUnknown, r.Message)
		assert.Equal(t, mt(at(-time.Hour)), r.LastHeartbeatTime, "heartbeat kept")
		assert.Equal(t, mt(at(50*time.Second+1)), r.LastTransitionTime)
		assert.Len(t, h.Status.Conditions, 4, "pressure conditions appended")
	}
	stuck := mkNode("n", longAgo, readyCond(v1.ConditionTrue, t0, at(-time.Hour)))
	lease40 := mkLease("n", "2", ptr(at(40*time.Second)))
	nilLease := mkLease("n", "3", nil)
	agree := func(rv string) *LiveLease { return &LiveLease{Found: true, ResourceVersion: rv} }
	notFound := &LiveLease{}

	cases := []healthCase{
		{
			name: "first sight gives a full grace period, then Unknown 1ns after it",
			steps: []healthStep{
				{now: t0, node: readyNode, verdict: Fresh, probe: t0, transition: t0, current: v1.ConditionTrue, savedReady: v1.ConditionTrue},
				{now: at(50 * time.Second), node: readyNode, verdict: Fresh, probe: t0, transition: t0, current: v1.ConditionTrue},
				{now: at(50*time.Second + 1), node: readyNode, live: notFound, verdict: Expired, write: true,
					probe: t0, transition: at(50*time.Second + 1), current: v1.ConditionUnknown, savedReady: v1.ConditionUnknown, check: unknownWritten},
			},
		},
		{
			name:  "pressure conditions Unknown, NetworkUnavailable untouched, missing ones appended in order",
			saved: savedT0,
			steps: []healthStep{{
				now: at(time.Minute),
				node: mkNode("n", longAgo,
					readyCond(v1.ConditionTrue, t0, at(-time.Hour)),
					cond(v1.NodeMemoryPressure, v1.ConditionTrue, t0, at(-time.Hour)),
					cond(v1.NodeNetworkUnavailable, v1.ConditionTrue, t0, at(-time.Hour))),
				live: notFound, verdict: Expired, write: true, current: v1.ConditionUnknown,
				check: func(t *testing.T, h Health) {
					c := h.Status.Conditions
					require.Len(t, c, 5)
					wantTypes := []v1.NodeConditionType{v1.NodeReady, v1.NodeMemoryPressure, v1.NodeNetworkUnavailable, v1.NodeDiskPressure, v1.NodePIDPressure}
					for i, w := range wantTypes {
						assert.Equal(t, w, c[i].Type)
					}
					assert.Equal(t, ReasonStatusUnknown, c[1].Reason)
					assert.Equal(t, v1.ConditionUnknown, c[1].Status)
					assert.Equal(t, v1.ConditionTrue, c[2].Status, "NetworkUnavailable untouched")
					assert.Empty(t, c[2].Reason)
					for _, i := range []int{3, 4} {
						assert.Equal(t, v1.ConditionUnknown, c[i].Status)
						assert.Equal(t, ReasonStatusNeverUpdated, c[i].Reason)
						assert.Equal(t, MessageStatusNeverUpdated, c[i].Message)
						assert.Equal(t, mt(longAgo), c[i].LastHeartbeatTime, "heartbeat = creation")
						assert.Equal(t, mt(at(time.Minute)), c[i].LastTransitionTime)
					}
				},
			}},
		},
		{
			name:  "heartbeats and transitions on the controller's clock",
			saved: &Probe{ProbeTime: t0, ReadyTransitionTime: t0, Ready: ptr(readyCond(v1.ConditionTrue, t0, at(-time.Hour)))},
			steps: []healthStep{
				// 4: new heartbeat, same transition → probe moves, transition kept.
				{now: at(10 * time.Second), node: mkNode("n", longAgo, readyCond(v1.ConditionTrue, at(10*time.Second), at(-time.Hour))),
					verdict: Fresh, probe: at(10 * time.Second), transition: t0},
				// 5: Ready False posted at +20 s with the kubelet's transition +15 s → controller's +20 s.
				{now: at(20 * time.Second), node: mkNode("n", longAgo, readyCond(v1.ConditionFalse, at(20*time.Second), at(15*time.Second))),
					verdict: Fresh, probe: at(20 * time.Second), transition: at(20 * time.Second), current: v1.ConditionFalse, savedReady: v1.ConditionFalse},
				// 6: status changed without a new heartbeat: invisible.
				{now: at(30 * time.Second), node: mkNode("n", longAgo, readyCond(v1.ConditionTrue, at(20*time.Second), at(25*time.Second))),
					verdict: Fresh, probe: at(20 * time.Second), transition: at(20 * time.Second), current: v1.ConditionTrue, savedReady: v1.ConditionFalse},
				// 7: the heartbeat of 5 in another Location counts as new; transition kept.
				{now: at(35 * time.Second), node: mkNode("n", longAgo, v1.NodeCondition{Type: v1.NodeReady, Status: v1.ConditionFalse,
					LastHeartbeatTime: mt(at(20 * time.Second).In(utcPlus1)), LastTransitionTime: mt(at(15 * time.Second))}),
					verdict: Fresh, probe: at(35 * time.Second), transition: at(20 * time.Second)},
			},
		},
		{
			name: "never posted, created long ago: Unknown on the first judgement",
			steps: []healthStep{{
				now: t0, node: mkNode("n", longAgo), live: notFound, verdict: Expired, write: true,
				probe: longAgo, transition: t0, current: v1.ConditionUnknown,
				check: func(t *testing.T, h Health) {
					require.Len(t, h.Status.Conditions, 4)
					for i, w := range []v1.NodeConditionType{v1.NodeReady, v1.NodeMemoryPressure, v1.NodeDiskPressure, v1.NodePIDPressure} {
						c := h.Status.Conditions[i]
						assert.Equal(t, w, c.Type)
						assert.Equal(t, ReasonStatusNeverUpdated, c.Reason)
						assert.Equal(t, mt(longAgo), c.LastHeartbeatTime)
						assert.Equal(t, mt(t0), c.LastTransitionTime)
					}
					assert.Equal(t, 60*time.Second, h.Grace, "startup grace")
					assert.Equal(t, v1.NodeCondition{Type: v1.NodeReady, Status: v1.ConditionUnknown, LastHeartbeatTime: mt(longAgo), LastTransitionTime: mt(longAgo)}, h.Observed, "synthetic observed")
				},
			}},
		},
		{
			name: "never posted, created 30s ago: startup grace from creation, Ready nil until it expires",
			steps: []healthStep{
				{now: t0, node: mkNode("n", at(-30*time.Second)), verdict: Fresh, currentNil: true, probe: at(-30 * time.Second), savedReady: "nil"},
				{now: at(30 * time.Second), node: mkNode("n", at(-30*time.Second)), verdict: Fresh, currentNil: true},
				{now: at(30*time.Second + 1), node: mkNode("n", at(-30*time.Second)), live: notFound, verdict: Expired, write: true, current: v1.ConditionUnknown},
			},
		},
		{
			name:  "Ready removed from a live node: startup grace from the old probe",
			saved: savedT0,
			steps: []healthStep{
				{now: at(55 * time.Second), node: mkNode("n", longAgo), verdict: Fresh, currentNil: true, probe: t0, savedReady: "nil"},
				{now: at(60*time.Second + 1), node: mkNode("n", longAgo), live: notFound, verdict: Expired, write: true, current: v1.ConditionUnknown,
					check: func(t *testing.T, h Health) {
						assert.Equal(t, ReasonStatusNeverUpdated, h.Current.Reason)
					}},
			},
		},
		{
			name:  "a renewed Lease keeps a node with a stuck status alive",
			saved: &Probe{ProbeTime: t0, ReadyTransitionTime: t0, Ready: savedT0.Ready, Lease: savedLease("1", &t0)},
			steps: []healthStep{
				{now: at(40 * time.Second), node: stuck, lease: lease40, verdict: Fresh, probe: at(40 * time.Second), transition: t0},
				{now: at(90 * time.Second), node: stuck, lease: lease40, verdict: Fresh, probe: at(40 * time.Second)},
				{now: at(90*time.Second + 1), node: stuck, lease: lease40, live: agree("2"), verdict: Expired, write: true, current: v1.ConditionUnknown},
			},
		},
		{
			name:  "a Lease going back or staying put is no renewal",
			saved: &Probe{ProbeTime: at(40 * time.Second), ReadyTransitionTime: t0, Ready: savedT0.Ready, Lease: savedLease("2", ptr(at(40*time.Second)))},
			steps: []healthStep{
				{now: at(45 * time.Second), node: stuck, lease: mkLease("n", "4", ptr(at(30*time.Second))), verdict: Fresh, probe: at(40 * time.Second)},
				{now: at(50 * time.Second), node: stuck, lease: mkLease("n", "5", ptr(at(40*time.Second))), verdict: Fresh, probe: at(40 * time.Second)},
			},
		},
		{
			name:  "a first Lease without renewTime counts once, then blocks renewals",
			saved: savedT0,
			steps: []healthStep{
				{now: at(30 * time.Second), node: stuck, lease: nilLease, verdict: Fresh, probe: at(30 * time.Second)},
				{now: at(80 * time.Second), node: stuck, lease: mkLease("n", "6", ptr(at(100*time.Second))), verdict: Fresh, probe: at(30 * time.Second)},
				{now: at(81 * time.Second), node: stuck, lease: mkLease("n", "6", ptr(at(100*time.Second))), live: agree("3"), verdict: Expired, write: true},
			},
		},
		{
			name:  "Ready already Unknown: nothing written, pressure changes dropped",
			saved: &Probe{ProbeTime: t0, ReadyTransitionTime: t0, Ready: ptr(readyCond(v1.ConditionUnknown, t0, t0))},
			steps: []healthStep{{
				now:  at(51 * time.Second),
				node: mkNode("n", longAgo, readyCond(v1.ConditionUnknown, t0, t0), cond(v1.NodeMemoryPressure, v1.ConditionTrue, t0, t0)),
				live: notFound, verdict: Expired, write: false, current: v1.ConditionUnknown, probe: t0, transition: t0,
				check: func(t *testing.T, h Health) {
					assert.Equal(t, readyCond(v1.ConditionUnknown, t0, t0), *h.Current)
					assert.Equal(t, Probe{}, h.Written)
				},
			}},
		},
		{
			name:  "never posted but renewing its Lease: alive forever, Ready stays nil",
			steps: leaseOnlySteps(longAgo),
		},
		{
			name:  "upstream: a status heartbeat drops the saved Lease, so the next pass counts the unchanged Lease as renewed",
			saved: &Probe{ProbeTime: t0, ReadyTransitionTime: t0, Ready: savedT0.Ready, Lease: savedLease("1", &t0)},
			steps: []healthStep{
				{now: at(5 * time.Second), node: mkNode("n", longAgo, readyCond(v1.ConditionTrue, at(5*time.Second), at(-time.Hour))),
					lease: mkLease("n", "1", &t0), verdict: Fresh, probe: at(5 * time.Second),
					check: func(t *testing.T, h Health) { assert.Nil(t, h.Probe.Lease, "saved Lease dropped") }},
				{now: at(10 * time.Second), node: mkNode("n", longAgo, readyCond(v1.ConditionTrue, at(5*time.Second), at(-time.Hour))),
					lease: mkLease("n", "1", &t0), verdict: Fresh, probe: at(10 * time.Second),
					check: func(t *testing.T, h Health) { assert.NotNil(t, h.Probe.Lease, "saved again") }},
				{now: at(15 * time.Second), node: mkNode("n", longAgo, readyCond(v1.ConditionTrue, at(5*time.Second), at(-time.Hour))),
					lease: mkLease("n", "1", &t0), verdict: Fresh, probe: at(10 * time.Second)},
			},
		},
	}
	cases = append(cases, healthCase{
		name:  "upstream: a write saves the cached Lease, even none",
		saved: &Probe{ProbeTime: t0, ReadyTransitionTime: t0, Ready: savedT0.Ready, Lease: savedLease("1", &t0)},
		steps: []healthStep{{now: at(51 * time.Second), node: stuck, live: notFound, verdict: Expired, write: true,
			check: func(t *testing.T, h Health) {
				assert.Equal(t, "1", h.Probe.Lease.ResourceVersion, "kept when nothing is written")
				assert.Nil(t, h.Written.Lease, "replaced by the cached one (none) on a write")
			}}},
	})
	for _, tc := range cases {
		t.Run("breaker off/"+tc.name, func(t *testing.T) {
			tc.cfg = noBreaker()
			runHealthCase(t, tc)
		})
		t.Run("breaker on, live lease agrees/"+tc.name, func(t *testing.T) {
			tc.cfg = Config{}
			runHealthCase(t, tc)
		})
	}
}

// leaseOnlySteps: a node created long ago that never posts a status but renews its
// Lease every 10 s, judged every 5 s for an hour.
func leaseOnlySteps(created time.Time) []healthStep {
	node := mkNode("n", created)
	var steps []healthStep
	for d := time.Duration(0); d <= time.Hour; d += 5 * time.Second {
		renew := t0.Add(d / (10 * time.Second) * (10 * time.Second))
		steps = append(steps, healthStep{
			now: at(d), node: node, lease: mkLease("n", renew.Format("150405"), &renew),
			verdict: Fresh, currentNil: true, savedReady: "nil",
		})
	}
	return steps
}

// TestEvaluateLeaseCircuitBreaker: an expired node asks for its live Lease; a live Lease that
// moved (renewed, or edited without renewal) skips it, one that is gone or unchanged lets it
// be marked Unknown.
func TestEvaluateLeaseCircuitBreaker(t *testing.T) {
	cfg := Config{}
	node := mkNode("n", t0.Add(-time.Hour), readyCond(v1.ConditionTrue, t0, t0))
	saved := &Probe{ProbeTime: t0, ReadyTransitionTime: t0, Ready: ptr(readyCond(v1.ConditionTrue, t0, t0)), Lease: savedLease("5", &t0)}
	cached := mkLease("n", "5", &t0)
	now := at(51 * time.Second)

	first := Evaluate(node, cached, saved, now, cfg)
	require.Equal(t, NeedsLeaseCheck, first.Verdict, "breaker asks for the live lease")
	assert.Nil(t, first.Status)
	assert.Nil(t, first.Current)

	cases := []struct {
		name    string
		cached  *coordinationv1.Lease
		live    LiveLease
		at      time.Time
		verdict Verdict
		liveRV  string
	}{
		{"live lease newer: skip", cached, LiveLease{Found: true, ResourceVersion: "6"}, now, Skipped, "6"},
		{"live lease not found: mark Unknown", cached, LiveLease{}, now, Expired, ""},
		{"live lease equal: mark Unknown", cached, LiveLease{Found: true, ResourceVersion: "5"}, now, Expired, ""},
		{"lease edited without renewal: skipped", mkLease("n", "7", &t0), LiveLease{Found: true, ResourceVersion: "7"}, now, Skipped, "7"},
		{"lease edited without renewal: still skipped 10 minutes later", mkLease("n", "7", &t0), LiveLease{Found: true, ResourceVersion: "7"}, at(10 * time.Minute), Skipped, "7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := EvaluateWithLiveLease(node, tc.cached, saved, tc.live, tc.at, cfg)
			require.Equal(t, tc.verdict, h.Verdict)
			assert.Equal(t, tc.liveRV, h.LiveLeaseRV)
			if tc.verdict == Skipped {
				assert.Nil(t, h.Status, "no change")
				assert.Nil(t, h.Current, "not counted")
				assert.Equal(t, "5", h.Probe.Lease.ResourceVersion, "saved lease kept")
				assert.Equal(t, t0, h.Probe.ProbeTime)
				return
			}
			require.NotNil(t, h.Status)
			assert.Equal(t, v1.ConditionUnknown, h.Current.Status)
		})
	}
}

func TestLeaseCacheBehind(t *testing.T) {
	cases := []struct {
		recorded, synced string
		behind           bool
	}{
		{"", "5", false},
		{"6", "", false},
		{"6", "5", true},
		{"10", "9", true},
		{"5", "5", false},
		{"5", "10", false},
		{"x", "5", false},
		{"05", "4", false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.behind, LeaseCacheBehind(tc.recorded, tc.synced), "%q vs %q", tc.recorded, tc.synced)
	}
	assert.Equal(t, "7", NewerResourceVersion("", "7"))
	assert.Equal(t, "9", NewerResourceVersion("9", "7"))
	assert.Equal(t, "10", NewerResourceVersion("9", "10"))
	assert.Equal(t, "7", NewerResourceVersion("bad", "7"))
}

func TestEvaluateDoesNotModifyInputs(t *testing.T) {
	node := mkNode("n", t0.Add(-time.Hour), readyCond(v1.ConditionTrue, t0, t0), cond(v1.NodeMemoryPressure, v1.ConditionTrue, t0, t0))
	lease := mkLease("n", "1", &t0)
	saved := &Probe{ProbeTime: t0, ReadyTransitionTime: t0, Ready: ptr(readyCond(v1.ConditionTrue, t0, t0)), Lease: savedLease("1", &t0)}
	nodeCopy, leaseCopy := node.DeepCopy(), lease.DeepCopy()
	savedCopy := *saved
	readyCopy := *saved.Ready
	h := Evaluate(node, lease, saved, at(time.Hour), noBreaker())
	require.NotNil(t, h.Status)
	h.Status.Conditions[0].Reason = "scribble"
	h.Current.Message = "scribble"
	assert.True(t, apiequality.Semantic.DeepEqual(nodeCopy, node))
	assert.Equal(t, leaseCopy, lease)
	assert.Equal(t, savedCopy, *saved)
	assert.Equal(t, readyCopy, *saved.Ready)
}

// TestEvaluateNilNode: a nil node is judged as an empty one (created at the zero time, no
// conditions) where upstream would panic: past its startup grace, it is marked Unknown.
func TestEvaluateNilNode(t *testing.T) {
	h := Evaluate(nil, nil, nil, t0, noBreaker())
	require.Equal(t, Expired, h.Verdict)
	assert.Equal(t, DefaultStartupGracePeriod, h.Grace)
	require.NotNil(t, h.Status)
	require.Len(t, h.Status.Conditions, 4)
	require.NotNil(t, h.Current)
	assert.Equal(t, v1.ConditionUnknown, h.Current.Status)
	assert.Equal(t, ReasonStatusNeverUpdated, h.Current.Reason)
	assert.Equal(t, mt(t0), h.Current.LastTransitionTime)
}

func TestResetProbe(t *testing.T) {
	p := &Probe{ProbeTime: t0, ReadyTransitionTime: t0, Ready: ptr(readyCond(v1.ConditionFalse, t0, t0)), Lease: savedLease("1", &t0)}
	got := ResetProbe(p, at(time.Hour))
	assert.Equal(t, Probe{ProbeTime: at(time.Hour), ReadyTransitionTime: at(time.Hour), Ready: p.Ready, Lease: p.Lease}, got)
	// Upstream dereferences a missing record here and crashes; the library creates one.
	assert.Equal(t, Probe{ProbeTime: at(time.Hour), ReadyTransitionTime: at(time.Hour)}, ResetProbe(nil, at(time.Hour)))
}

func TestHealthHelpers(t *testing.T) {
	h := Health{Observed: readyCond(v1.ConditionTrue, t0, t0), Current: ptr(readyCond(v1.ConditionUnknown, t0, t0))}
	assert.True(t, h.BecameNotReady())
	h.Observed.Status = v1.ConditionFalse
	assert.False(t, h.BecameNotReady(), "the kubelet's own False triggers nothing")
	h.Observed.Status = v1.ConditionTrue
	h.Current = nil
	assert.False(t, h.BecameNotReady())

	h = Health{Probe: Probe{ProbeTime: t0}, Written: Probe{ProbeTime: at(time.Second)}}
	assert.Equal(t, t0, h.Saved().ProbeTime, "no status to write: Probe")
	h.Status = &v1.NodeStatus{}
	assert.Equal(t, at(time.Second), h.Saved().ProbeTime)
	assert.Equal(t, t0, h.Probe.ProbeTime, "failed write keeps the refreshed probe")

	x := readyCond(v1.ConditionTrue, t0, t0)
	assert.True(t, sameCondition(nil, nil))
	assert.False(t, sameCondition(&x, nil))
	assert.False(t, sameCondition(nil, &x))

	for v, s := range map[Verdict]string{Fresh: "Fresh", Expired: "Expired", NeedsLeaseCheck: "NeedsLeaseCheck", Skipped: "Skipped", Verdict(9): "Verdict(9)"} {
		assert.Equal(t, s, v.String())
	}
}
