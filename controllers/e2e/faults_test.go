package e2e

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// TestFaults runs our two controllers through failures: the leader of two
// taint-eviction replicas is killed and the other takes over and evicts;
// kube-apiserver is stopped and started again while nodes are silent and
// evictions are due, and every eviction still happens, once. It runs beside
// TestServerErrors, the other half of the faults.
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel()
	start := time.Now()
	// kube-apiserver's graceful stop waits up to its request timeout (60 s)
	// for the watches to end, so StopAPIServer would always kill it after
	// 20 s; with 5 s (far above any request here) it exits by itself.
	v := ourBoth
	v.apiServerArgs = []string{"--request-timeout=5s"}
	c := startCluster(t, v)
	a := c.ours["taint-eviction-controller-a"]
	b := c.runOurs(t, "taint-eviction-controller", "b")
	ns := c.namespace(t, "s4")
	for i := range 4 {
		c.createNode(t, "s4-"+string(rune('0'+i)), "s4", v1.ConditionTrue, nil)
	}
	for i := range 4 {
		c.waitNoExecute(t, 20*time.Second, "s4-"+string(rune('0'+i)))
	}

	t.Run("leader killed", func(t *testing.T) {
		eventually(t, 30*time.Second, "a leader among two replicas", func() (bool, string) {
			return a.leading() != b.leading(), "a leading: " + boolString(a.leading()) + ", b leading: " + boolString(b.leading())
		})
		leader, follower := a, b
		if b.leading() {
			leader, follower = b, a
		}
		leader.Kill()
		c.createPod(t, ns, "after-takeover", "s4-1")
		c.addTaint(t, "s4-1", v1.Taint{Key: "example.com/maintenance", Effect: v1.TaintEffectNoExecute})
		c.waitEvicted(t, 30*time.Second, ns, "after-takeover")
		if !follower.leading() {
			t.Errorf("the pod was evicted but the surviving replica never led")
		}
		const deletions = "taint_eviction_controller_pod_deletions_total"
		eventually(t, 10*time.Second, "the new leader counts its deletion", func() (bool, string) {
			v := follower.metric(deletions)
			return v == 1, fmt.Sprintf("%s = %v", deletions, v)
		})
	})

	t.Run("kube-apiserver restarted", func(t *testing.T) {
		unreachable := v1.TaintNodeUnreachable
		c.createPod(t, ns, "two", "s4-2", tolerate(unreachable, ptr(int64(2))))
		c.createPod(t, ns, "eight", "s4-2", tolerate(unreachable, ptr(int64(8))))
		c.createPod(t, ns, "forever", "s4-2", tolerate(unreachable, nil))
		c.setAlive("s4-2", false)
		c.waitNoExecute(t, 30*time.Second, "s4-2", unreachable)
		stop := time.Now()
		c.StopAPIServer()
		restart := time.Now()
		if err := c.StartAPIServer(); err != nil {
			t.Fatal(err)
		}
		t.Logf("kube-apiserver stopped in %v, ready again in %v", restart.Sub(stop).Round(100*time.Millisecond), time.Since(restart).Round(100*time.Millisecond))
		c.waitEvicted(t, 40*time.Second, ns, "two")
		c.waitEvicted(t, 40*time.Second, ns, "eight")
		c.requirePresent(t, ns, "forever")
	})

	// Every pod the test expected gone was marked for deletion once (the
	// events of the outage reach the server when the recorder retries).
	eventually(t, 40*time.Second, "one deletion event per evicted pod", func() (bool, string) {
		marked, err := c.markedForDeletion(ns)
		if err != nil {
			return false, err.Error()
		}
		for _, name := range []string{"two", "eight"} {
			if marked[name] > 1 {
				t.Fatalf("pod %s marked for deletion %d times, want once", name, marked[name])
			}
		}
		return marked["two"] == 1 && marked["eight"] == 1, fmt.Sprint(marked)
	})
	t.Logf("faults took %v", time.Since(start).Round(100*time.Millisecond))
}

func boolString(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
