package e2e

import (
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/tolerations"
)

// How a run is judged, without comparing clocks of two runs: machines are
// shared and busy, and two runs of one scenario see different loads.
//
//   - Against its own inputs (checkTimes): each change the controllers make is
//     seen in a window after its cause, derived from their configuration and
//     the run's own measured lag. A silent node turns Unknown no earlier than
//     its last Lease renewal plus the grace period; a pod is marked for
//     deletion no earlier than the taint that decides it plus its toleration.
//     The upper ends allow a monitor period and a few times the run's lag.
//   - Against the reference run (compareRuns): the same changes, as many
//     times each, and in the same causal order: an effect after its cause
//     (a condition taint after the Ready condition that calls for it, a pod
//     marked not ready after its node turned, a pod's DisruptionTarget after
//     the NoExecute taint it does not tolerate, its deletion after that), and
//     one object's Ready changes, or one component's Events about one
//     object, in the order they were written. Changes that race inside the
//     controllers themselves (kube-controller-manager's NoSchedule and
//     NoExecute taints of one node, the pods it marks not ready) may come in
//     any order.

// change is a trace line taken apart: "node s2-1 Ready=Unknown" is
// {node, s2-1, Ready=Unknown}; an Event's line has kind "event" and the
// component, kind and object as name.
type change struct {
	kind, name, what string
}

func parseChange(line string) change {
	kind, rest, _ := strings.Cut(line, " ")
	if kind == "event" {
		name, what, _ := strings.Cut(rest, ": ")
		return change{kind, name, what}
	}
	name, what, _ := strings.Cut(rest, " ")
	return change{kind, name, what}
}

// conditionTaint is the NoSchedule and NoExecute taint key the node lifecycle
// controller puts on a node whose Ready condition has status s, and "" for
// a ready node.
func conditionTaint(s string) string {
	switch s {
	case "Unknown":
		return v1.TaintNodeUnreachable
	case "False":
		return v1.TaintNodeNotReady
	}
	return ""
}

// taintChange returns the key and effect of a node line that adds (+) or
// removes (-) a taint.
func taintChange(what string) (sign byte, key, effect string, ok bool) {
	if len(what) < 2 || (what[0] != '+' && what[0] != '-') {
		return 0, "", "", false
	}
	key, effect, ok = strings.Cut(what[1:], ":")
	return what[0], key, effect, ok
}

// readyChange returns the status of a line that changes a Ready condition.
func readyChange(what string) (string, bool) { return strings.CutPrefix(what, "Ready=") }

// evictingTaint returns the NoExecute taint key a node line adds, if the pod
// with tolerations tols does not tolerate it forever: the taint that may
// decide the pod's eviction, and the toleration it leaves the pod.
func evictingTaint(node change, tols []v1.Toleration) (key string, after time.Duration, ok bool) {
	sign, key, effect, ok := taintChange(node.what)
	if !ok || sign != '+' || effect != string(v1.TaintEffectNoExecute) {
		return "", 0, false
	}
	d := tolerations.NoExecuteDecision([]v1.Taint{{Key: key, Effect: v1.TaintEffectNoExecute}}, tols, tolerations.Options{})
	switch d.Kind {
	case tolerations.EvictNow:
		return key, 0, true
	case tolerations.EvictAfter:
		return key, d.Delay, true
	}
	return "", 0, false
}

// precedes reports whether a, when it happens first, must be seen before b:
// b is a's effect, or both are changes of one node's Ready condition, or
// Events of one component about one object.
func precedes(a, b event) bool {
	ca, cb := parseChange(a.what), parseChange(b.what)
	switch {
	case ca.kind == "event" && cb.kind == "event":
		return ca.name == cb.name
	case ca.kind == "node" && cb.kind == "node" && ca.name == cb.name:
		ra, isReady := readyChange(ca.what)
		if _, ok := readyChange(cb.what); ok && isReady {
			return true
		}
		if sign, key, _, ok := taintChange(cb.what); ok && isReady {
			if sign == '+' {
				return key == conditionTaint(ra) && key != ""
			}
			return ra == "True" && (key == v1.TaintNodeUnreachable || key == v1.TaintNodeNotReady)
		}
		sa, ka, ea, oka := taintChange(ca.what)
		sb, kb, eb, okb := taintChange(cb.what)
		return oka && okb && sa == '+' && sb == '-' && ka == kb && ea == eb
	case ca.kind == "node" && cb.kind == "pod" && b.node == ca.name:
		if r, ok := readyChange(ca.what); ok && cb.what == "Ready=False" {
			return r != "True"
		}
		if cb.what == "DisruptionTarget=True" {
			_, _, ok := evictingTaint(ca, b.tols)
			return ok
		}
	case ca.kind == "pod" && cb.kind == "pod" && ca.name == cb.name:
		return ca.what == "DisruptionTarget=True" && cb.what == "deleted"
	case isDeviceTaintLine(ca) && a.taint != nil && cb.kind == "pod" && cb.what == "DisruptionTarget=True":
		// A device taint, of a slice or a rule, before the DisruptionTarget
		// of a pod whose device it applies to and that does not tolerate
		// it forever.
		_, ok := a.taint.evicts(b.devs)
		return ok
	case ca.kind == "rule" && cb.kind == "rule" && ca.name == cb.name:
		// One rule's taint and status conditions, in the order written.
		return true
	}
	return false
}

