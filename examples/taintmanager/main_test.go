package main

import (
	"testing"

	"github.com/evictkit/eviction/examples/internal/golden"
)

// TestRun compares the scenario's timeline with testdata/timeline.golden,
// byte for byte. Run with -update after an intended change.
func TestRun(t *testing.T) { golden.Check(t, "timeline.golden", golden.Output(t, run)) }

// TestRules checks the rules the scenario is there to show.
func TestRules(t *testing.T) {
	golden.Contains(t, golden.Output(t, run),
		// Lengthening a toleration keeps the eviction scheduled earlier.
		"12:01:00    shop/web: evict after 1h0m0s → kept, still due 12:05:00\n",
		"12:05:00      event TaintManagerEviction: Marking for deletion Pod shop/web\n",
		// A taint the pod does not tolerate evicts it at once.
		"12:03:00      event TaintManagerEviction: Marking for deletion Pod shop/batch\n",
		// A new tolerated taint does not restart the toleration clock.
		"12:03:00    shop/api: evict after 5m0s → kept, still due 12:07:00\n",
		// Removing the taint cancels a pending eviction.
		"12:06:00      event TaintManagerEviction: Cancelling deletion of Pod shop/cache\n",
		// Tolerating forever: never evicted.
		"12:15:00    kube-system/agent-a on node-a\n",
		"12:15:00    kube-system/agent-b on node-b\n",
		"12:15:00    shop/cache on node-a\n",
	)
}
