package nodelifecyclecontroller

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/nodelifecycle/legacy"
)

// newLegacyHarness is newHarness in the legacy mode with the given pod
// eviction timeout.
func newLegacyHarness(t *testing.T, timeout time.Duration, objs ...runtime.Object) *harness {
	t.Helper()
	return newHarnessOf(t, &legacy.Config{PodEvictionTimeout: timeout}, objs...)
}

// settle waits until the node and pod caches hold what the API server holds.
func (h *harness) settle() {
	h.t.Helper()
	h.eventually("the caches in line with the API server", func() bool {
		nodes, err := h.client.CoreV1().Nodes().List(h.ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		for i := range nodes.Items {
			if !apiequality.Semantic.DeepEqual(&nodes.Items[i], h.cachedNode(nodes.Items[i].Name)) {
				return false
			}
		}
		pods, err := h.client.CoreV1().Pods("").List(h.ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		cached, _ := h.c.cfg.Pods.Lister().List(labels.Everything())
		if len(cached) != len(pods.Items) {
			return false
		}
		for i := range pods.Items {
			p, err := h.c.cfg.Pods.Lister().Pods(pods.Items[i].Namespace).Get(pods.Items[i].Name)
			if err != nil || !apiequality.Semantic.DeepEqual(&pods.Items[i], p) {
				return false
			}
		}
		return true
	})
}

// post writes a node's Ready condition as its kubelet does, with a heartbeat
// at the clock's now.
func (h *harness) post(name string, status v1.ConditionStatus) {
	h.t.Helper()
	n, err := h.client.CoreV1().Nodes().Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	r := &n.Status.Conditions[0]
	if r.Status != status {
		r.LastTransitionTime = metav1.NewTime(h.clock.Now())
	}
	r.Status, r.LastHeartbeatTime = status, metav1.NewTime(h.clock.Now())
	if _, err := h.client.CoreV1().Nodes().UpdateStatus(h.ctx, n, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

// step is one tick of the controller's loops at the clock's now: a pass,
// then a drain of the zone queues, with the caches settled before each.
func (h *harness) step() {
	h.settle()
	h.c.pass(h.ctx)
	h.settle()
	h.c.evictionPass(h.ctx)
	h.settle()
}

func (h *harness) podNames() []string {
	pods, err := h.client.CoreV1().Pods("").List(h.ctx, metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, p := range pods.Items {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

func noExecute(n *v1.Node) []v1.Taint {
	var out []v1.Taint
	for _, t := range n.Spec.Taints {
		if t.Effect == v1.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

func agentSet() *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent"},
		Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}},
	}
}

// TestLegacyDeletesPodsAfterTheTimeout: in the legacy mode a node that goes
// silent is marked Unknown and never tainted NoExecute; its pods stay until
// the pod eviction timeout has passed since its last sign of life, then the
// zone's queue deletes them, the DaemonSet's pod excepted (it only gets the
// reason NodeLost), with upstream v1.26's events. A pod bound to the evicted
// node later is deleted at once.
func TestLegacyDeletesPodsAfterTheTimeout(t *testing.T) {
	agent := readyPod("agent", "b", v1.ConditionTrue)
	agent.Labels = map[string]string{"app": "agent"}
	h := newLegacyHarness(t, 2*time.Minute,
		readyNode("a", v1.ConditionTrue), nodeLease("a", now),
		readyNode("b", v1.ConditionTrue),
		readyPod("web", "b", v1.ConditionTrue), agent, readyPod("on-a", "a", v1.ConditionTrue),
		agentSet(),
	)
	// b's last sign of life is the first pass (t0): the controller saves its
	// own time for a node it sees first. Due strictly after t0 + 2m, so at
	// the first pass after it, t0 + 2m5s.
	for d := time.Duration(0); d <= 2*time.Minute; d += 5 * time.Second {
		h.post("a", v1.ConditionTrue)
		h.step()
		if got := h.podNames(); !slices.Equal(got, []string{"agent", "on-a", "web"}) {
			t.Fatalf("t0+%v: pods %v, want all three", d, got)
		}
		if s, _ := h.c.evictor.State("b"); s != legacy.Unmarked {
			t.Fatalf("t0+%v: b is %v, want Unmarked", d, s)
		}
		h.clock.Step(5 * time.Second)
	}
	b := h.cachedNode("b")
	if b.Status.Conditions[0].Status != v1.ConditionUnknown {
		t.Fatalf("b's Ready %v, want Unknown", b.Status.Conditions[0].Status)
	}
	h.rec.take()

	h.post("a", v1.ConditionTrue)
	h.step() // t0 + 2m5s
	if got := h.podNames(); !slices.Equal(got, []string{"agent", "on-a"}) {
		t.Fatalf("after the timeout: pods %v, want agent and on-a", got)
	}
	if s, _ := h.c.evictor.State("b"); s != legacy.Evicted {
		t.Errorf("b is %v, want Evicted", s)
	}
	kept, err := h.client.CoreV1().Pods("ns").Get(h.ctx, "agent", metav1.GetOptions{})
	if err != nil || kept.Status.Reason != legacy.PodReasonNodeLost {
		t.Errorf("agent: %v, reason %q, want NodeLost", err, kept.Status.Reason)
	}
	h.expectEvents("eviction",
		`Node /b (uid-b): Normal DeletingAllPods "Node b event: Deleting all Pods from Node b."`,
		`Pod ns/web (uid-web): Normal NodeControllerEviction "Marking for deletion Pod web from Node b"`,
	)
	for _, n := range []string{"a", "b"} {
		if ts := noExecute(h.cachedNode(n)); len(ts) > 0 {
			t.Errorf("%s carries NoExecute taints %v; the legacy mode writes none", n, ts)
		}
	}

	// A pod bound to b now goes at once, and is marked not ready.
	late := readyPod("late", "b", v1.ConditionTrue)
	if _, err := h.client.CoreV1().Pods("ns").Create(h.ctx, late, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if !h.c.podBound(h.ctx, "ns/late") {
		t.Fatal("podBound asked for a retry")
	}
	if got := h.podNames(); slices.Contains(got, "late") {
		t.Errorf("late bound to the evicted b still exists: %v", got)
	}
	h.expectEvents("late bound to b",
		`Node /b (uid-b): Normal DeletingAllPods "Node b event: Deleting all Pods from Node b."`,
		`Pod ns/late (uid-late): Normal NodeControllerEviction "Marking for deletion Pod late from Node b"`,
		// No NodeNotReady: the fake API server removes a deleted pod at once,
		// where a real one keeps it terminating and takes the marking.
	)
}

// TestLegacyCancelsWhenTheNodeComesBack: two nodes of a zone come due
// together; the zone's queue deletes the first one's pods at once, the other
// waits for the next token (10 s at 0.1 nodes per second), and its kubelet
// posts Ready before then: its eviction is cancelled and its pods stay.
func TestLegacyCancelsWhenTheNodeComesBack(t *testing.T) {
	h := newLegacyHarness(t, 30*time.Second,
		readyNode("a", v1.ConditionTrue), nodeLease("a", now),
		readyNode("b", v1.ConditionTrue), readyNode("c", v1.ConditionTrue),
		readyPod("on-b", "b", v1.ConditionTrue), readyPod("on-c", "c", v1.ConditionTrue),
	)
	// Silent from t0: Unknown at 55 s (past the 50 s grace), and the pass
	// after it sees Unknown with the probe 60 s old: both due at 60 s.
	for d := time.Duration(0); d < time.Minute; d += 5 * time.Second {
		h.post("a", v1.ConditionTrue)
		h.step()
		h.clock.Step(5 * time.Second)
	}
	if got := h.podNames(); len(got) != 2 {
		t.Fatalf("before the timeout: pods %v", got)
	}
	h.post("a", v1.ConditionTrue)
	h.step() // t0 + 60s
	if got := h.podNames(); !slices.Equal(got, []string{"on-c"}) {
		t.Fatalf("pods %v, want b's deleted, c's waiting for a token", got)
	}
	if q := h.c.evictor.Queued(nodelifecycle.ZoneKey(h.cachedNode("c"))); !slices.Equal(q, []string{"c"}) {
		t.Fatalf("queued %v, want c", q)
	}
	h.clock.Step(5 * time.Second)
	h.post("a", v1.ConditionTrue)
	h.post("c", v1.ConditionTrue)
	h.step() // t0 + 65s: c Ready again, cancelled before its token
	h.clock.Step(10 * time.Second)
	h.post("a", v1.ConditionTrue)
	h.post("c", v1.ConditionTrue)
	h.step() // t0 + 75s: a token, and nothing queued
	if got := h.podNames(); !slices.Equal(got, []string{"on-c"}) {
		t.Errorf("pods %v, want c's kept", got)
	}
	if s, _ := h.c.evictor.State("c"); s != legacy.Unmarked {
		t.Errorf("c is %v, want Unmarked", s)
	}
	if q := h.c.evictor.Queued(nodelifecycle.ZoneKey(h.cachedNode("c"))); len(q) != 0 {
		t.Errorf("queued %v, want none", q)
	}
}

// TestLegacyMetrics: the eviction counter counts the nodes whose pods the
// zone's queue deleted, from 0 at the zone's first pass.
func TestLegacyMetrics(t *testing.T) {
	h := newLegacyHarness(t, time.Second,
		readyNode("a", v1.ConditionTrue), nodeLease("a", now), readyNode("b", v1.ConditionTrue),
		readyPod("on-b", "b", v1.ConditionTrue))
	const want = `
# HELP node_collector_evictions_total Number of Node evictions that happened since current instance of NodeController started.
# TYPE node_collector_evictions_total counter
node_collector_evictions_total{zone=""} %d
`
	h.post("a", v1.ConditionTrue)
	h.step()
	if err := testutil.GatherAndCompare(h.reg, strings.NewReader(fmt.Sprintf(want, 0)), "node_collector_evictions_total"); err != nil {
		t.Error(err)
	}
	for d := 5 * time.Second; d <= time.Minute; d += 5 * time.Second {
		h.clock.Step(5 * time.Second)
		h.post("a", v1.ConditionTrue)
		h.step()
	}
	if err := testutil.GatherAndCompare(h.reg, strings.NewReader(fmt.Sprintf(want, 1)), "node_collector_evictions_total"); err != nil {
		t.Error(err)
	}
}

// New refuses the legacy mode without DaemonSets or with a negative timeout.
func TestNewRefusesBadLegacyConfig(t *testing.T) {
	client := fake.NewClientset()
	f := informers.NewSharedInformerFactory(client, 0)
	base := Config{Client: client, Nodes: f.Core().V1().Nodes(), Pods: f.Core().V1().Pods(), Leases: f.Coordination().V1().Leases()}
	noDS := base
	noDS.Legacy = &legacy.Config{}
	if _, err := New(noDS); err == nil {
		t.Error("legacy mode without DaemonSets: no error")
	}
	neg := base
	neg.Legacy, neg.DaemonSets = &legacy.Config{PodEvictionTimeout: -time.Second}, f.Apps().V1().DaemonSets()
	if _, err := New(neg); err == nil {
		t.Error("negative timeout: no error")
	}
}
