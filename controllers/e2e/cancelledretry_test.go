package e2e

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestCancelledRetry runs our taint-eviction controller behind the fault
// proxy, which refuses every delete of one pod (503) as an API server in
// an outage would. The pod's node is tainted NoExecute: our controller
// tries to delete it, again and again. The taint is removed while it
// retries; then the deletes are allowed again. The pod must survive, as it
// does under kube-controller-manager (which drops the eviction after five
// attempts): the taint's removal cancels the pending retry. A second pod,
// tolerating the taint for an hour, shows by its cancelled eviction that
// the controller has seen the taint go before the deletes are allowed.
func TestCancelledRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel()
	start := time.Now()
	const prefix = "cretry"
	c := startCluster(t, variant{name: "ours-cancelled-retry", taintEviction: true, faultPrefix: prefix})
	p := c.faults
	t.Logf("control plane and controllers up in %v", time.Since(start).Round(100*time.Millisecond))
	ns := c.namespace(t, prefix)
	node := prefix + "-0"
	c.createNode(t, node, prefix, v1.ConditionTrue, nil)
	const maintenance = "example.com/maintenance"
	c.createPod(t, ns, "victim", node)
	c.createPod(t, ns, "canary", node, tolerate(maintenance, ptr(int64(3600))))
	c.waitNoExecute(t, 20*time.Second, node)

	p.refuseDeletes(ns, "victim")
	c.addTaint(t, node, v1.Taint{Key: maintenance, Effect: v1.TaintEffectNoExecute})
	eventually(t, patience, "the victim's deletes refused three times", func() (bool, string) {
		refused, _ := p.podDeletes(ns, "victim")
		return refused >= 3, fmt.Sprintf("%d refused", refused)
	})

	c.removeTaint(t, node, maintenance)
	eventually(t, patience, "the canary's eviction cancelled", func() (bool, string) {
		n, err := c.cancelledDeletions(ns, "canary")
		if err != nil {
			return false, err.Error()
		}
		return n > 0, fmt.Sprintf("%d Cancelling events", n)
	})
	p.allowDeletes(ns, "victim")
	refused, seen := p.podDeletes(ns, "victim")
	t.Logf("deletes of the victim refused before the taint went and deletes were allowed: %d", refused)

	// Several retry periods (our backoff is capped at 5 s): the pod stays.
	const window = 20 * time.Second
	for deadline := time.Now().Add(window); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if s, _ := c.podState(ns, "victim"); s != "present" {
			_, after := p.podDeletes(ns, "victim")
			t.Fatalf("victim %s after its NoExecute taint was removed (%d deletes refused before, %d sent after the deletes were allowed)", s, refused, after-seen)
		}
	}
	if _, after := p.podDeletes(ns, "victim"); after != seen {
		t.Errorf("%d deletes of the victim sent after the deletes were allowed, want none", after-seen)
	}
	c.requirePresent(t, ns, "victim", "canary")
	const deletions = "taint_eviction_controller_pod_deletions_total"
	if v := c.ours["taint-eviction-controller-a"].metric(deletions); v != 0 {
		t.Errorf("%s = %v, want 0", deletions, v)
	}
	t.Logf("cancelled retry took %v", time.Since(start).Round(100*time.Millisecond))
}

// removeTaint removes the node's taints with key, as kubectl taint key- does.
func (c *cluster) removeTaint(t *testing.T, node, key string) {
	t.Helper()
	err := retryConflict(func() error {
		n, err := c.client.CoreV1().Nodes().Get(c.ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var kept []v1.Taint
		for _, tn := range n.Spec.Taints {
			if tn.Key != key {
				kept = append(kept, tn)
			}
		}
		n.Spec.Taints = kept
		_, err = c.client.CoreV1().Nodes().Update(c.ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// cancelledDeletions counts the "Cancelling deletion" events of the taint
// eviction controller for pod ns/name.
func (c *cluster) cancelledDeletions(ns, name string) (int32, error) {
	evs, err := c.client.CoreV1().Events(ns).List(c.ctx, metav1.ListOptions{FieldSelector: "reason=TaintManagerEviction"})
	if err != nil {
		return 0, err
	}
	var n int32
	for _, e := range evs.Items {
		if e.InvolvedObject.Kind == "Pod" && e.InvolvedObject.Name == name && e.Message == "Cancelling deletion of Pod "+ns+"/"+name {
			n += max(e.Count, 1)
		}
	}
	return n, nil
}