// occurrence names the k-th occurrence (from 0) of one trace line in a run.
type occurrence struct {
	what string
	k    int
}

func occurrences(evs []event) []occurrence {
	out := make([]occurrence, len(evs))
	seen := map[string]int{}
	for i, e := range evs {
		out[i] = occurrence{e.what, seen[e.what]}
		seen[e.what]++
	}
	return out
}

// compareRuns reports how run got differs from the reference run ref: a
// change in one and not the other (or more times in one), and two changes
// that must keep their order (precedes) in opposite orders. Times are not
// compared: each run's are judged against its own inputs by checkTimes.
func compareRuns(ref, got []event) (problems []string) {
	ro, gocc := occurrences(ref), occurrences(got)
	inGot := make(map[occurrence]bool, len(gocc))
	for _, o := range gocc {
		inGot[o] = true
	}
	inRef := make(map[occurrence]bool, len(ro))
	for _, o := range ro {
		inRef[o] = true
		if !inGot[o] {
			problems = append(problems, fmt.Sprintf("missing %s", o.name()))
		}
	}
	for i, o := range gocc {
		if !inRef[o] {
			problems = append(problems, fmt.Sprintf("extra %s at %.2fs", o.name(), offset(got[i]).Seconds()))
		}
	}
	return append(problems, sameOrder(ref, got)...)
}

// sameOrder reports the changes that both runs have and that must keep their
// order (precedes), as ref has it, but come in the opposite order in got:
// written in that order, by resourceVersion when both have one (a node's
// change and its pod's arrive through separate watches, and either may be
// delivered first), else seen in that order.
func sameOrder(ref, got []event) (problems []string) {
	ro := occurrences(ref)
	pos := map[occurrence]int{}
	for i, o := range occurrences(got) {
		pos[o] = i
	}
	for i := range ref {
		for j := i + 1; j < len(ref); j++ {
			if !precedes(ref[i], ref[j]) {
				continue
			}
			pi, oki := pos[ro[i]]
			pj, okj := pos[ro[j]]
			if oki && okj && before(got, pj, pi) {
				problems = append(problems, fmt.Sprintf("%s came after %s, which it must precede", ro[i].name(), ro[j].name()))
			}
		}
	}
	return problems
}

// before reports whether evs[i] was written (or, without resourceVersions,
// seen) before evs[j]. Two changes of one object version are in no order.
func before(evs []event, i, j int) bool {
	if a, b := evs[i].rv, evs[j].rv; a != 0 && b != 0 {
		return a < b
	}
	return i < j
}

func (o occurrence) name() string {
	if o.k == 0 {
		return fmt.Sprintf("%q", o.what)
	}
	return fmt.Sprintf("%q (occurrence %d)", o.what, o.k+1)
}

// settings are what a run's times are judged by: the controllers'
// configuration and the largest delay the run measured (trace.lag).
type settings struct {
	period       time.Duration // --node-monitor-period
	grace        time.Duration // --node-monitor-grace-period
	evictionRate float64       // --node-eviction-rate, nodes per second
	lag          time.Duration
}

// hop bounds one reaction seen through the API server: the cause reaches the
// controller, which acts within one step of its zone's eviction rate, writes,
// and the write reaches the trace. Each of the deliveries and the write is
// bounded by the run's lag; the fourth lag covers the controller's own
// wake-up on a busy machine.
func (s settings) hop() time.Duration {
	return time.Duration(float64(time.Second)/s.evictionRate) + 4*s.lag
}

// drainPeriod is how often the node lifecycle controller drains its zones'
// queues of nodes to taint NoExecute (upstream's NodeEvictionPeriod; ours
// the same).
const drainPeriod = nodelifecycle.DrainPeriod

// window is when a change must be seen: between from and to (offsets in the
// run), because of why.
type window struct {
	from, to time.Duration
	why      string
}

