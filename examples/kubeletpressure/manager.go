package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/nodepressure"
	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/thresholds"
)

// manager reports what the kubelet's eviction manager does each cycle. The
// decisions are nodepressure.Manager's; this type only prints them and
// carries them out on the simulated node.
type manager struct {
	w        io.Writer
	node     *node
	pm       *nodepressure.Manager
	maxGrace int64 // --eviction-max-pod-grace-period, for the report

	last  string                 // the last cycle's summary line, to skip repeats
	conds []v1.NodeConditionType // conditions reported last cycle
}

// synchronize runs one cycle at now.
// The stats carry the cycle's time: the kubelet refuses to evict twice on
// stats that did not change, so a real kubelet whose cAdvisor lags skips a
// cycle instead.
func (m *manager) synchronize(now time.Time) {
	r := m.pm.Synchronize(now, nodepressure.Stats{Node: m.node.summary(now), Pods: m.node.usage(now)}, m.node.pods)
	ev := r.Evaluation

	conds := "-"
	if len(r.Conditions) > 0 {
		conds = fmt.Sprint(r.Conditions)
	}
	line := fmt.Sprintf("available %-7s conditions %-16s met %s", r.Observations[thresholds.MemoryAvailable].Available, conds, m.describeMet(ev))
	if line != m.last || ev.Reclaim {
		fmt.Fprintf(m.w, "%s  %s\n", clock(now), line)
		m.last = line
	}
	m.reportConditions(r.Conditions)
	if !ev.Reclaim {
		return
	}

	// When a hard and a soft threshold of one signal both drive the cycle,
	// the hard one wins (1 s grace). Upstream sorts them with a comparator
	// that does not tell them apart, after ranging over a map: either may
	// win there.
	kind := "hard"
	if ev.Soft {
		kind = "soft"
	}
	fmt.Fprintf(m.w, "          %s threshold %v: node event EvictionThresholdMet %q\n", kind, ev.Threshold, "Attempting to reclaim "+ev.Resource)
	// Before evicting, the kubelet tries node-level reclaim: container and
	// image garbage collection (r.NodeReclaim). Only disk signals have any;
	// for memory a pod must go.
	fmt.Fprintf(m.w, "          ranking %s\n", names(r.Ranked))

	// The kubelet walks the ranking and evicts the first pod it may: at most
	// one per cycle. Static, mirror and system-critical pods stay in the
	// ranking but are never evicted.
	for _, p := range r.Ranked {
		if ranking.Evictable(p) {
			break
		}
		fmt.Fprintf(m.w, "          skip %s/%s: %s\n", p.Namespace, p.Name, whyCritical(p))
	}
	v := r.Victim
	if v == nil {
		fmt.Fprintln(m.w, "          no pod can be evicted")
		return
	}
	fmt.Fprintf(m.w, "          evict %s/%s, grace period %ds%s\n", v.Pod.Namespace, v.Pod.Name, v.GracePeriodSeconds, m.graceNote(ev, v.Pod))
	fmt.Fprintf(m.w, "          message %q\n", v.Message)
	if i := slices.IndexFunc(v.Status.Conditions, func(c v1.PodCondition) bool { return c.Type == v1.DisruptionTarget }); i >= 0 {
		c := v.Status.Conditions[i]
		fmt.Fprintf(m.w, "          pod status %s/%s, condition %s=%s (%s)\n", v.Status.Phase, v.Status.Reason, c.Type, c.Status, c.Reason)
	}
	m.node.remove(v.Pod)
}

// describeMet lists the thresholds met this cycle, each marked soft with its
// remaining grace period or hard.
func (m *manager) describeMet(r thresholds.Result) string {
	if len(r.Met) == 0 {
		return "-"
	}
	var out []string
	for _, t := range r.Met {
		switch {
		case t.IsHard():
			out = append(out, t.String()+" (hard)")
		case slices.ContainsFunc(r.Eligible, t.Equal):
			out = append(out, t.String()+" (soft, grace over)")
		default:
			first, _ := m.pm.State().FirstObserved.Lookup(t)
			out = append(out, fmt.Sprintf("%v (soft, grace until %s)", t, clock(first.Add(t.GracePeriod))))
		}
	}
	return strings.Join(out, ", ")
}

// reportConditions prints changes of the node conditions and what they do.
func (m *manager) reportConditions(now []v1.NodeConditionType) {
	for _, c := range now {
		if !slices.Contains(m.conds, c) {
			taint, _ := taints.ForCondition(c, v1.ConditionTrue)
			fmt.Fprintf(m.w, "          %s=True: the node lifecycle controller taints the node with %s;\n", c, taints.Format(taint))
			fmt.Fprintln(m.w, "          the kubelet rejects new BestEffort pods that do not tolerate it")
		}
	}
	for _, c := range m.conds {
		if !slices.Contains(now, c) {
			fmt.Fprintf(m.w, "          %s=False: not observed for %v, the pressure transition period\n", c, thresholds.DefaultPressureTransitionPeriod)
		}
	}
	m.conds = now
}

// graceNote explains a soft eviction's grace period.
func (m *manager) graceNote(r thresholds.Result, p *v1.Pod) string {
	if !r.Soft {
		return " (hard threshold: pods get 1 s, whatever they ask)"
	}
	if s := p.Spec.TerminationGracePeriodSeconds; s != nil && *s > m.maxGrace {
		return fmt.Sprintf(" (the pod asks %ds, capped by --eviction-max-pod-grace-period)", *s)
	}
	return " (the pod's own terminationGracePeriodSeconds)"
}

func whyCritical(p *v1.Pod) string {
	switch {
	case ranking.IsStatic(p):
		return "static pod, never evicted"
	case ranking.IsMirror(p):
		return "mirror pod, never evicted"
	}
	return fmt.Sprintf("priority %d is system-critical, never evicted", ranking.Priority(p))
}

func names(pods []*v1.Pod) string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return strings.Join(out, ", ")
}

func clock(t time.Time) string { return t.UTC().Format(time.TimeOnly) }
