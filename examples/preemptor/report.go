package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/podresources"
	"github.com/evictkit/eviction/preemption"
)

// schedule tries to place p, preempting if it fits nowhere, and reports.
func schedule(w io.Writer, c *cluster, p *v1.Pod, now time.Time) error {
	nodes, err := c.snapshots()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s  %s (priority %d, cpu %s) is pending\n", now.Format("15:04"), p.Name, podresources.Priority(p), cpu(p))
	// A fixed offset and now make the dry run deterministic; upstream
	// starts at a random node and reads the clock.
	opts := preemption.Options{Offset: preemption.FixedOffset(0)}

	// The scheduling cycle failed on every node; only the nodes that failed
	// with plain Unschedulable are worth a dry run.
	var order []string
	failed := map[string][]string{}
	for _, n := range nodes {
		st := preemption.CheckFit(p, n, opts).String()
		if _, ok := failed[st]; !ok {
			order = append(order, st)
		}
		failed[st] = append(failed[st], n.Name())
	}
	for _, st := range order {
		fmt.Fprintf(w, "  fit       %s: %s\n", strings.Join(failed[st], ", "), st)
	}
	pdbs, err := preemption.NewPDBs(c.budgets())
	if err != nil {
		return err
	}
	r, err := preemption.Evaluate(p, nodes, pdbs, now, opts)
	for _, cand := range r.Candidates {
		fmt.Fprintf(w, "  candidate %-7s evict %-28s %d PDB violation(s)\n", cand.Node, victims(cand), cand.Victims.NumPDBViolations)
	}
	for _, n := range c.nodes {
		if st, ok := r.NodeStatuses[n.Name]; ok {
			fmt.Fprintf(w, "  rejected  %-7s %v\n", n.Name, st)
		}
	}
	switch {
	case errors.Is(err, preemption.ErrNotEligible), errors.Is(err, preemption.ErrNoCandidate):
		fmt.Fprintf(w, "  no preemption: %s\n", r.Message)
		if r.KeepNomination {
			fmt.Fprintln(w, "  the pod waits; its nomination is left as it was")
		} else {
			fmt.Fprintln(w, "  the pod waits; its nomination is cleared")
		}
		return nil
	case err != nil:
		return err
	}

	fmt.Fprintf(w, "  chosen    %-7s by %s\n", r.Chosen.Node, r.Decision.Criterion)
	if i := slices.IndexFunc(r.Candidates, func(c preemption.Candidate) bool { return c.Node == r.Decision.RunnerUp }); i >= 0 {
		fmt.Fprintf(w, "            %-7s %s\n", r.Chosen.Node, measure(r.Decision.Criterion, r.Chosen))
		fmt.Fprintf(w, "            %-7s %s (runner-up)\n", r.Candidates[i].Node, measure(r.Decision.Criterion, r.Candidates[i]))
	}
	fmt.Fprintf(w, "  %s nominated to %s; %s deleted; it binds there\n", p.Name, r.NominatedNode, victims(r.Chosen))
	c.evict(r.Chosen.Node, r.Chosen.Victims.Pods, p, now)
	return nil
}

// measure describes a candidate by what the deciding criterion compared.
func measure(crit preemption.Criterion, c preemption.Candidate) string {
	pods := c.Victims.Pods
	switch crit {
	case preemption.CriterionPDBViolations:
		return fmt.Sprintf("%d PDB violation(s)", c.Victims.NumPDBViolations)
	case preemption.CriterionHighestPriority:
		return fmt.Sprintf("most important victim has priority %d", podresources.Priority(pods[0]))
	case preemption.CriterionPrioritySum:
		// Each priority counts as priority + 2³¹, so that at equal
		// priorities fewer victims always sum lower.
		var terms []string
		for _, p := range pods {
			terms = append(terms, fmt.Sprint(podresources.Priority(p)))
		}
		return fmt.Sprintf("%d victim(s), priorities %s", len(pods), strings.Join(terms, "+"))
	case preemption.CriterionVictimCount:
		return fmt.Sprintf("%d victim(s)", len(pods))
	case preemption.CriterionStartTime:
		// Among the victims of the top priority, the earliest start
		// counts; the latest such start wins (the least work is lost).
		var earliest time.Time
		for _, p := range pods {
			if s := p.Status.StartTime; podresources.Priority(p) == podresources.Priority(pods[0]) && s != nil && (earliest.IsZero() || s.Time.Before(earliest)) {
				earliest = s.Time
			}
		}
		return "its priority-" + fmt.Sprint(podresources.Priority(pods[0])) + " victims started at " + earliest.Format("15:04")
	}
	return ""
}

func victims(c preemption.Candidate) string {
	var names []string
	for _, p := range c.Victims.Pods {
		names = append(names, describePod(p))
	}
	return strings.Join(names, ", ")
}
