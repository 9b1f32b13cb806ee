package e2e

import (
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
	c.waitNoExecute(t, 20*time.Second, "s1a-1")

	c.addTaint(t, "s1a-1", v1.Taint{Key: key, Effect: v1.TaintEffectNoExecute})
	c.waitEvicted(t, 20*time.Second, ns, "untolerating")
	c.waitEvicted(t, 20*time.Second, ns, "two-seconds")
	c.requirePresent(t, ns, "tolerating", "elsewhere")
}

// taintBasedEvictions is upstream's TestTaintBasedEvictions, its cases on
// one cluster: a node that reports Ready=False is tainted not-ready and one
// that reports Ready=Unknown unreachable; pods that tolerate the taint for
// 0 s go at once, for 3 s after that, forever never; a pod with no
// tolerations gets the admission default of 300 s and stays.
func taintBasedEvictions(t *testing.T, c *cluster) {
	ns := c.namespace(t, "s1b")
	c.createNode(t, "s1b-0", "s1b", v1.ConditionTrue, excluded)
	c.createNode(t, "s1b-1", "s1b", v1.ConditionFalse, excluded)
	c.createNode(t, "s1b-2", "s1b", v1.ConditionUnknown, excluded)
	c.createNode(t, "s1b-3", "s1b", v1.ConditionTrue, excluded)
	notReady, unreachable := v1.TaintNodeNotReady, v1.TaintNodeUnreachable
	c.createPod(t, ns, "zero", "s1b-1", tolerate(notReady, ptr(int64(0))))
	c.createPod(t, ns, "three", "s1b-1", tolerate(notReady, ptr(int64(3))))
	c.createPod(t, ns, "forever", "s1b-1", tolerate(notReady, nil))
	c.createPod(t, ns, "default", "s1b-1")
	c.createPod(t, ns, "unreachable-zero", "s1b-2", tolerate(unreachable, ptr(int64(0))))
	c.createPod(t, ns, "healthy-node", "s1b-0", tolerate(notReady, ptr(int64(0))))

	c.waitNoExecute(t, 20*time.Second, "s1b-1", notReady)
	added := c.taintAdded(t, "s1b-1", notReady)
	c.waitNoExecute(t, 20*time.Second, "s1b-2", unreachable)
	c.waitEvicted(t, 15*time.Second, ns, "zero")
	c.waitEvicted(t, 15*time.Second, ns, "unreachable-zero")
	three := c.waitEvicted(t, 20*time.Second, ns, "three")
	// The pod's toleration clock starts when the controller sees the taint,
	// after the taint's TimeAdded; both times are stored in whole seconds,
	// so "3 s later" reads as at least 2 s apart.
	if three != nil && added != nil {
		if cond := podCondition(three, v1.DisruptionTarget); cond != nil {
			if d := cond.LastTransitionTime.Sub(added.Time); d < 2*time.Second {
				t.Errorf("pod three evicted %v after its node was tainted, want 3 s", d)
			}
		}
	}
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
		c.waitNoExecute(t, 20*time.Second, "s2-"+string(rune('0'+i)))
	}

	c.silenceNodes(t, "s2-1", "s2-2")
	c.waitNoExecute(t, 30*time.Second, "s2-1", unreachable)
	c.waitNoExecute(t, 30*time.Second, "s2-2", unreachable)
	c.waitEvicted(t, 20*time.Second, ns, "two")
	c.waitEvicted(t, 20*time.Second, ns, "five")

	c.reviveNode("s2-2")
	c.postStatus(t, "s2-2", v1.ConditionTrue)
	c.setAlive("s2-2", true)
	c.waitNoExecute(t, 30*time.Second, "s2-2")
	c.requirePresent(t, ns, "forever", "default", "returns", "healthy")
	_, forever := c.podState(ns, "forever")
	if forever != nil {
		if r := podCondition(forever, v1.PodReady); r == nil || r.Status != v1.ConditionFalse {
			t.Errorf("pod forever on the silent node: Ready = %+v, want False", r)
		}
	}
}

// TestScenarios runs every scenario on each variant, kube-controller-
// manager's controllers and ours in their place, then compares what the API
// server recorded: the same taints, conditions and deletions, in the same
// order, at times within one monitor period and a heartbeat.
func TestScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	go func() { _, _ = whatifBinary() }() // built while the clusters start
	var mu sync.Mutex
	traces := map[string]map[string][]event{} // scenario → variant → events
	t.Run("variants", func(t *testing.T) {
		for _, v := range variants {
			t.Run(v.name, func(t *testing.T) {
				t.Parallel()
				c := startCluster(t, v)
				tr := c.startTrace(t)
				for _, s := range scenarios {
					t.Run(s.name, func(t *testing.T) {
						start := time.Now()
						s.run(t, c)
						t.Logf("%s on %s took %v", s.name, v.name, time.Since(start).Round(100*time.Millisecond))
						evs := tr.since(start, s.prefix)
						t.Logf("trace:\n%s", formatTrace(evs))
						mu.Lock()
						defer mu.Unlock()
						if traces[s.name] == nil {
							traces[s.name] = map[string][]event{}
						}
						traces[s.name][v.name] = evs
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
			})
		}
	})
	tol := monitorPeriod + heartbeat + time.Second
	for _, s := range scenarios {
		t.Run("drop-in/"+s.name, func(t *testing.T) {
			ref, ok := traces[s.name][upstream.name]
			if !ok {
				t.Skip("no reference run")
			}
			for _, v := range variants[1:] {
				got, ok := traces[s.name][v.name]
				if !ok {
					t.Errorf("%s: no run", v.name)
					continue
				}
				problems, maxDiff := compareTraces(ref, got, tol)
				t.Logf("%s against kcm: %d events, largest time difference %v", v.name, len(got), maxDiff.Round(10*time.Millisecond))
				for _, p := range problems {
					t.Errorf("%s: %s", v.name, p)
				}
			}
		})
	}
}
