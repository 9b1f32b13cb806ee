package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

const (
	tTrue    = v1.ConditionTrue
	tFalse   = v1.ConditionFalse
	tUnknown = v1.ConditionUnknown
)

type simStep struct {
	name string
	at   time.Duration
	act  func(c *cluster, now time.Time)
	want snapshot
}

// passWith returns a pass preceded by the heartbeats of the given healthy nodes.
func passWith(healthy ...string) func(c *cluster, now time.Time) {
	return func(c *cluster, now time.Time) {
		for _, n := range healthy {
			c.kubelet(n, tTrue, now)
		}
		c.pass(now)
	}
}

func tryQueues(c *cluster, now time.Time) { c.try(now) }

func post(node string, s v1.ConditionStatus) func(c *cluster, now time.Time) {
	return func(c *cluster, now time.Time) { c.kubelet(node, s, now) }
}

func runSteps(t *testing.T, c *cluster, node, pod string, steps []simStep) {
	t.Helper()
	for _, st := range steps {
		st.act(c, at(st.at))
		assert.Equal(t, st.want, c.snap(node, pod), "%s (t0+%v)", st.name, st.at)
	}
}

// TestStepSilentNodeUnreachableRecovers is spec case 22 (v1.37.2): a node goes silent at t0
// in a Normal zone with a second, healthy node; it is marked Unknown at the first pass after
// the grace period, tainted unreachable when its zone's token comes, and untainted when its
// kubelet posts Ready again.
func TestStepSilentNodeUnreachableRecovers(t *testing.T) {
	c := newCluster(DefaultConfig())
	c.addNode("n1", "z", t0.Add(-time.Hour), t0)
	c.addNode("n2", "z", t0.Add(-time.Hour), t0)
	c.addPod("p1", "n1")
	pass := passWith("n2")
	unreach := []string{v1.TaintNodeUnreachable}
	steps := []simStep{
		{"first pass sees n1 alive", 0, pass, snapshot{Ready: tTrue, PodReady: tTrue}},
		{"exactly the grace period: still alive", 50 * time.Second, pass, snapshot{Ready: tTrue, PodReady: tTrue}},
		{"first pass after it: Unknown written, NoSchedule unreachable, queued, pods NotReady", 55 * time.Second, pass,
			snapshot{Ready: tUnknown, NoSchedule: unreach, Queued: true, PodReady: tFalse}},
		{"the zone's token: unreachable:NoExecute added", 55*time.Second + 100*time.Millisecond, tryQueues,
			snapshot{Ready: tUnknown, NoExecute: unreach, NoSchedule: unreach, Tombstone: true, PodReady: tFalse}},
		{"still silent: the add is a no-op behind the tombstone", 60 * time.Second, pass,
			snapshot{Ready: tUnknown, NoExecute: unreach, NoSchedule: unreach, Tombstone: true, PodReady: tFalse}},
		{"kubelet posts Ready True: the NoSchedule taint goes on the node update", 62 * time.Second, post("n1", tTrue),
			snapshot{Ready: tTrue, NoExecute: unreach, Tombstone: true, PodReady: tFalse}},
		{"next pass: untainted and dequeued", 65 * time.Second, pass, snapshot{Ready: tTrue, PodReady: tFalse}},
		{"and it stays so", 70 * time.Second, pass, snapshot{Ready: tTrue, PodReady: tFalse}},
	}
	for i, st := range steps {
		st.act(c, at(st.at))
		require.Equal(t, st.want, c.snap("n1", "p1"), "step %d %s (t0+%v)", i, st.name, st.at)
		if i == 3 {
			taint := c.nodes["n1"].Spec.Taints
			for _, tn := range taint {
				if tn.Effect == v1.TaintEffectNoExecute {
					assert.Equal(t, mt(at(st.at)), *tn.TimeAdded, "stamped when the token came")
				}
			}
		}
	}
	assert.Equal(t, 1, c.writes, "one status write")
	assert.Equal(t, ZoneNormal, c.zones[":\x00:z"])
}

// TestStepV126ObservedVersusV137Current is spec case 37: v1.26 takes the NoExecute decision on
// the Ready condition it read before its own Unknown write, so it queues one pass later.
func TestStepV126ObservedVersusV137Current(t *testing.T) {
	for _, tc := range []struct {
		name     string
		v126     bool
		queuedAt time.Duration
	}{
		{"v1.26.15: the writing pass still sees True", true, 46 * time.Second},
		{"v1.37.2: the writing pass queues", false, 41 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(DefaultConfig126())
			c.v126 = tc.v126
			c.addNode("n1", "z", t0.Add(-time.Hour), t0)
			c.addNode("n2", "z", t0.Add(-time.Hour), t0)
			pass := passWith("n2")
			pass(c, t0)
			pass(c, at(41*time.Second))
			s := c.snap("n1", "")
			require.Equal(t, tUnknown, s.Ready, "Unknown written at t0+41s (grace 40s)")
			assert.Equal(t, tc.queuedAt == 41*time.Second, s.Queued)
			pass(c, at(46*time.Second))
			assert.True(t, c.snap("n1", "").Queued)
		})
	}
}

