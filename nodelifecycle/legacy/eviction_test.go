package legacy

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"

	nl "github.com/evictkit/eviction/nodelifecycle"
)

func TestDecide(t *testing.T) {
	var cfg Config // the 5 m default
	saved := &nl.Probe{ProbeTime: at(3 * time.Minute), ReadyTransitionTime: t0}
	cases := []struct {
		name  string
		ready v1.ConditionStatus
		now   time.Time
		want  PodEviction
	}{
		{"False: not due at exactly transition + 5m", tFalse, at(5 * time.Minute), EvictionWait},
		{"False: due 1ns later", tFalse, at(5*time.Minute + 1), EvictionDue},
		{"Unknown counts from the probe, not the transition", tUnknown, at(8 * time.Minute), EvictionWait},
		{"Unknown: due 1ns after probe + 5m", tUnknown, at(8*time.Minute + 1), EvictionDue},
		{"True cancels", tTrue, at(time.Hour), EvictionCancel},
		{"other status waits", "Maybe", at(time.Hour), EvictionWait},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decide(tc.ready, saved, tc.now, cfg)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := Decide(tFalse, nil, t0, cfg)
	assert.True(t, errors.Is(err, ErrNoProbe))
	assert.ErrorContains(t, err, `legacy: pod eviction for Ready "False"`)

	short, err := Decide(tFalse, saved, at(time.Minute+1), Config{PodEvictionTimeout: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, EvictionDue, short, "an explicit timeout replaces the default")
}

func TestEvictionStateNext(t *testing.T) {
	cases := []struct {
		from EvictionState
		e    PodEviction
		to   EvictionState
		op   EvictionOp
	}{
		{Unmarked, EvictionDue, ToBeEvicted, OpEnqueue},
		{Unmarked, EvictionCancel, Unmarked, OpDequeue},
		{Unmarked, EvictionWait, Unmarked, OpNone},
		{ToBeEvicted, EvictionDue, ToBeEvicted, OpEnqueue},
		{Evicted, EvictionDue, Evicted, OpDeleteNow},
		{Evicted, EvictionCancel, Unmarked, OpDequeue},
		{ToBeEvicted, EvictionCancel, Unmarked, OpDequeue},
		{ToBeEvicted, EvictionWait, ToBeEvicted, OpNone},
		{Evicted, EvictionWait, Evicted, OpNone},
	}
	for _, tc := range cases {
		to, op := tc.from.Next(tc.e)
		assert.Equal(t, tc.to, to, "%v + %v", tc.from, tc.e)
		assert.Equal(t, tc.op, op, "%v + %v", tc.from, tc.e)
	}
}

func TestLegacyStrings(t *testing.T) {
	for e, s := range map[PodEviction]string{EvictionWait: "Wait", EvictionDue: "Due", EvictionCancel: "Cancel", PodEviction(9): "PodEviction(9)"} {
		assert.Equal(t, s, e.String())
	}
	for st, s := range map[EvictionState]string{Unmarked: "Unmarked", ToBeEvicted: "ToBeEvicted", Evicted: "Evicted", EvictionState(9): "EvictionState(9)"} {
		assert.Equal(t, s, st.String())
	}
	for op, s := range map[EvictionOp]string{OpNone: "None", OpEnqueue: "Enqueue", OpDeleteNow: "DeleteNow", OpDequeue: "Dequeue", EvictionOp(9): "EvictionOp(9)"} {
		assert.Equal(t, s, op.String())
	}
}

// beat posts each node's Ready status with a heartbeat at now, then runs a pass.
func beat(posts map[string]v1.ConditionStatus) func(c *cluster, now time.Time) {
	return func(c *cluster, now time.Time) {
		for _, n := range []string{"n1", "n2", "n3"} {
			if s, ok := posts[n]; ok {
				c.kubelet(n, s, now)
			}
		}
		c.pass(now)
	}
}

// TestLegacySteps runs the test controller (v1.26.15 legacy mode: timeout 5 m, grace 40 s, a
// second ready node present) through a node that reports False, one that goes silent (and
// recovers or not), one that never posted, and a zone that goes down whole.
func TestLegacySteps(t *testing.T) {
	notReadyNS := []string{v1.TaintNodeNotReady}
	unreachNS := []string{v1.TaintNodeUnreachable}

	t.Run("Ready False from t0, heartbeats go on: due 1ns after 5m", func(t *testing.T) {
		c := newCluster()
		c.addNode("n1", "z", t0.Add(-time.Hour), t0)
		c.addNode("n2", "z", t0.Add(-time.Hour), t0)
		c.addPod("p1", "n1")
		c.kubelet("n1", tFalse, t0)
		both := beat(map[string]v1.ConditionStatus{"n1": tFalse, "n2": tTrue})
		waiting := snapshot{Ready: tFalse, NoSchedule: notReadyNS, PodReady: tTrue}
		steps := []simStep{{"first pass observes False", 0, both, waiting}}
		for d := 10 * time.Second; d < 5*time.Minute; d += 10 * time.Second {
			steps = append(steps, simStep{"heartbeat and pass", d, both, waiting})
		}
		steps = append(steps,
			simStep{"exactly 5m: not due", 5 * time.Minute, both, waiting},
			simStep{"1ns later: due, queued", 5*time.Minute + 1, both,
				snapshot{Ready: tFalse, NoSchedule: notReadyNS, PodReady: tTrue, Queued: true, State: ToBeEvicted}},
		)
		runSteps(t, c, "n1", "p1", steps)
	})

	t.Run("silent from t0: due from the probe, deleted by the queue, cancelled when Ready", func(t *testing.T) {
		for _, recover := range []bool{false, true} {
			c := newCluster()
			c.addNode("n1", "z", t0.Add(-time.Hour), t0)
			c.addNode("n2", "z", t0.Add(-time.Hour), t0)
			c.addPod("p1", "n1")
			pass := passWith("n2")
			steps := []simStep{
				{"first pass", 0, pass, snapshot{Ready: tTrue, PodReady: tTrue}},
				{"Unknown written at 41s; v1.26 still decides on True", 41 * time.Second, pass,
					snapshot{Ready: tUnknown, NoSchedule: unreachNS, PodReady: tFalse}},
				{"exactly probe + 5m: not due", 5 * time.Minute, pass,
					snapshot{Ready: tUnknown, NoSchedule: unreachNS, PodReady: tFalse}},
				{"1ns later: due (from the probe, not the transition at 41s)", 5*time.Minute + 1, pass,
					snapshot{Ready: tUnknown, NoSchedule: unreachNS, PodReady: tFalse, Queued: true, State: ToBeEvicted}},
			}
			if recover {
				steps = append(steps,
					simStep{"kubelet back", 5*time.Minute + 2*time.Second, post("n1", tTrue),
						snapshot{Ready: tTrue, PodReady: tFalse, Queued: true, State: ToBeEvicted}},
					simStep{"Ready True cancels: unmarked, dequeued", 5*time.Minute + 5*time.Second, pass,
						snapshot{Ready: tTrue, PodReady: tFalse}},
					simStep{"nothing is deleted", 5*time.Minute + 6*time.Second, tryQueues,
						snapshot{Ready: tTrue, PodReady: tFalse}},
				)
				runSteps(t, c, "n1", "p1", steps)
				assert.Empty(t, c.deleted)
				continue
			}
			steps = append(steps,
				simStep{"the zone's token: pods deleted, node evicted", 5*time.Minute + 100*time.Millisecond, tryQueues,
					snapshot{Ready: tUnknown, NoSchedule: unreachNS, Tombstone: true, State: Evicted}},
			)
			runSteps(t, c, "n1", "p1", steps)
			assert.Equal(t, []string{"p1"}, c.deleted)

			// A pod bound to the evicted node later is deleted at once, without a token.
			c.addPod("p2", "n1")
			c.podBound("p2", at(5*time.Minute+3*time.Second))
			assert.Equal(t, []string{"p1", "p2"}, c.deleted)
		}
	})

	t.Run("created 10m ago, never posted: due on the first pass", func(t *testing.T) {
		c := newCluster()
		c.nodes["n1"] = mkNode("n1", "z", at(-10*time.Minute))
		c.addNode("n2", "z", t0.Add(-time.Hour), t0)
		runSteps(t, c, "n1", "", []simStep{
			{"first pass", 0, passWith("n2"), snapshot{Ready: tUnknown, NoSchedule: unreachNS, Queued: true, State: ToBeEvicted}},
		})
	})

	t.Run("the only zone all down for 6m: queued, never dequeued", func(t *testing.T) {
		c := newCluster()
		c.addNode("n1", "z", t0.Add(-time.Hour), t0)
		c.addNode("n2", "z", t0.Add(-time.Hour), t0)
		c.addPod("p1", "n1")
		entered := false
		for d := time.Duration(0); d <= 7*time.Minute; d += 5 * time.Second {
			c.pass(at(d))
			entered = entered || c.last.Entered
			c.try(at(d + 100*time.Millisecond))
		}
		assert.True(t, entered, "entered the all-zones-down mode")
		assert.True(t, c.last.AllDown())
		for _, n := range []string{"n1", "n2"} {
			s := c.snap(n, "")
			assert.Equal(t, ToBeEvicted, s.State, n)
			assert.True(t, s.Queued, n)
		}
		assert.Empty(t, c.deleted)
		assert.Zero(t, c.queues[":\x00:z"].QPS(), "rate 0")
	})
}

// TestPodBoundToEvictedNode: a pod bound to a node whose pods were already deleted is deleted
// at once, without waiting for a token, and marked not ready.
func TestPodBoundToEvictedNode(t *testing.T) {
	var cfg Config
	saved := &nl.Probe{ProbeTime: at(6 * time.Minute), ReadyTransitionTime: t0, Ready: ptr(readyCond(tFalse, at(6*time.Minute), t0))}
	now := at(6 * time.Minute)
	pod := readyPod("p", "n1")

	ready, mark, ok := nl.PodBoundToNode(saved)
	require.True(t, ok)
	assert.Equal(t, tFalse, ready)
	assert.True(t, mark)
	pe, err := Decide(ready, saved, now, cfg)
	require.NoError(t, err)
	assert.Equal(t, EvictionDue, pe)
	state, op := Evicted.Next(pe)
	assert.Equal(t, Evicted, state)
	assert.Equal(t, OpDeleteNow, op, "at once, without a token")
	plan := PlanPodDeletion([]*v1.Pod{pod}, "n1", DaemonSets{})
	require.Len(t, plan, 1)
	assert.Equal(t, PodDelete, plan[0].Fate)
	np, changed := nl.MarkPodNotReady(pod, "n1", now)
	assert.True(t, changed)
	assert.Equal(t, tFalse, np.Status.Conditions[0].Status)
}
