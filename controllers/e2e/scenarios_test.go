package e2e

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// scenario is one story told to a cluster; it asserts what the API server
// holds, and its trace (the events of its nodes and pods, named with its
// prefix) is compared between variants.
type scenario struct {
	name   string
	prefix string
	run    func(t *testing.T, c *cluster)
}

var scenarios = []scenario{
	{"NoExecuteTaintAddedByUser", "s1a", noExecuteTaintAddedByUser},
	{"TaintBasedEvictions", "s1b", taintBasedEvictions},
	{"NodeGoesSilent", "s2", nodeGoesSilent},
}

// patience bounds every wait of a scenario. It only keeps a broken run from
// hanging: when each change happens is judged afterwards against the run's
// own inputs (checkTimes), so a loaded machine that slows a run does not fail
// it.
const patience = 2 * time.Minute

// excluded keeps a node out of its zone's disruption count, as upstream's
// integration tests do for their nodes.
var excluded = map[string]string{"node.kubernetes.io/exclude-disruption": "true"}

// noExecuteTaintAddedByUser is upstream's integration scenario of the same
// name: a user taints a node NoExecute; a pod that does not tolerate the
// taint is deleted with the DisruptionTarget condition, a pod that tolerates
// it stays. A third pod that tolerates it for 2 s marks the time by which the
// tolerating one would have gone too.
func noExecuteTaintAddedByUser(t *testing.T, c *cluster) {
	ns := c.namespace(t, "s1a")
	for i := range 3 {
		c.createNode(t, "s1a-"+string(rune('0'+i)), "s1a", v1.ConditionTrue, excluded)
	}
	const key = "CustomTaintByUser"
	c.createPod(t, ns, "untolerating", "s1a-1")
	c.createPod(t, ns, "tolerating", "s1a-1", tolerate(key, nil))
	c.createPod(t, ns, "two-seconds", "s1a-1", tolerate(key, ptr(int64(2))))
	c.createPod(t, ns, "elsewhere", "s1a-2")
	c.waitNoExecute(t, patience, "s1a-1")

	c.addTaint(t, "s1a-1", v1.Taint{Key: key, Effect: v1.TaintEffectNoExecute})
	c.waitEvicted(t, patience, ns, "untolerating")
	c.waitEvicted(t, patience, ns, "two-seconds")
	c.requirePresent(t, ns, "tolerating", "elsewhere")
}

// taintBasedEvictions is upstream's TestTaintBasedEvictions, its cases on
// one cluster: a node that reports Ready=False is tainted not-ready and one
// that reports Ready=Unknown unreachable; pods that tolerate the taint for
// 0 s go at once, for 3 s after that (no earlier: checkTimes holds every
// deletion to its toleration), forever never; a pod with no tolerations gets
// the admission default of 300 s and stays.
//
// Its pods never report ready (their kubelets report nothing). The node
// lifecycle controller marks a pod not ready when it handles the pod's
// arrival if by then the pod reports ready and a monitor pass has judged
// its node not ready; a ready pod arriving here would be marked or not by
// which came first, in kube-controller-manager too. NodeGoesSilent has the
// ready pods: they are marked when their node goes silent.
func taintBasedEvictions(t *testing.T, c *cluster) {
	ns := c.namespace(t, "s1b")
	c.createNode(t, "s1b-0", "s1b", v1.ConditionTrue, excluded)
	c.createNode(t, "s1b-1", "s1b", v1.ConditionFalse, excluded)
	c.createNode(t, "s1b-2", "s1b", v1.ConditionUnknown, excluded)
	c.createNode(t, "s1b-3", "s1b", v1.ConditionTrue, excluded)
	notReady, unreachable := v1.TaintNodeNotReady, v1.TaintNodeUnreachable
	c.createUnreadyPod(t, ns, "zero", "s1b-1", tolerate(notReady, ptr(int64(0))))
	c.createUnreadyPod(t, ns, "three", "s1b-1", tolerate(notReady, ptr(int64(3))))
	c.createUnreadyPod(t, ns, "forever", "s1b-1", tolerate(notReady, nil))
	c.createUnreadyPod(t, ns, "default", "s1b-1")
	c.createUnreadyPod(t, ns, "unreachable-zero", "s1b-2", tolerate(unreachable, ptr(int64(0))))
	c.createUnreadyPod(t, ns, "healthy-node", "s1b-0", tolerate(notReady, ptr(int64(0))))

	c.waitNoExecute(t, patience, "s1b-1", notReady)
	c.waitNoExecute(t, patience, "s1b-2", unreachable)
	c.waitEvicted(t, patience, ns, "zero")
	c.waitEvicted(t, patience, ns, "unreachable-zero")
	c.waitEvicted(t, patience, ns, "three")
	c.requirePresent(t, ns, "forever", "default", "healthy-node")
	_, def := c.podState(ns, "default")
	if def != nil {
		for _, tol := range def.Spec.Tolerations {
			if tol.Key == notReady && (tol.TolerationSeconds == nil || *tol.TolerationSeconds != 300) {
				t.Errorf("pod default: not-ready toleration %+v, want the admission default of 300 s", tol)
			}
		}
	}
}

