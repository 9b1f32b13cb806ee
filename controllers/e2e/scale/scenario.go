package scale

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// scenario is something that happens to a running cluster.
type scenario struct {
	name string
	// affected picks the nodes the scenario acts on, by index.
	affected func(s Shape) []int
	// expect returns the pods the controllers must evict, from the shape
	// and the affected nodes alone; nil when no prediction holds (racy).
	expect func(s Shape, affected []int) map[string]bool
	// racy says that which pods go depends on how the controller's passes
	// fall, in kube-controller-manager too: the run is checked against its
	// own observations, and ours is not required to evict kcm's pods.
	racy bool
	// act does it: silences nodes, taints them.
	act func(ctx context.Context, r *runner, affected []int) error
	// done reports whether the scenario has ended, and how far it is.
	done func(r *runner, affected []int, expected int) (bool, string)
	// bound limits the wait for done; settle is waited after it.
	bound  func(s Shape) time.Duration
	settle time.Duration
	// check, if set, finds what else the run did wrong, from its own inputs.
	check func(r *runner, affected []int, changes []taintChange) []string
}

// userTaint is the taint the taint scenario adds: a user draining nodes.
var userTaint = v1.Taint{Key: "evictkit.io/maintenance", Value: "true", Effect: v1.TaintEffectNoExecute}

// scenarios are every scenario, by name, in the order they run.
var scenarios = []scenario{
	{
		name: "zone",
		affected: func(s Shape) []int {
			var out []int
			for i := range s.Nodes {
				if s.zoneOf(i) == s.zoneOf(0) {
					out = append(out, i)
				}
			}
			return out
		},
		expect: podsOf(func(r role) bool { _, ok := r.tolerationOf(); return ok }),
		act: func(ctx context.Context, r *runner, affected []int) error {
			return r.silence(ctx, r.names(affected))
		},
		done: evictedAll,
		// Marking the zone's nodes Unknown and evicting their pods both
		// go at the controllers' client rate limit: at 3,000 nodes they,
		// not the eviction rate, decide when the last pod goes.
		bound: func(s Shape) time.Duration {
			zone := Shape{Nodes: s.Nodes / s.Zones, PodsPerNode: s.PodsPerNode}
			return silenceBound(zone.Nodes) + markingBound(zone) + evictingBound(zone.Nodes*zone.PodsPerNode) + longTolerance
		},
		settle: 10 * time.Second,
		check:  checkSilence,
	},
	{
		name: "flap",
		affected: func(s Shape) []int {
			var out []int
			for i := 0; i < s.Nodes; i += 10 {
				out = append(out, i)
			}
			return out
		},
		expect: podsOf(func(r role) bool { return r == tolerateShort }),
		act: func(ctx context.Context, r *runner, affected []int) error {
			if err := r.silence(ctx, r.names(affected)); err != nil {
				return err
			}
			return r.bringBackWhenShortGone(ctx, affected, r.start.Add(flapBound(r.shape)))
		},
		done: func(r *runner, affected []int, expected int) (bool, string) {
			nodes := r.names(affected)
			notReady := r.obs.notInStatus(nodes, v1.ConditionTrue)
			tainted := r.obs.tainted(nodes, v1.TaintNodeUnreachable, v1.TaintNodeNotReady)
			return notReady == 0 && tainted == 0, fmt.Sprintf("%d of %d flapping nodes back, %d still tainted", len(nodes)-notReady, len(nodes), tainted)
		},
		bound:  flapBound,
		settle: 10 * time.Second,
		check:  checkSilence,
	},
	{
		name: "taint",
		affected: func(s Shape) []int {
			n := min(500, s.Nodes/2)
			var out []int
			for i := range n {
				out = append(out, i*s.Nodes/n)
			}
			return out
		},
		expect: podsOf(role.evictedByUserTaint),
		act: func(ctx context.Context, r *runner, affected []int) error {
			nodes := r.names(affected)
			return parallel(32, len(nodes), func(i int) error {
				return r.addTaint(ctx, nodes[i], userTaint)
			})
		},
		done: evictedAll,
		bound: func(s Shape) time.Duration {
			return 5*time.Minute + time.Duration(s.Nodes*s.PodsPerNode)*10*time.Millisecond
		},
		settle: 10 * time.Second,
	},
	{
		name:     "all",
		affected: func(s Shape) []int { return indices(s.Nodes) },
		racy:     true,
		// Every node falls silent at once: kwok stops renewing their
		// Leases, then, a renewal interval later, the test renews every
		// Lease one last time, so that their grace periods end together.
		// No eviction at all is not what upstream does here: the pass
		// that finds the nodes silent marks them Unknown (a live Lease
		// read, the node's status and each pod's Ready condition, under
		// the client's rate limit: minutes at this size), and the zone
		// queues, still at their Normal rate, taint nodes meanwhile; when
		// the pass sees every zone fully disrupted it lifts the taints, but
		// a tainting pass under way may taint more after that, and those
		// stay. A pod whose toleration is shorter than its node's taint
		// lasts is evicted, by kcm and by ours, and which ones is a race
		// (at 1,000 nodes kcm added NoExecute taints to 50 nodes after its
		// first removal of one, and 123 nodes still held one at the end). So the run is held to what every run is (no
		// pod evicted before its toleration ends) and to kcm's writes per
		// eviction, nothing more.
		act: func(ctx context.Context, r *runner, affected []int) error {
			return r.silence(ctx, r.names(affected))
		},
		done: func(r *runner, affected []int, _ int) (bool, string) {
			nodes := r.names(affected)
			n := r.obs.notInStatus(nodes, v1.ConditionUnknown)
			return n == 0, fmt.Sprintf("%d of %d nodes Ready=Unknown", len(nodes)-n, len(nodes))
		},
		bound: func(s Shape) time.Duration { return silenceBound(0) + markingBound(s) },
		// Several monitor periods, for the evictions the pass started.
		settle: shortTolerance + 25*time.Second,
	},
}