// windowOf returns the window of the change evs[i], from its cause in the
// run; ok is false for a change with no cause the judge knows (the harness's
// own writes, such as a node created or revived). lastRenewal holds, for each
// node the harness silenced, its last Lease renewal before the silence, as an
// offset in the run.
func (s settings) windowOf(evs []event, i int, lastRenewal map[string]time.Duration) (w window, ok bool) {
	e := evs[i]
	c := parseChange(e.what)
	at := func(j int) time.Duration { return offset(evs[j]) }
	// latest returns the index of the last change before i that matches.
	latest := func(match func(event, change) bool) int {
		for j := i - 1; j >= 0; j-- {
			if match(evs[j], parseChange(evs[j].what)) {
				return j
			}
		}
		return -1
	}
	nodeReady := func(node string, statuses ...string) func(event, change) bool {
		return func(_ event, x change) bool {
			r, ok := readyChange(x.what)
			return x.kind == "node" && x.name == node && ok && slices.Contains(statuses, r)
		}
	}
	// arrival is the index of the pod's creation (-1: before the trace): a
	// pod that arrives on a node already not ready or tainted is timed from
	// its arrival, not from its node's change.
	arrival := func() int {
		return latest(func(_ event, x change) bool { return x.kind == "pod" && x.name == c.name && x.what == "created" })
	}
	if w, handled, ok := s.draWindowOf(evs, i); handled {
		return w, ok
	}
	// A monitor pass sees a change within a period, then reacts.
	pass := s.period + s.hop()
	switch {
	case c.kind == "node" && c.what == "Ready=Unknown":
		r, silenced := lastRenewal[c.name]
		if !silenced || latest(nodeReady(c.name, "Unknown")) >= 0 {
			return window{}, false // not a silence the harness made
		}
		// The controller notes a renewal at its next monitor pass, and
		// turns the node Unknown at the first pass more than the grace
		// period after that one.
		return window{r + s.grace, r + s.grace + s.period + pass,
			fmt.Sprintf("last Lease renewal at %.2fs + grace %v, + two monitor periods and a reaction", r.Seconds(), s.grace)}, true
	case c.kind == "node":
		sign, key, effect, isTaint := taintChange(c.what)
		if !isTaint {
			return window{}, false
		}
		var j int
		switch {
		case sign == '+' && key == v1.TaintNodeUnreachable:
			j = latest(nodeReady(c.name, "Unknown"))
		case sign == '+' && key == v1.TaintNodeNotReady:
			j = latest(nodeReady(c.name, "False"))
		case sign == '-' && (key == v1.TaintNodeUnreachable || key == v1.TaintNodeNotReady):
			j = latest(nodeReady(c.name, "True"))
		default:
			return window{}, false // a user's taint
		}
		if j < 0 {
			return window{}, false
		}
		if sign == '+' && effect == string(v1.TaintEffectNoExecute) {
			// Queued by the pass, tainted by the zone queue's drain.
			return window{at(j), at(j) + pass + drainPeriod,
				fmt.Sprintf("%s at %.2fs, + a monitor period, a drain period and a reaction", evs[j].what, at(j).Seconds())}, true
		}
		return window{at(j), at(j) + pass, fmt.Sprintf("%s at %.2fs, + a monitor period and a reaction", evs[j].what, at(j).Seconds())}, true
	case c.kind == "pod" && c.what == "Ready=False":
		j := latest(nodeReady(e.node, "Unknown", "False"))
		if j < 0 {
			return window{}, false
		}
		j = max(j, arrival())
		return window{at(j), at(j) + pass, fmt.Sprintf("%s at %.2fs, + a monitor period and a reaction", evs[j].what, at(j).Seconds())}, true
	case c.kind == "pod" && c.what == "DisruptionTarget=True":
		var after time.Duration
		j := latest(func(x event, xc change) bool {
			if x.node != e.node || xc.kind != "node" {
				return false
			}
			_, d, ok := evictingTaint(xc, e.tols)
			after = d
			return ok
		})
		if j < 0 {
			return window{}, false
		}
		j = max(j, arrival())
		// The controller saw the cause no later than the trace, and at most
		// a lag earlier.
		return window{at(j) + after - s.lag, at(j) + after + s.hop(),
			fmt.Sprintf("%s at %.2fs + toleration %v", evs[j].what, at(j).Seconds(), after)}, true
	case c.kind == "pod" && c.what == "deleted":
		j := latest(func(_ event, xc change) bool {
			return xc.kind == "pod" && xc.name == c.name && xc.what == "DisruptionTarget=True"
		})
		if j < 0 {
			return window{}, false
		}
		return window{at(j), at(j) + s.hop(), fmt.Sprintf("its DisruptionTarget at %.2fs, + a reaction", at(j).Seconds())}, true
	}
	return window{}, false
}

// checkTimes judges each change of a run whose cause it knows against the
// window its cause, the configuration and the run's lag allow.
func checkTimes(evs []event, s settings, lastRenewal map[string]time.Duration) (problems []string) {
	for i, e := range evs {
		w, ok := s.windowOf(evs, i, lastRenewal)
		if !ok {
			continue
		}
		if at := offset(e); at < w.from || at > w.to {
			problems = append(problems, fmt.Sprintf("%q at %.2fs, outside [%.2fs, %.2fs]: %s (lag %v)",
				e.what, at.Seconds(), w.from.Seconds(), w.to.Seconds(), w.why, s.lag))
		}
	}
	return problems
}