// nodeGoesSilent is the seed's story: nodes heartbeat through their Leases;
// two stop; they turn Unknown and are tainted unreachable, and the pods on
// them are marked not ready and deleted once their toleration runs out. One
// node comes back before its pod's toleration ends: it is untainted and its
// pod stays; on the other, the pods that tolerate the taint for long stay.
func nodeGoesSilent(t *testing.T, c *cluster) {
	ns := c.namespace(t, "s2")
	for i := range 4 {
		c.createNode(t, "s2-"+string(rune('0'+i)), "s2", v1.ConditionTrue, nil)
	}
	unreachable := v1.TaintNodeUnreachable
	c.createPod(t, ns, "two", "s2-1", tolerate(unreachable, ptr(int64(2))))
	c.createPod(t, ns, "five", "s2-1", tolerate(unreachable, ptr(int64(5))))
	c.createPod(t, ns, "forever", "s2-1", tolerate(unreachable, nil))
	c.createPod(t, ns, "default", "s2-1")
	c.createPod(t, ns, "returns", "s2-2", tolerate(unreachable, ptr(int64(60))))
	c.createPod(t, ns, "healthy", "s2-0")
	// Taint eviction ignores PodDisruptionBudgets; this one is in the
	// snapshot the whatif check takes, as kubectl get pdb lists it.
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "healthy", Namespace: ns},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptr(intstr.FromInt32(1)),
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "healthy"}},
		},
	}
	if _, err := c.client.PolicyV1().PodDisruptionBudgets(ns).Create(c.ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		c.waitNoExecute(t, patience, "s2-"+string(rune('0'+i)))
	}

	c.silenceNodes(t, "s2-1", "s2-2")
	c.waitNoExecute(t, patience, "s2-1", unreachable)
	c.waitNoExecute(t, patience, "s2-2", unreachable)
	c.waitEvicted(t, patience, ns, "two")
	c.waitEvicted(t, patience, ns, "five")

	c.reviveNode("s2-2")
	c.postStatus(t, "s2-2", v1.ConditionTrue)
	c.setAlive("s2-2", true)
	c.waitNoExecute(t, patience, "s2-2")
	c.requirePresent(t, ns, "forever", "default", "returns", "healthy")
	_, forever := c.podState(ns, "forever")
	if forever != nil {
		if r := podCondition(forever, v1.PodReady); r == nil || r.Status != v1.ConditionFalse {
			t.Errorf("pod forever on the silent node: Ready = %+v, want False", r)
		}
	}
}

// TestScenarios runs every scenario on each variant, kube-controller-
// manager's controllers and ours in their place. Each run is judged against
// its own inputs (checkTimes: a silent node turns Unknown a grace period
// after its last Lease renewal, a pod is deleted when its toleration of the
// taint runs out, every reaction within a monitor period and a few times the
// run's measured lag); then every run of ours is compared with kube-
// controller-manager's: the same taints, conditions, deletions and Events, in
// the same causal order (compareRuns). No time of one run is compared with
// another's.
func TestScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel()
	go func() { _, _ = whatifBinary() }() // built while the clusters start
	var traces runs
	t.Run("variants", func(t *testing.T) {
		for _, v := range variants {
			t.Run(v.name, func(t *testing.T) {
				t.Parallel()
				c := startCluster(t, v)
				tr := c.startTrace(t)
				starts := map[string]time.Time{}
				for _, s := range scenarios {
					t.Run(s.name, func(t *testing.T) {
						starts[s.name] = time.Now()
						s.run(t, c)
						t.Logf("%s on %s took %v", s.name, v.name, time.Since(starts[s.name]).Round(100*time.Millisecond))
					})
				}
				// The fifth scenario, on each variant at no cost
				// in cluster time: whatif, given a snapshot taken as the
				// nodes of NodeGoesSilent went silent, predicts it.
				t.Run("WhatifPredictsNodeGoesSilent", func(t *testing.T) {
					start := time.Now()
					c.checkPrediction(t, tr, "s2")
					t.Logf("the whatif check on %s took %v", v.name, time.Since(start).Round(10*time.Millisecond))
				})
				// Each scenario's changes, taken now that the Events of
				// its last steps have reached the API server too (every
				// scenario names its objects with a prefix of its own).
				for _, s := range scenarios {
					start, ran := starts[s.name]
					if !ran {
						continue
					}
					t.Run("times/"+s.name, func(t *testing.T) {
						evs := judgeTimes(t, tr, start, s.prefix, func(evs []event) map[string]time.Duration {
							return c.lastRenewals(t, tr, start, s.prefix, evs)
						})
						traces.add(s.name, v.name, evs)
					})
				}
			})
		}
	})
	for _, s := range scenarios {
		t.Run("drop-in/"+s.name, func(t *testing.T) { dropIn(t, traces.of(s.name), upstream, variants[1:]) })
	}
}