// flapBound bounds the flap scenario: silencing a tenth of s's nodes,
// marking them Unknown, tainting them and evicting their short-tolerating
// pods, and two minutes for them to come back.
func flapBound(s Shape) time.Duration {
	flapping := Shape{Nodes: (s.Nodes + 9) / 10, PodsPerNode: s.PodsPerNode}
	return silenceBound(flapping.Nodes) + markingBound(flapping) + evictingBound(flapping.Nodes*s.shortPerNode()) + 2*time.Minute
}

// bringBackWhenShortGone brings each of the silenced nodes affected back
// once every pod of it that tolerates a silent node only shortly has been
// evicted: its pods that tolerate it long then stay, their toleration
// longTolerance-shortTolerance from its end. Nodes are not brought back at
// a fixed time: how long marking, tainting and evicting take grows with
// the cluster and the machine's load (at 3,000 nodes on 2 cores, a silence
// of the grace period and 40 seconds ended before a third of the flapping
// nodes were tainted). It returns at deadline with the nodes left silent.
func (r *runner) bringBackWhenShortGone(ctx context.Context, affected []int, deadline time.Time) error {
	short := r.shape.shortPerNode()
	silent := map[string]bool{}
	for _, n := range r.names(affected) {
		silent[n] = true
	}
	for len(silent) > 0 && time.Now().Before(deadline) {
		gone := map[string]int{}
		for _, e := range r.obs.evictedSince(r.start) {
			if silent[e.Node] {
				gone[e.Node]++
			}
		}
		var back []string
		for n := range silent {
			if gone[n] >= short {
				back = append(back, n)
				delete(silent, n)
			}
		}
		if err := r.setHeartbeat(ctx, back, true); err != nil {
			return err
		}
		if err := sleep(ctx, time.Second); err != nil {
			return err
		}
	}
	return nil
}

