// Command preemptor replays kube-scheduler's DefaultPreemption PostFilter
// (upstream pkg/scheduler/framework/preemption and
// pkg/scheduler/framework/plugins/defaultpreemption) on a small cluster:
// high-priority pods arrive one after another, find no room, and preempt
// lower-priority pods under PodDisruptionBudgets. For each pending pod it
// prints the candidate nodes of the dry run with their victims, the node
// chosen, and which of the scheduler's node-pick criteria decided, against
// the runner-up. The victims are then deleted and the pod bound, so each pod
// meets the cluster the previous one left.
//
// The scenario shows:
//
//   - the PDB accounting: budgets are spent by the most important pods first,
//     and the search reprieves PDB-protected pods before the others;
//   - every pick criterion that matters in practice: fewest PDB violations,
//     lowest priority of the most important victim, smallest priority sum
//     (fewer victims at equal priority), latest start time;
//   - a pod with preemptionPolicy Never, which waits instead of preempting;
//   - a pod no preemption can help.
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "preemptor:", err)
		os.Exit(1)
	}
}

// start is when the first pending pod arrives; the others follow a minute
// apart. Every running pod has a fixed start time earlier that day.
var start = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// Priorities, as the Priority admission plugin resolves them from the pods'
// PriorityClasses.
const (
	batch = 100
	cache = 500
	web   = 1000
	high  = 10000
)

// run plays the scenario and writes the report to w.
func run(out io.Writer) error {
	w := &errWriter{w: out}
	c := &cluster{
		nodes: []*v1.Node{node("node-1", "4"), node("node-2", "4"), node("node-3", "4"), node("node-4", "4"), node("node-5", "4")},
		pods: map[string][]*v1.Pod{
			"node-1": {pod("queue-0", "queue", batch, "2", at(10, 30)), pod("report-1", "report", batch, "2", at(10, 0))},
			"node-2": {pod("web-1", "web", web, "2", at(8, 0)), pod("web-2", "web", web, "2", at(8, 0))},
			"node-3": {pod("etl-1", "etl", batch, "1", at(9, 30)), pod("etl-2", "etl", batch, "1", at(9, 40)), pod("etl-3", "etl", batch, "2", at(11, 0))},
			"node-4": {pod("cache-1", "cache", cache, "2", at(7, 0)), pod("report-2", "report", batch, "2", at(11, 30))},
			"node-5": {pod("payments-1", "payments", high, "2", at(6, 0)), pod("tmp-1", "tmp", batch, "1", at(9, 0)), pod("tmp-2", "tmp", batch, "1", at(9, 15))},
		},
		// The queue has one replica and must keep it; web has two and may
		// lose one. Budgets are spent in importance order, so when both web
		// pods are potential victims web-1 takes the one disruption and
		// web-2 counts as violating; the search then reprieves web-2 first
		// and evicts web-1, with no violation (checkout-1 on node-2). The
		// two tie on priority and start time, so the victims are listed in
		// the order the search found them, violating first: web-2, web-1
		// (upstream's sort is stable for so few pods and agrees).
		pdbs: []*policyv1.PodDisruptionBudget{pdb("queue", 1), pdb("web", 1)},
	}
	fmt.Fprintln(w, "cluster (cpu requested / allocatable; pods as name(priority)):")
	c.print(w)

	never := v1.PreemptNever
	polite := pod("checkout-5", "checkout", high, "2", time.Time{})
	polite.Spec.PreemptionPolicy = &never
	pending := []*v1.Pod{
		pod("checkout-1", "checkout", high, "2", time.Time{}),
		pod("checkout-2", "checkout", high, "3", time.Time{}),
		pod("checkout-3", "checkout", high, "2", time.Time{}),
		pod("checkout-4", "checkout", high, "2", time.Time{}),
		polite,
		pod("analytics", "analytics", high, "6", time.Time{}),
	}
	now := start
	for _, p := range pending {
		fmt.Fprintln(w)
		if err := schedule(w, c, p, now); err != nil {
			return err
		}
		now = now.Add(time.Minute)
	}
	fmt.Fprintln(w, "\ncluster at the end:")
	c.print(w)
	return w.err
}

// errWriter remembers the first write error, so that the report code need
// not check every Fprintf.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func at(h, m int) time.Time { return time.Date(2026, 11, 29, h, m, 0, 0, time.UTC) }