// TestSilentNodeMatchesPasses cross-checks [SilentNode] against pass-by-pass judgements.
func TestSilentNodeMatchesPasses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      Config
		start    time.Time
		lastBeat time.Time
	}{
		{"defaults, heartbeat on a pass", DefaultConfig(), t0, t0},
		{"defaults, heartbeat between passes", DefaultConfig(), t0, at(7 * time.Second)},
		{"v1.26 grace, odd start", DefaultConfig126(), at(-3 * time.Second), at(time.Second)},
		{"heartbeat before the controller started", DefaultConfig(), at(time.Minute), t0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.cfg.Schedule(tc.start)
			sil := SilentNode(tc.lastBeat, s, tc.cfg)
			node := mkNode("n", t0.Add(-time.Hour), readyCond(tTrue, t0.Add(-time.Hour), t0.Add(-time.Hour)))
			var saved *Probe
			var unknownAt time.Time
			for k := 0; k < 100 && unknownAt.IsZero(); k++ {
				now := s.Start.Add(time.Duration(k) * s.Period)
				lease := mkLease("n", "1", ptr(tc.lastBeat))
				if now.Before(tc.lastBeat) {
					lease = mkLease("n", "0", ptr(tc.lastBeat.Add(-time.Second)))
				}
				h := EvaluateWithLiveLease(node, lease, saved, LiveLease{Found: true, ResourceVersion: lease.ResourceVersion}, now, tc.cfg)
				if h.Verdict == Expired {
					unknownAt = now
				}
				p := h.Saved(true)
				saved = &p
				if !now.Before(tc.lastBeat) && now.Equal(sil.Observed) {
					assert.Equal(t, now, saved.ProbeTime, "probe at the observing pass")
				}
			}
			assert.Equal(t, sil.Unknown, unknownAt)
		})
	}
}

func TestSilentNode(t *testing.T) {
	def := DefaultConfig()
	legacy := DefaultConfig126()
	legacy.TaintBasedEviction = false
	cont := DefaultConfig()
	cont.MonitorPeriod = 0
	cases := []struct {
		name     string
		cfg      Config
		start    time.Time
		lastBeat time.Time
		want     Silence
	}{
		{"defaults: marked 55s after the observing pass", def, t0, t0,
			Silence{Observed: t0, Unknown: at(55 * time.Second), Taint: ne(v1.TaintNodeUnreachable)}},
		{"heartbeat between passes is observed at the next one", def, t0, at(2 * time.Second),
			Silence{Observed: at(5 * time.Second), Unknown: at(60 * time.Second), Taint: ne(v1.TaintNodeUnreachable)}},
		{"legacy v1.26: due strictly after probe + 5m and after the Unknown pass", legacy, t0, t0,
			Silence{Observed: t0, Unknown: at(45 * time.Second), PodEvictionDue: at(305 * time.Second)}},
		{"continuous monitoring: 1ns after the grace period", cont, t0, at(time.Second),
			Silence{Observed: at(time.Second), Unknown: at(51*time.Second + 1), Taint: ne(v1.TaintNodeUnreachable)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, SilentNode(tc.lastBeat, tc.cfg.Schedule(tc.start), tc.cfg))
		})
	}
	// legacy, timeout shorter than the grace period: due the pass after Unknown.
	short := legacy
	short.PodEvictionTimeout = 10 * time.Second
	assert.Equal(t, at(50*time.Second), SilentNode(t0, short.Schedule(t0), short).PodEvictionDue)
}

func TestSchedule(t *testing.T) {
	s := Schedule{Start: t0, Period: 5 * time.Second}
	cases := []struct {
		t              time.Time
		atOrAfter, aft time.Time
	}{
		{at(-time.Hour), t0, t0},
		{t0, t0, at(5 * time.Second)},
		{at(1), at(5 * time.Second), at(5 * time.Second)},
		{at(5 * time.Second), at(5 * time.Second), at(10 * time.Second)},
		{at(5*time.Second - 1), at(5 * time.Second), at(5 * time.Second)},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.atOrAfter, s.AtOrAfter(tc.t), "AtOrAfter(%v)", tc.t)
		assert.Equal(t, tc.aft, s.After(tc.t), "After(%v)", tc.t)
	}
	c := Schedule{Start: t0}
	assert.Equal(t, at(time.Second), c.AtOrAfter(at(time.Second)))
	assert.Equal(t, at(time.Second+1), c.After(at(time.Second)))
	assert.Equal(t, t0, c.After(at(-time.Second)))
}