// sleep waits d, or until ctx ends (its error then).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// silenceBound bounds the time from silencing n nodes to the last of them
// tainted: the Lease renewal interval, the grace period, the monitor period
// and n nodes at the eviction rate, and as much again for a busy machine.
func silenceBound(n int) time.Duration {
	d := renewInterval + gracePeriod + monitorPeriod + time.Duration(n)*time.Second/evictionRate
	return 2*d + time.Minute
}

// markingBound bounds the time a monitor pass takes to mark every node of s
// Unknown: per node a live Lease read, its status and each pod's Ready
// condition, all under the controller's client rate limit; twice that for
// a busy machine. (At 1,000 nodes of 10 pods, about 2 minutes at 100
// requests a second: kube-controller-manager takes as long.)
func markingBound(s Shape) time.Duration {
	requests := s.Nodes * (s.PodsPerNode + 2)
	return 2 * time.Duration(requests) * time.Second / apiQPS
}

// evictingBound bounds the time the taint-eviction controller takes to
// evict n pods: a delete and an Event each, under its client rate limit;
// twice that for a busy machine.
func evictingBound(n int) time.Duration {
	return 2 * time.Duration(2*n) * time.Second / apiQPS
}

// podsOf returns an expect function: the pods of the affected nodes whose
// role evict says.
func podsOf(evict func(role) bool) func(Shape, []int) map[string]bool {
	return func(s Shape, affected []int) map[string]bool {
		out := map[string]bool{}
		for _, i := range affected {
			for j := range s.PodsPerNode {
				if evict(roleOf(j)) {
					out[s.podName(i, j)] = true
				}
			}
		}
		return out
	}
}

// evictedAll is done when as many pods were evicted as expected.
func evictedAll(r *runner, _ []int, expected int) (bool, string) {
	n := len(r.obs.evictedSince(r.start))
	return n >= expected, fmt.Sprintf("%d of %d pods evicted", n, expected)
}

// checkSilence checks the node lifecycle controller's taints against the
// run's own inputs: no unreachable taint on a silenced node before its last
// Lease renewal (at most one renewal interval before the silence) plus the
// grace period, and none on a node that was not silenced.
func checkSilence(r *runner, affected []int, changes []taintChange) []string {
	silenced := map[string]bool{}
	for _, n := range r.names(affected) {
		silenced[n] = true
	}
	earliest := r.start.Add(-renewInterval + gracePeriod - time.Second)
	var early, stray []string
	for _, c := range changes {
		if !c.Added || (c.Key != v1.TaintNodeUnreachable && c.Key != v1.TaintNodeNotReady) {
			continue
		}
		switch {
		case !silenced[c.Node]:
			stray = append(stray, c.Node+" "+c.Key)
		case !c.TimeAdded.IsZero() && c.TimeAdded.Before(earliest.Truncate(time.Second)):
			early = append(early, fmt.Sprintf("%s at %s", c.Node, c.TimeAdded.Format("15:04:05")))
		}
	}
	var out []string
	if len(stray) > 0 {
		out = append(out, fmt.Sprintf("%d nodes tainted that kept their heartbeat: %s", len(stray), head(stray)))
	}
	if len(early) > 0 {
		out = append(out, fmt.Sprintf("%d nodes tainted before their grace period ran out (earliest allowed %s): %s", len(early), earliest.Format("15:04:05"), head(early)))
	}
	return out
}

func (r *runner) names(idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = r.shape.nodeName(i)
	}
	return out
}

func indices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// addTaint adds taint to node, stamped now, as kubectl taint would.
func (r *runner) addTaint(ctx context.Context, node string, taint v1.Taint) error {
	for {
		n, err := r.client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("scale: taint node %s: %w", node, err)
		}
		n = n.DeepCopy()
		taint.TimeAdded = &metav1.Time{Time: time.Now()}
		n.Spec.Taints = append(n.Spec.Taints, taint)
		_, err = r.client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		if err == nil {
			return nil
		}
		if !apierrors.IsConflict(err) {
			return fmt.Errorf("scale: taint node %s: %w", node, err)
		}
	}
}
