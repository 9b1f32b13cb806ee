package main

import (
	"testing"

	"github.com/evictkit/eviction/examples/internal/golden"
)

// TestRun compares the scenario's report with testdata/report.golden,
// byte for byte. Run with -update after an intended change.
func TestRun(t *testing.T) { golden.Check(t, "report.golden", golden.Output(t, run)) }

// TestRules checks the decisions the scenario is there to show.
func TestRules(t *testing.T) {
	golden.Contains(t, golden.Output(t, run),
		"  chosen    node-4  by latest start time of the highest-priority victims\n",
		"  chosen    node-3  by fewest PDB violations\n",
		// Victims tied on priority and start time keep the search's order,
		// the PDB-violating web-2 first.
		"  candidate node-2  evict web-2(1000), web-1(1000)     1 PDB violation(s)\n",
		"  chosen    node-1  by smallest victim priority sum\n",
		"  chosen    node-5  by lowest highest-victim priority\n",
		// PDB-protected pods are reprieved first: queue-0 survives checkout-3.
		"  checkout-3 nominated to node-1; report-1(100) deleted; it binds there\n",
		"  no preemption: not eligible due to preemptionPolicy=Never.\n",
		"  no preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.\n",
	)
}
