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

// TestStepSilentNodeUnreachableRecovers: a node goes silent at t0
// in a Normal zone with a second, healthy node; it is marked Unknown at the first pass after
// the grace period, tainted unreachable when its zone's token comes, and untainted when its
// kubelet posts Ready again.
func TestStepSilentNodeUnreachableRecovers(t *testing.T) {
	c := newCluster(Config{})
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

// TestStepNotReadyThenSilent: a kubelet that posts Ready False is queued at the next pass and
// tainted not-ready when the token comes; its pods stay ready (the kubelet, not the
// controller, turned it not ready). When it then goes silent past the grace period, the pass
// that marks it Unknown swaps not-ready for unreachable at once, bypassing the queue.
func TestStepNotReadyThenSilent(t *testing.T) {
	c := newCluster(Config{})
	c.addNode("n1", "z", t0.Add(-time.Hour), t0)
	c.addNode("n2", "z", t0.Add(-time.Hour), t0)
	c.addPod("p1", "n1")
	pass := passWith("n2")
	notReady := []string{v1.TaintNodeNotReady}
	unreach := []string{v1.TaintNodeUnreachable}
	runSteps(t, c, "n1", "p1", []simStep{
		{"first pass", 0, pass, snapshot{Ready: tTrue, PodReady: tTrue}},
		{"kubelet posts False: NoSchedule not-ready on the update", time.Second, post("n1", tFalse),
			snapshot{Ready: tFalse, NoSchedule: notReady, PodReady: tTrue}},
		{"next pass: queued", 5 * time.Second, pass, snapshot{Ready: tFalse, NoSchedule: notReady, Queued: true, PodReady: tTrue}},
		{"the token: not-ready:NoExecute", 5*time.Second + 100*time.Millisecond, tryQueues,
			snapshot{Ready: tFalse, NoExecute: notReady, NoSchedule: notReady, Tombstone: true, PodReady: tTrue}},
		{"silent since 1s, last heard at the 5s pass: still within the grace period at 55s", 55 * time.Second, pass,
			snapshot{Ready: tFalse, NoExecute: notReady, NoSchedule: notReady, Tombstone: true, PodReady: tTrue}},
		{"marked Unknown: swapped to unreachable at once, pods still ready (it was not Ready before)", 60 * time.Second, pass,
			snapshot{Ready: tUnknown, NoExecute: unreach, NoSchedule: unreach, Tombstone: true, PodReady: tTrue}},
	})
	assert.Equal(t, 1, c.writes)
}
