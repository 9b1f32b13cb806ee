package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// The judges run without a cluster: these tests show that each catches what
// it must (late, early, missing, unpredicted, duplicated and out-of-order
// changes) and lets pass what kube-controller-manager itself does in either
// order.

const (
	ms = time.Millisecond
	s  = time.Second
)

func at(d time.Duration, what, node string, tols ...v1.Toleration) event {
	return event{at: time.Time{}.Add(d), what: what, node: node, tols: tols}
}

var unreachableFor2s = tolerate(v1.TaintNodeUnreachable, ptr(int64(2)))

// silentNode is a reference run: node n1 is silent after its Lease renewal
// at 0.5 s; it turns Unknown, is tainted, its pods are marked not ready; pod
// a (no toleration) goes at once, pod b after its 2 s toleration.
func silentNode() []event {
	return []event{
		at(5000*ms, "node n1 Ready=Unknown", "n1"),
		at(5050*ms, "pod ns/a Ready=False", "n1"),
		at(5060*ms, "pod ns/b Ready=False", "n1", unreachableFor2s),
		at(5100*ms, "node n1 +node.kubernetes.io/unreachable:NoSchedule", "n1"),
		at(5120*ms, "node n1 +node.kubernetes.io/unreachable:NoExecute", "n1"),
		at(5200*ms, "pod ns/a DisruptionTarget=True", "n1"),
		at(5210*ms, `event taint-eviction-controller Pod ns/a: Normal TaintManagerEviction "Marking for deletion Pod ns/a"`, ""),
		at(5250*ms, "pod ns/a deleted", "n1"),
		at(7200*ms, "pod ns/b DisruptionTarget=True", "n1", unreachableFor2s),
		at(7210*ms, `event taint-eviction-controller Pod ns/b: Normal TaintManagerEviction "Marking for deletion Pod ns/b"`, ""),
		at(7250*ms, "pod ns/b deleted", "n1", unreachableFor2s),
	}
}

var (
	testSettings = settings{period: s, grace: 4 * s, evictionRate: 10, lag: 10 * ms}
	testRenewals = map[string]time.Duration{"n1": 500 * ms}
)

// find returns the index of the first event whose line starts with prefix.
func find(evs []event, prefix string) int {
	return slices.IndexFunc(evs, func(e event) bool { return strings.HasPrefix(e.what, prefix) })
}

// moveTo returns evs with the change named by prefix seen at d instead,
// in time order.
func moveTo(evs []event, prefix string, d time.Duration) []event {
	i := find(evs, prefix)
	e := evs[i]
	e.at = time.Time{}.Add(d)
	evs = slices.Delete(evs, i, i+1)
	j := slices.IndexFunc(evs, func(x event) bool { return x.at.After(e.at) })
	if j < 0 {
		j = len(evs)
	}
	return slices.Insert(evs, j, e)
}

