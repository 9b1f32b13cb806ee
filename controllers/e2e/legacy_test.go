package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// legacyTimeout is the --pod-eviction-timeout of the legacy run: longer than
// the grace period, so that a node can come back between turning Unknown
// and its eviction, and short for test time.
const legacyTimeout = 10 * time.Second

// ourLegacy runs our node lifecycle controller in kube-controller-manager
// v1.26's legacy mode. kube-controller-manager's DaemonSet controller is off
// so that the DaemonSet's pod stays as the test made it (no kubelet runs the
// DaemonSet's own pods).
var ourLegacy = variant{
	name: "ours-legacy", nodeLifecycle: true,
	nodeLifecycleArgs: []string{"--enable-taint-manager=false", "--pod-eviction-timeout=" + legacyTimeout.String()},
	kcmOff:            []string{"daemonset-controller"},
}

// TestLegacyPodEviction: kube-controller-manager v1.37 has no legacy mode, so
// the run is judged against its own configuration. Two nodes of a zone of
// four go silent; both turn Unknown; one comes back at once. No NoExecute
// taint is ever written. On the one that stays silent, the pod that no
// DaemonSet selects is deleted (with upstream v1.26's events), no earlier
// than its last Lease renewal plus the pod eviction timeout (v1.26 counts an
// Unknown node's timeout from its last sign of life, not from its Unknown)
// and no later than that plus the monitor periods, the zone queue's drain
// and the run's measured lag; the DaemonSet's pod stays with reason
// NodeLost. The node that came back keeps its pod.
func TestLegacyPodEviction(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel()
	c := startCluster(t, ourLegacy)
	tr := c.startTrace(t)
	start := time.Now()

	ns := c.namespace(t, "lg")
	for i := range 4 {
		c.createNode(t, fmt.Sprintf("lg-%d", i), "lg", v1.ConditionTrue, nil)
	}
	agentLabels := map[string]string{"app": "agent"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: ns},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: agentLabels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: agentLabels},
				Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
	if _, err := c.client.AppsV1().DaemonSets(ns).Create(c.ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.createPod(t, ns, "web", "lg-1")
	c.createPod(t, ns, "agent", "lg-1")
	if _, err := c.client.CoreV1().Pods(ns).Patch(c.ctx, "agent", types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"app":"agent"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	c.createPod(t, ns, "returns", "lg-2")
	c.createPod(t, ns, "healthy", "lg-0")
	// Every node registered and judged Ready by ours before the silence.
	eventually(t, patience, "the nodes registered", func() (bool, string) {
		n := len(tr.since(start, "RegisteredNode"))
		return n >= 4, fmt.Sprintf("%d RegisteredNode events", n)
	})

	silenced := time.Now()
	c.setAlive("lg-1", false)
	c.setAlive("lg-2", false)
	eventually(t, patience, "lg-2 Unknown", func() (bool, string) {
		return len(tr.since(start, "node lg-2 Ready=Unknown")) > 0, "not yet"
	})
	revived := time.Now()
	c.postStatus(t, "lg-2", v1.ConditionTrue)
	c.setAlive("lg-2", true)

	var web *v1.Pod
	eventually(t, patience, "pod web deleted", func() (bool, string) {
		s, pod := c.podState(ns, "web")
		web = pod
		return s != "present", s
	})
	// The DaemonSet's pod went through the same deletion pass: kept, with
	// the reason (whose write may reach us after web's deletion).
	eventually(t, patience, "pod agent kept with reason NodeLost", func() (bool, string) {
		s, agent := c.podState(ns, "agent")
		if s != "present" {
			t.Fatalf("pod agent: %s; want present with reason NodeLost", s)
		}
		return agent.Status.Reason == "NodeLost", fmt.Sprintf("reason %q", agent.Status.Reason)
	})
	if web != nil && web.Status.Reason != "NodeLost" {
		t.Errorf("pod web: reason %q, want NodeLost", web.Status.Reason)
	}
	eventually(t, patience, "the deletion's Events", func() (bool, string) {
		n, p := tr.since(start, "DeletingAllPods"), tr.since(start, "NodeControllerEviction")
		return len(n) > 0 && len(p) > 0, fmt.Sprintf("%d DeletingAllPods, %d NodeControllerEviction", len(n), len(p))
	})
	// lg-2 came back about when it turned Unknown, before its own timeout;
	// give a wrongly queued lg-2 two more passes and a drain.
	time.Sleep(2*monitorPeriod + 5*drainPeriod)
	c.requirePresent(t, ns, "healthy")

	evs := tr.since(start, "lg")
	end := time.Now()
	lag := tr.lag(start, end)
	t.Logf("trace (lag %v; lg-1 and lg-2 silenced at %.2fs, lg-2 back at %.2fs):\n%s", lag,
		silenced.Sub(start).Seconds(), revived.Sub(start).Seconds(), formatTrace(evs))

	for _, e := range evs {
		if strings.Contains(e.what, ":NoExecute") {
			t.Errorf("a NoExecute taint changed in the legacy mode: %s at %.2fs", e.what, offset(e).Seconds())
		}
	}
	for _, want := range []string{
		`event node-controller Node lg-1: Normal DeletingAllPods "Node lg-1 event: Deleting all Pods from Node lg-1."`,
		`event node-controller Pod lg/web: Normal NodeControllerEviction "Marking for deletion Pod web from Node lg-1"`,
	} {
		if !slices.ContainsFunc(evs, func(e event) bool { return e.what == want }) {
			t.Errorf("no %s", want)
		}
	}
	for _, e := range evs {
		if strings.Contains(e.what, "NodeControllerEviction") && !strings.Contains(e.what, "Pod lg/web:") {
			t.Errorf("deleted a pod that should stay: %s", e.what)
		}
	}

	// The times, from this run's own records: lg-1's last Lease renewal,
	// when the trace saw it Unknown, and when it saw web deleted.
	renewal, ok := tr.renewedBefore("lg-1", end)
	if !ok {
		t.Fatal("no Lease renewal of lg-1 seen")
	}
	r := renewal.Sub(start)
	find := func(what string) (time.Duration, bool) {
		i := slices.IndexFunc(evs, func(e event) bool { return e.what == what })
		if i < 0 {
			return 0, false
		}
		return offset(evs[i]), true
	}
	unknown, ok1 := find("node lg-1 Ready=Unknown")
	deleted, ok2 := find("pod lg/web deleted")
	if !ok1 || !ok2 {
		t.Fatalf("lg-1 Unknown seen: %v, web deleted seen: %v", ok1, ok2)
	}
	s := runSettings(lag)
	// Ours notes the renewal at its next pass (its probe time: within a
	// period and a lag of the renewal), decides on the Ready it observed
	// before the pass's own write, so the first pass after both the probe
	// time + timeout and the Unknown write queues lg-1, and the zone's
	// queue (a token at once) deletes at its next drain.
	from := r + legacyTimeout
	to := max(r+s.period+s.lag+legacyTimeout, unknown) + s.period + drainPeriod + s.hop()
	t.Logf("lg-1: last renewal %.2fs, Unknown %.2fs, web deleted %.2fs; window [%.2fs, %.2fs]: renewal + timeout %v, to the later of that + a period and the Unknown, + a period, a drain and a reaction",
		r.Seconds(), unknown.Seconds(), deleted.Seconds(), from.Seconds(), to.Seconds(), legacyTimeout)
	if deleted < from || deleted > to {
		t.Errorf("web deleted at %.2fs, outside [%.2fs, %.2fs]", deleted.Seconds(), from.Seconds(), to.Seconds())
	}
	if deleted < unknown {
		t.Errorf("web deleted at %.2fs, before lg-1 was seen Unknown at %.2fs", deleted.Seconds(), unknown.Seconds())
	}
	// lg-2's pod must stay if ours saw lg-2 Ready again before its own
	// timeout: its revival plus a pass and two lags (the status write, the
	// node cache) before its last renewal + the timeout. A run slowed past
	// that proves nothing either way.
	r2, ok := tr.renewedBefore("lg-2", revived)
	if !ok {
		t.Fatal("no Lease renewal of lg-2 seen before its revival")
	}
	if back, due := revived.Sub(start)+s.period+2*s.lag, r2.Sub(start)+legacyTimeout; back < due {
		t.Logf("lg-2: last renewal %.2fs, back by %.2fs, before renewal + timeout %.2fs: its pod stays", r2.Sub(start).Seconds(), back.Seconds(), due.Seconds())
		c.requirePresent(t, ns, "returns")
	} else {
		t.Logf("lg-2 back by %.2fs, not before renewal + timeout %.2fs: too late to judge its pod", back.Seconds(), due.Seconds())
	}
}