// judgeTimes returns the changes of a scenario (its objects named with
// prefix) seen since start, after judging their times against the run's
// own inputs: its lag, and the Lease renewals renewals finds (nil: none).
func judgeTimes(t *testing.T, tr *trace, start time.Time, prefix string, renewals func([]event) map[string]time.Duration) []event {
	t.Helper()
	evs := tr.since(start, prefix)
	lag := tr.lag(start, time.Now())
	var r map[string]time.Duration
	if renewals != nil {
		r = renewals(evs)
	}
	t.Logf("trace (lag %v):\n%s", lag, formatTrace(evs))
	for _, p := range checkTimes(evs, runSettings(lag), r) {
		t.Error(p)
	}
	return evs
}

// runs holds each scenario's changes by variant; the variants run in
// parallel.
type runs struct {
	mu sync.Mutex
	m  map[string]map[string][]event // scenario → variant → changes
}

func (r *runs) add(scenario, variant string, evs []event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]map[string][]event{}
	}
	if r.m[scenario] == nil {
		r.m[scenario] = map[string][]event{}
	}
	r.m[scenario][variant] = evs
}

// of returns a scenario's runs by variant name.
func (r *runs) of(scenario string) map[string][]event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[scenario]
}

// dropIn requires every other variant's run of a scenario (runs, by
// variant name) to make the reference run's changes and Events in its
// causal order.
func dropIn(t *testing.T, runs map[string][]event, ref variant, others []variant) {
	t.Helper()
	want, ok := runs[ref.name]
	if !ok {
		t.Skip("no reference run")
	}
	for _, v := range others {
		got, ok := runs[v.name]
		if !ok {
			t.Errorf("%s: no run", v.name)
			continue
		}
		problems := compareRuns(want, got)
		t.Logf("%s against kcm: %d changes and Events, %d problems", v.name, len(got), len(problems))
		for _, p := range problems {
			t.Errorf("%s: %s", v.name, p)
		}
	}
}

// lastRenewals returns, for each node of the scenario (named with prefix)
// that the cluster silenced, its last Lease renewal before the silence ended
// (when the node came back, or now), as an offset from start. It logs, as
// the evidence for when the node may turn Unknown, when the silence began,
// the renewal, and when the node turned Unknown in evs.
func (c *cluster) lastRenewals(t *testing.T, tr *trace, start time.Time, prefix string, evs []event) map[string]time.Duration {
	s := c.silence
	if s == nil || s.at.Before(start) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]time.Duration{}
	for _, n := range s.nodes {
		if !strings.HasPrefix(n, prefix) {
			continue
		}
		until := time.Now()
		if b, ok := s.back[n]; ok {
			until = b
		}
		r, ok := tr.renewedBefore(n, until)
		if !ok {
			continue
		}
		out[n] = r.Sub(start)
		unknown := "never"
		if i := slices.IndexFunc(evs, func(e event) bool { return e.what == "node "+n+" Ready=Unknown" }); i >= 0 {
			unknown = fmt.Sprintf("at %.2fs, %.2fs after the renewal", offset(evs[i]).Seconds(), (offset(evs[i]) - out[n]).Seconds())
		}
		t.Logf("node %s: silenced at %.2fs from the scenario's start (its snapshots done), last Lease renewal at %.2fs, Unknown %s",
			n, s.at.Sub(start).Seconds(), out[n].Seconds(), unknown)
	}
	return out
}