func TestCompareRuns(t *testing.T) {
	if p := compareRuns(silentNode(), silentNode()); len(p) != 0 {
		t.Fatalf("a run against itself: %q", p)
	}
	for _, tc := range []struct {
		name   string
		change func([]event) []event
		want   string // "" for a difference that is no problem
	}{
		{"kcm's own race: NoExecute before NoSchedule", func(e []event) []event {
			return moveTo(e, "node n1 +node.kubernetes.io/unreachable:NoSchedule", 5130*ms)
		}, ""},
		{"kcm's own race: pods marked after the taints", func(e []event) []event {
			return moveTo(e, "pod ns/a Ready=False", 5150*ms)
		}, ""},
		{"every change 3 s later (judged by checkTimes)", func(e []event) []event {
			for i := range e {
				e[i].at = e[i].at.Add(3 * s)
			}
			return e
		}, ""},
		{"missing", func(e []event) []event { return slices.Delete(e, len(e)-1, len(e)) }, `missing "pod ns/b deleted"`},
		{"unpredicted", func(e []event) []event {
			return append(e, at(8*s, "pod ns/c deleted", "n1"))
		}, `extra "pod ns/c deleted" at 8.00s`},
		{"duplicated", func(e []event) []event {
			return append(e, at(8*s, "pod ns/a deleted", "n1"))
		}, `extra "pod ns/a deleted" (occurrence 2) at 8.00s`},
		{"a pod marked not ready before its node turned", func(e []event) []event {
			return moveTo(e, "pod ns/a Ready=False", 4900*ms)
		}, `"node n1 Ready=Unknown" came after "pod ns/a Ready=False"`},
		{"a condition taint before its condition", func(e []event) []event {
			return moveTo(e, "node n1 +node.kubernetes.io/unreachable:NoExecute", 4950*ms)
		}, `"node n1 Ready=Unknown" came after "node n1 +node.kubernetes.io/unreachable:NoExecute"`},
		{"marked for deletion before the taint", func(e []event) []event {
			return moveTo(e, "pod ns/a DisruptionTarget=True", 5110*ms)
		}, `"node n1 +node.kubernetes.io/unreachable:NoExecute" came after "pod ns/a DisruptionTarget=True"`},
		{"deleted before marked", func(e []event) []event {
			return moveTo(e, "pod ns/b deleted", 7100*ms)
		}, `"pod ns/b DisruptionTarget=True" came after "pod ns/b deleted"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems := compareRuns(silentNode(), tc.change(silentNode()))
			if tc.want == "" {
				if len(problems) != 0 {
					t.Errorf("problems %q, want none", problems)
				}
				return
			}
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Errorf("problems %q, want one naming %s", problems, tc.want)
			}
		})
	}
	// A node's change and its pod's come through separate watches: a pod
	// seen first is in order when it was written after (its resourceVersion
	// is higher), and out of order when it was written first.
	withRV := func(podRV uint64) []event {
		e := silentNode()
		for i := range e {
			e[i].rv = uint64(100 + i)
		}
		e = moveTo(e, "pod ns/a Ready=False", 4990*ms) // delivered before the node's change
		e[find(e, "pod ns/a Ready=False")].rv = podRV
		return e
	}
	if p := compareRuns(silentNode(), withRV(150)); len(p) != 0 {
		t.Errorf("pod seen first, written after: %q", p)
	}
	if p := compareRuns(silentNode(), withRV(50)); len(p) != 1 || !strings.Contains(p[0], `"node n1 Ready=Unknown" came after "pod ns/a Ready=False"`) {
		t.Errorf("pod written before its node's change: problems %q, want the inversion named", p)
	}
	// Events of one component about one object keep their order.
	withCancel := append(silentNode(), at(9*s, `event taint-eviction-controller Pod ns/b: Normal TaintManagerEviction "Cancelling deletion Pod ns/b"`, ""))
	reordered := moveTo(slices.Clone(withCancel), "event taint-eviction-controller Pod ns/b: Normal TaintManagerEviction \"Cancelling", 7000*ms)
	if p := compareRuns(withCancel, reordered); len(p) != 1 || !strings.Contains(p[0], "Marking for deletion Pod ns/b") {
		t.Errorf("Events reordered: problems %q, want the marking named", p)
	}
}

func TestCheckTimes(t *testing.T) {
	if p := checkTimes(silentNode(), testSettings, testRenewals); len(p) != 0 {
		t.Fatalf("the reference run: %q", p)
	}
	for _, tc := range []struct {
		name   string
		change func([]event) []event
		want   string
	}{
		{"Unknown before the grace period ran out", func(e []event) []event {
			return moveTo(e, "node n1 Ready=Unknown", 4400*ms)
		}, `"node n1 Ready=Unknown" at 4.40s, outside [4.50s, 6.64s]`},
		{"Unknown late: every change 3 s later", func(e []event) []event {
			for i := range e {
				e[i].at = e[i].at.Add(3 * s)
			}
			return e
		}, `"node n1 Ready=Unknown" at 8.00s, outside [4.50s, 6.64s]`},
		{"a toleration cut short", func(e []event) []event {
			return moveTo(e, "pod ns/b DisruptionTarget=True", 6500*ms)
		}, `"pod ns/b DisruptionTarget=True" at 6.50s, outside [7.11s, 7.26s]`},
		{"a toleration overrun", func(e []event) []event {
			e = moveTo(e, "pod ns/b deleted", 7800*ms)
			return moveTo(e, "pod ns/b DisruptionTarget=True", 7700*ms)
		}, `"pod ns/b DisruptionTarget=True" at 7.70s, outside [7.11s, 7.26s]`},
		{"deleted long after marked", func(e []event) []event {
			return moveTo(e, "pod ns/a deleted", 5600*ms)
		}, `"pod ns/a deleted" at 5.60s, outside [5.20s, 5.34s]`},
		{"a pod marked not ready a pass late", func(e []event) []event {
			return moveTo(e, "pod ns/a Ready=False", 7*s)
		}, `"pod ns/a Ready=False" at 7.00s, outside [5.00s, 6.14s]`},
		{"tainted a pass late", func(e []event) []event {
			return moveTo(e, "node n1 +node.kubernetes.io/unreachable:NoSchedule", 6500*ms)
		}, `"node n1 +node.kubernetes.io/unreachable:NoSchedule" at 6.50s, outside [5.00s, 6.14s]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems := checkTimes(tc.change(silentNode()), testSettings, testRenewals)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Errorf("problems %q, want one naming %s", problems, tc.want)
			}
		})
	}
	// A pod created on a node already Unknown and tainted is timed from its
	// creation: marked not ready at once, and its toleration 2 s after it,
	// not after the node's changes.
	arrival := func(markedAt time.Duration) []event {
		return append(silentNode(),
			at(9*s, "pod ns/c created", "n1", unreachableFor2s),
			at(9050*ms, "pod ns/c Ready=False", "n1", unreachableFor2s),
			at(markedAt, "pod ns/c DisruptionTarget=True", "n1", unreachableFor2s),
			at(markedAt+50*ms, "pod ns/c deleted", "n1", unreachableFor2s))
	}
	if p := checkTimes(arrival(11100*ms), testSettings, testRenewals); len(p) != 0 {
		t.Errorf("a pod marked not ready, then its toleration, after its creation: %q", p)
	}
	want := `"pod ns/c DisruptionTarget=True" at 9.20s, outside [10.99s, 11.14s]: pod ns/c created at 9.00s + toleration 2s`
	if p := checkTimes(arrival(9200*ms), testSettings, testRenewals); !slices.ContainsFunc(p, func(p string) bool { return strings.Contains(p, want) }) {
		t.Errorf("a pod marked before its toleration after its creation ran out: problems %q, want %s", p, want)
	}
	want = `"pod ns/c Ready=False" at 11.00s, outside [9.00s, 10.14s]: pod ns/c created at 9.00s`
	if p := checkTimes(moveTo(arrival(11100*ms), "pod ns/c Ready=False", 11*s), testSettings, testRenewals); !slices.ContainsFunc(p, func(p string) bool { return strings.Contains(p, want) }) {
		t.Errorf("a pod marked not ready a pass after its creation: problems %q, want %s", p, want)
	}
	// A lag measured on a busy machine widens every upper bound with it.
	late := moveTo(silentNode(), "pod ns/a deleted", 5600*ms)
	busy := testSettings
	busy.lag = 100 * ms
	if p := checkTimes(late, busy, testRenewals); len(p) != 0 {
		t.Errorf("with a lag of 100 ms: %q", p)
	}
}

