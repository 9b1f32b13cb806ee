package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/report.golden")

// TestRun compares the scenario's report with testdata/report.golden,
// byte for byte. Run with -update after an intended change.
func TestRun(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "report.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("report differs from %s (run with -update to accept):\n--- got\n%s\n--- want\n%s", golden, buf.Bytes(), want)
	}
}

// TestRules checks the decisions the scenario is there to show, so that an
// -update cannot quietly accept a report that breaks them.
func TestRules(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"  chosen    node-4  by latest start time of the highest-priority victims\n",
		"  chosen    node-3  by fewest PDB violations\n",
		"  chosen    node-1  by smallest victim priority sum\n",
		"  chosen    node-5  by lowest highest-victim priority\n",
		// PDB-protected pods are reprieved first: queue-0 survives checkout-3.
		"  checkout-3 nominated to node-1; report-1(100) deleted; it binds there\n",
		"  no preemption: not eligible due to preemptionPolicy=Never.\n",
		"  no preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.\n",
	} {
		if !bytes.Contains(buf.Bytes(), []byte(line)) {
			t.Errorf("report lacks %q", line)
		}
	}
}
