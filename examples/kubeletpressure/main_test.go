package main

import (
	"bytes"
	"testing"

	"github.com/evictkit/eviction/examples/internal/golden"
)

// TestRun compares the scenario's report with testdata/report.golden,
// byte for byte. Run with -update after an intended change.
func TestRun(t *testing.T) { golden.Check(t, "report.golden", golden.Output(t, run)) }

// TestRules checks the behaviour the scenario is there to show.
func TestRules(t *testing.T) {
	got := golden.Output(t, run)
	golden.Contains(t, got,
		// A soft threshold sets the condition at once and waits for its grace period.
		"12:00:30  available 1420Mi  conditions [MemoryPressure] met memory.available<1536Mi (soft, grace until 12:01:00)\n",
		"          evict shop/batch-1, grace period 60s (the pod asks 120s, capped by --eviction-max-pod-grace-period)\n",
		// A hard threshold evicts at once with 1 s, skipping critical pods.
		"          skip kube-system/etcd-node-1: static pod, never evicted\n",
		"          skip kube-system/kube-proxy-7x2kq: priority 2000001000 is system-critical, never evicted\n",
		"          evict shop/report-1, grace period 1s (hard threshold: pods get 1 s, whatever they ask)\n",
		"          evict shop/web-1, grace period 30s (the pod's own terminationGracePeriodSeconds)\n",
		// MemoryPressure clears 5 minutes after it was last observed (12:01:20).
		"12:06:20  available 3120Mi  conditions -                met -\n",
	)
	if n := bytes.Count(got, []byte("          evict ")); n != 3 {
		t.Errorf("%d evictions, want 3", n)
	}
}