// judge finds every kind of disagreement between a prediction and what the
// API server recorded.
func TestJudge(t *testing.T) {
	tolerates7s := tolerate(v1.TaintNodeUnreachable, ptr(int64(7)))
	want := []expected{
		{"node n1 Ready=Unknown", "n1", 5 * s, nil},
		{"node n1 +node.kubernetes.io/unreachable:NoExecute", "n1", 5 * s, nil},
		{"pod ns/a DisruptionTarget=True", "n1", 7 * s, []v1.Toleration{unreachableFor2s}},
		{"pod ns/a deleted", "n1", 7 * s, []v1.Toleration{unreachableFor2s}},
		{"pod ns/b deleted", "n1", 12 * s, []v1.Toleration{tolerates7s}},
		{"pod ns/c deleted", "n1", 300 * s, nil}, // not due in the window
		{"pod ns/d deleted", "n1", -1, nil},      // stays
		{"node n2 Ready=Unknown", "n2", 5 * s, nil},
		{"pod ns/e deleted", "n2", 60 * s, nil}, // its node came back first
	}
	windows := map[string]time.Duration{"n1": 20 * s, "n2": 10 * s}
	window := func(n string) time.Duration { return windows[n] }
	tl := tolerance{s: testSettings, early: map[string]time.Duration{"n1": 1210 * ms, "n2": 1210 * ms}}
	agreeing := []event{
		at(4200*ms, "node n1 Ready=Unknown", "n1"),
		at(4300*ms, "node n1 +node.kubernetes.io/unreachable:NoExecute", "n1"),
		at(5*s, "node n2 Ready=Unknown", "n2"),
		at(6400*ms, "pod ns/a DisruptionTarget=True", "n1", unreachableFor2s),
		at(6500*ms, "pod ns/a deleted", "n1", unreachableFor2s),
		at(11*s, "pod ns/b deleted", "n1", tolerates7s),
	}
	if problems, lines := judge(want, agreeing, window, tl); len(problems) != 0 || len(lines) != len(want) {
		t.Errorf("an agreeing run: problems %q, %d lines", problems, len(lines))
	}
	for _, tc := range []struct {
		name   string
		change func([]event) []event
		want   string
	}{
		{"late", func(e []event) []event { return moveTo(e, "pod ns/a deleted", 10*s) }, "pod ns/a deleted at 10.00s; whatif: at 7.00s"},
		{"early", func(e []event) []event { return moveTo(e, "pod ns/b deleted", 8*s) }, "pod ns/b deleted at 8.00s; whatif: at 12.00s"},
		{"missing", func(e []event) []event { return slices.Delete(e, len(e)-1, len(e)) }, "pod ns/b deleted not seen by 20.00s"},
		{"a pod that stays deleted", func(e []event) []event { return append(e, at(15*s, "pod ns/d deleted", "n1")) }, "pod ns/d deleted at 15.00s; whatif: never"},
		{"unpredicted", func(e []event) []event { return append(e, at(15*s, "pod ns/x deleted", "n1")) }, "pod ns/x deleted at 15.00s, not predicted"},
		{"twice", func(e []event) []event { return append(e, at(15*s, "pod ns/a deleted", "n1")) }, "pod ns/a deleted at 15.00s, not predicted"},
		{"out of order", func(e []event) []event {
			return moveTo(e, "node n1 +node.kubernetes.io/unreachable:NoExecute", 6450*ms)
		}, `"node n1 +node.kubernetes.io/unreachable:NoExecute" came after "pod ns/a DisruptionTarget=True"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems, _ := judge(want, tc.change(slices.Clone(agreeing)), window, tl)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Errorf("problems %q, want one naming %q", problems, tc.want)
			}
		})
	}
}
