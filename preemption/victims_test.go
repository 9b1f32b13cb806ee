package preemption_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/preemption"
)

// TestSelectVictims covers the victim search on one node: priorities, the
// reprieve, PodDisruptionBudgets, nominated pods and resources.
func TestSelectVictims(t *testing.T) {
	type tc struct {
		name      string
		node      *v1.Node
		pods      []*v1.Pod
		nominated []*v1.Pod
		pdbs      []*policyv1.PodDisruptionBudget
		preemptor *v1.Pod
		opts      func(*preemption.Options)

		want           []string // victims, in order
		wantViolations int
		wantStatus     preemption.Status
	}
	ok := preemption.Status{Code: preemption.Success}
	// fooPods are the pods of the disruptedPods cases: n mid M pods labelled app=foo,
	// p1.1 started first.
	fooPods := func(n int) []*v1.Pod {
		out := make([]*v1.Pod, n)
		for i := range out {
			out[i] = mkPod(fmt.Sprintf("p1.%d", i+1), prio(mid), sizeM, labeled("app", "foo"), started(ts(i+1)))
		}
		return out
	}
	// tiedPods are the pods of the tie-order cases: p2 and p4 tie on
	// priority and start time, and only p4 is covered by the "app=foo" budget.
	tiedPods := func() []*v1.Pod {
		return []*v1.Pod{
			mkPod("p0", prio(mid), sizeS, started(ts(2))),
			mkPod("p1", prio(mid), sizeS, started(ts(1))),
			mkPod("p2", prio(high), sizeS, started(ts(1))),
			mkPod("p3", prio(low), sizeS, started(ts(1))),
			mkPod("p4", prio(high), sizeS, started(ts(1)), labeled("app", "foo")),
		}
	}
	cases := []tc{
		{
			name:      "the only pod goes for a preemptor without requests",
			node:      mkNode("n1", "500m", "500", 1),
			pods:      []*v1.Pod{mkPod("p1", prio(low))},
			preemptor: mkPod("p", prio(high)),
			want:      []string{"p1"}, wantStatus: ok,
		},
		{
			name:      "equal priority: no victims",
			node:      mkNode("n1", "500m", "500", 1),
			pods:      []*v1.Pod{mkPod("p1", prio(low))},
			preemptor: mkPod("p", prio(low)),
			wantStatus: preemption.Status{
				Code:    preemption.UnschedulableAndUnresolvable,
				Reasons: []string{"No preemption victims found for incoming pod"},
			},
		},
		{
			name:      "does not fit even without the lower-priority pods",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("h", prio(high), sizeL), mkPod("l", prio(low), sizeS)},
			preemptor: mkPod("p", prio(high), sizeL),
			wantStatus: preemption.Status{
				Code:    preemption.Unschedulable,
				Reasons: []string{"Insufficient cpu", "Insufficient memory"},
			},
		},
		{
			name:      "the small low pod is reprieved, the mid one goes",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("p1.1", prio(low), sizeS), mkPod("p1.2", prio(mid), sizeL)},
			preemptor: mkPod("p", prio(high), sizeL),
			want:      []string{"p1.2"}, wantStatus: ok,
		},
		{
			name: "mixed priorities, equal priority never preempted",
			node: stdNode("n1"),
			pods: []*v1.Pod{
				mkPod("p1.1", prio(mid), sizeS), mkPod("p1.2", prio(low), sizeS),
				mkPod("p1.3", prio(mid), sizeM), mkPod("p1.4", prio(high), sizeS),
			},
			preemptor: mkPod("p", prio(high), sizeL),
			want:      []string{"p1.3", "p1.2"}, wantStatus: ok,
		},
		{
			name: "the older of two equal-priority pods is reprieved",
			node: stdNode("n1"),
			pods: []*v1.Pod{
				mkPod("p1.1", prio(low), sizeS, started(ts(5))), mkPod("p1.2", prio(low), sizeS, started(ts(4))),
				mkPod("p1.3", prio(mid), sizeM, started(ts(3))), mkPod("p1.4", prio(high), sizeS, started(ts(2))),
			},
			preemptor: mkPod("p", prio(high), sizeL),
			want:      []string{"p1.3", "p1.1"}, wantStatus: ok,
		},
		{
			name: "the equal-priority pod stays, the mid one is reprieved",
			node: stdNode("n1"),
			pods: []*v1.Pod{
				mkPod("v1", prio(low), sizeS), mkPod("v2", prio(mid), sizeS), mkPod("v3", prio(high), sizeS),
			},
			preemptor: mkPod("p", prio(high), sizeL),
			want:      []string{"v1"}, wantStatus: ok,
		},
		{
			name:      "two pods under a budget of 1: one violation",
			node:      stdNode("n1"),
			pods:      fooPods(2),
			pdbs:      []*policyv1.PodDisruptionBudget{mkPDB("pdb", 1)},
			preemptor: mkPod("p", prio(high), sizeXL),
			want:      []string{"p1.1", "p1.2"}, wantViolations: 1, wantStatus: ok,
		},
		{
			name:      "a victim already in disruptedPods is not charged",
			node:      stdNode("n1"),
			pods:      fooPods(2),
			pdbs:      []*policyv1.PodDisruptionBudget{mkPDB("pdb", 1, disrupted("p1.2"))},
			preemptor: mkPod("p", prio(high), sizeXL),
			want:      []string{"p1.1", "p1.2"}, wantStatus: ok,
		},
		{
			name:      "disruptedPods naming a pod elsewhere changes nothing",
			node:      stdNode("n1"),
			pods:      fooPods(2),
			pdbs:      []*policyv1.PodDisruptionBudget{mkPDB("pdb", 1, disrupted("p2"))},
			preemptor: mkPod("p", prio(high), sizeXL),
			want:      []string{"p1.1", "p1.2"}, wantViolations: 1, wantStatus: ok,
		},
		{
			name:      "three pods, one already disrupted: one violation",
			node:      stdNode("n1"),
			pods:      fooPods(3),
			pdbs:      []*policyv1.PodDisruptionBudget{mkPDB("pdb", 1, disrupted("p1.3"))},
			preemptor: mkPod("p", prio(high), sizeXL),
			want:      []string{"p1.1", "p1.2", "p1.3"}, wantViolations: 1, wantStatus: ok,
		},
		{
			name: "the protected low pod is reprieved first, the unprotected mid pod goes",
			node: stdNode("n1"),
			pods: []*v1.Pod{
				mkPod("v-pdb", prio(low), sizeM, labeled("app", "foo")),
				mkPod("v-nopdb", prio(mid), sizeM),
			},
			pdbs:      []*policyv1.PodDisruptionBudget{mkPDB("pdb", 0)},
			preemptor: mkPod("p", prio(high), sizeL),
			want:      []string{"v-nopdb"}, wantStatus: ok,
		},
		{
			name: "both protected: the mid pod is reprieved, the low one violates",
			node: stdNode("n1"),
			pods: []*v1.Pod{
				mkPod("v1", prio(low), sizeM, labeled("app", "foo")),
				mkPod("v2", prio(mid), sizeM, labeled("app", "foo")),
			},
			pdbs:      []*policyv1.PodDisruptionBudget{mkPDB("pdb", 0)},
			preemptor: mkPod("p", prio(high), sizeL),
			want:      []string{"v1"}, wantViolations: 1, wantStatus: ok,
		},
		{
			name: "empty and nil selectors match nothing",
			node: stdNode("n1"),
			pods: []*v1.Pod{mkPod("v1", prio(low), sizeM, labeled("app", "foo"))},
			pdbs: []*policyv1.PodDisruptionBudget{
				mkPDB("empty", 0, selecting(&metav1.LabelSelector{})),
				mkPDB("nil", 0, selecting(nil)),
			},
			preemptor: mkPod("p", prio(high), sizeXL),
			want:      []string{"v1"}, wantStatus: ok,
		},
		{
			name:      "a budget in another namespace does not apply",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("v1", prio(low), sizeM, labeled("app", "foo"), inNS("ns1"))},
			pdbs:      []*policyv1.PodDisruptionBudget{mkPDB("pdb", 0, pdbNS("ns2"))},
			preemptor: mkPod("p", prio(high), sizeXL),
			want:      []string{"v1"}, wantStatus: ok,
		},
		{
			name: "an unlabeled pod never violates, even a NotIn selector",
			node: stdNode("n1"),
			pods: []*v1.Pod{mkPod("v1", prio(low), sizeM)},
			pdbs: []*policyv1.PodDisruptionBudget{mkPDB("pdb", 0, selecting(&metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"x"}}},
			}))},
			preemptor: mkPod("p", prio(high), sizeXL),
			want:      []string{"v1"}, wantStatus: ok,
		},
		{
			name: "the same NotIn selector does match a pod with other labels",
			node: stdNode("n1"),
			pods: []*v1.Pod{mkPod("v1", prio(low), sizeM, labeled("tier", "web"))},
			pdbs: []*policyv1.PodDisruptionBudget{mkPDB("pdb", 0, selecting(&metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"x"}}},
			}))},
			preemptor: mkPod("p", prio(high), sizeXL),
			want:      []string{"v1"}, wantViolations: 1, wantStatus: ok,
		},
		{
			name: "a pod under two budgets counts once",
			node: stdNode("n1"),
			pods: []*v1.Pod{mkPod("v1", prio(low), sizeM, labeled("app", "foo", "tier", "x"))},
			pdbs: []*policyv1.PodDisruptionBudget{
				mkPDB("a", 1),
				mkPDB("b", 0, selecting(&metav1.LabelSelector{MatchLabels: map[string]string{"tier": "x"}})),
			},
			preemptor: mkPod("p", prio(high), sizeXL),
			want:      []string{"v1"}, wantViolations: 1, wantStatus: ok,
		},
		{
			name: "the walk stops at the first exhausted budget: later ones are not charged",
			node: stdNode("n1"),
			pods: []*v1.Pod{
				mkPod("v1", prio(mid), sizeM, labeled("app", "foo", "tier", "x")),
				mkPod("v2", prio(low), sizeM, labeled("tier", "x")),
			},
			pdbs: []*policyv1.PodDisruptionBudget{
				mkPDB("a", 0),
				mkPDB("b", 1, selecting(&metav1.LabelSelector{MatchLabels: map[string]string{"tier": "x"}})),
			},
			preemptor: mkPod("p", prio(high), sizeXL),
			want:      []string{"v1", "v2"}, wantViolations: 1, wantStatus: ok,
		},
		{
			name: "the more important pod spends the budget first",
			node: stdNode("n1"),
			pods: []*v1.Pod{
				mkPod("late", prio(low), sizeM, labeled("app", "foo")),
				mkPod("early", prio(mid), sizeM, labeled("app", "foo")),
			},
			pdbs:      []*policyv1.PodDisruptionBudget{mkPDB("pdb", 1)},
			preemptor: mkPod("p", prio(high), sizeXL),
			// Violating list first ("late"), then the rest; re-sorted by
			// importance because both lists were non-empty.
			want: []string{"early", "late"}, wantViolations: 1, wantStatus: ok,
		},
		{
			name: "over-count: the reprieved pod spent the budget",
			node: stdNode("n1"),
			pods: []*v1.Pod{
				mkPod("A", prio(mid), sizeM, labeled("app", "foo"), started(ts(1))),
				mkPod("B", prio(low), sizeL, labeled("app", "foo")),
			},
			pdbs:      []*policyv1.PodDisruptionBudget{mkPDB("pdb", 1)},
			preemptor: mkPod("p", prio(high), sizeL),
			want:      []string{"B"}, wantViolations: 1, wantStatus: ok,
		},
		{
			name:      "a nominated pod of higher priority keeps its room",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("L1", prio(low), sizeM)},
			nominated: []*v1.Pod{mkPod("Q", prio(vhigh), sizeM, nominatedTo("n1"))},
			preemptor: mkPod("p", prio(high), sizeM),
			want:      []string{"L1"}, wantStatus: ok,
		},
		{
			name:      "a lower-priority nominated pod is ignored: fits without victims",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("L1", prio(low), sizeM)},
			nominated: []*v1.Pod{mkPod("Q", prio(mid), sizeM, nominatedTo("n1"))},
			preemptor: mkPod("p", prio(high), sizeM),
			want:      []string{}, wantStatus: ok,
		},
		{
			name:      "the preemptor's own nomination is not counted",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("L1", prio(low), sizeM)},
			nominated: []*v1.Pod{mkPod("p", prio(high), sizeM, nominatedTo("n1"))},
			preemptor: mkPod("p", prio(high), sizeM, nominatedTo("n1")),
			want:      []string{}, wantStatus: ok,
		},
		{
			name:      "extended resource",
			node:      mkNode("n1", "500m", "500", 32, "example.com/gpu", "2"),
			pods:      []*v1.Pod{mkPod("L", prio(low), reqs("example.com/gpu", "2"))},
			preemptor: mkPod("p", prio(high), reqs("example.com/gpu", "1")),
			want:      []string{"L"}, wantStatus: ok,
		},
		{
			name:      "extended resource beyond allocatable is unresolvable",
			node:      mkNode("n1", "500m", "500", 32, "example.com/gpu", "2"),
			pods:      []*v1.Pod{mkPod("L", prio(low), reqs("example.com/gpu", "2"))},
			preemptor: mkPod("p", prio(high), reqs("example.com/gpu", "3")),
			wantStatus: preemption.Status{
				Code:    preemption.UnschedulableAndUnresolvable,
				Reasons: []string{"Insufficient example.com/gpu"},
			},
		},
		{
			name:      "an ignored extended resource is not checked",
			node:      mkNode("n1", "500m", "500", 32, "example.com/gpu", "2"),
			pods:      []*v1.Pod{mkPod("L", prio(low), sizeS)},
			preemptor: mkPod("p", prio(high), sizeXL, reqs("cpu", "500m", "example.com/gpu", "3")),
			opts:      func(o *preemption.Options) { o.IgnoredResourceGroups = []string{"example.com"} },
			want:      []string{"L"}, wantStatus: ok,
		},
		{
			name: "pod count: the newer of two pods goes",
			node: mkNode("n1", "500m", "500", 2),
			pods: []*v1.Pod{
				mkPod("A", prio(low), started(ts(1))), mkPod("B", prio(low), started(ts(2))),
			},
			preemptor: mkPod("p", prio(high)),
			want:      []string{"B"}, wantStatus: ok,
		},
		{
			name: "terminating pods are victims like the others",
			node: stdNode("n1"),
			pods: []*v1.Pod{
				mkPod("gone", prio(low), sizeL, terminating(true)), mkPod("stay", prio(mid), sizeS),
			},
			preemptor: mkPod("p", prio(high), sizeL),
			want:      []string{"gone"}, wantStatus: ok,
		},
		{
			name:      "a pod without a start time reads as started now: the newest",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("new", prio(low), sizeM), mkPod("old", prio(low), sizeM, started(ts(1)))},
			preemptor: mkPod("p", prio(high), sizeL),
			want:      []string{"new"}, wantStatus: ok,
		},
		{
			name:      "ties keep snapshot order: the later pod is tried last and goes",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("first", prio(low), sizeM), mkPod("second", prio(low), sizeM)},
			preemptor: mkPod("p", prio(high), sizeL),
			want:      []string{"second"}, wantStatus: ok,
		},
		{
			// Upstream appends the victims in reprieve order, PDB-violating
			// ones first, and re-sorts them with sort.Slice, an insertion
			// sort (stable) up to 12 elements: p4 and p2 tie on priority
			// and start time, so upstream returns [p4 p2 p1 p0 p3] (found
			// by the conformance test TestVictimTieOrder). Breaking the tie
			// by node order would give [p2 p4 …].
			name:      "tied victims keep upstream's append order: the PDB-violating one first",
			node:      stdNode("n1"),
			pods:      tiedPods(),
			pdbs:      []*policyv1.PodDisruptionBudget{mkPDB("pdb", 0)},
			preemptor: mkPod("p", prio(vhigh), sizeXL),
			want:      []string{"p4", "p2", "p1", "p0", "p3"}, wantViolations: 1, wantStatus: ok,
		},
		{
			// The same with a custom importance that reads priorities only:
			// its sorts are stable too, so p2 precedes p4 and p0 precedes
			// p1 among the potential victims (node order), and p4, found
			// first as the violating victim, leads among the victims.
			name:      "tied victims under MoreImportant: the PDB-violating one first, then node order",
			node:      stdNode("n1"),
			pods:      tiedPods(),
			pdbs:      []*policyv1.PodDisruptionBudget{mkPDB("pdb", 0)},
			preemptor: mkPod("p", prio(vhigh), sizeXL),
			opts: func(o *preemption.Options) {
				o.MoreImportant = func(a, b *v1.Pod) bool { return *a.Spec.Priority > *b.Spec.Priority }
			},
			want: []string{"p4", "p2", "p0", "p1", "p3"}, wantViolations: 1, wantStatus: ok,
		},
		{
			name:      "IsEligibleVictim can protect a pod",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("keep", prio(low), sizeM, labeled("protected", "yes")), mkPod("take", prio(mid), sizeM)},
			preemptor: mkPod("p", prio(high), sizeL),
			opts: func(o *preemption.Options) {
				o.IsEligibleVictim = func(_ *preemption.NodeSnapshot, v, _ *v1.Pod) bool { return v.Labels["protected"] == "" }
			},
			want: []string{"take"}, wantStatus: ok,
		},
		{
			name: "MoreImportant replaces the importance order",
			node: stdNode("n1"),
			pods: []*v1.Pod{
				mkPod("old", prio(low), sizeM, started(ts(1))), mkPod("new", prio(low), sizeM, started(ts(2))),
			},
			preemptor: mkPod("p", prio(high), sizeL),
			opts: func(o *preemption.Options) {
				// Newest first: the old pod is tried last and goes.
				o.MoreImportant = func(a, b *v1.Pod) bool { return a.Status.StartTime.After(b.Status.StartTime.Time) }
			},
			want: []string{"old"}, wantStatus: ok,
		},
		{
			name:      "a filter can force a victim that resources alone would reprieve",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("port80", prio(low), sizeS, labeled("port", "80")), mkPod("other", prio(low), sizeS)},
			preemptor: mkPod("p", prio(high), sizeS),
			opts: func(o *preemption.Options) {
				o.Filters = []preemption.Filter{noPodLabeled("port", "80")}
			},
			want: []string{"port80"}, wantStatus: ok,
		},
		{
			name:      "a filter that rejects the emptied node rejects the node",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("v", prio(low), sizeS)},
			preemptor: mkPod("p", prio(high), sizeS),
			opts: func(o *preemption.Options) {
				o.Filters = []preemption.Filter{func(*v1.Pod, *v1.Node, preemption.Remaining) (bool, string) { return false, "" }}
			},
			wantStatus: preemption.Status{Code: preemption.Unschedulable, Reasons: []string{"rejected by filter 0"}},
		},
		{
			name:      "a rejecting filter's reason is the node's status",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("v", prio(low), sizeS)},
			preemptor: mkPod("p", prio(high), sizeS),
			opts: func(o *preemption.Options) {
				accept := func(*v1.Pod, *v1.Node, preemption.Remaining) (bool, string) { return true, "ignored when it fits" }
				reject := func(*v1.Pod, *v1.Node, preemption.Remaining) (bool, string) {
					return false, "node(s) didn't match pod anti-affinity rules"
				}
				o.Filters = []preemption.Filter{accept, reject}
			},
			wantStatus: preemption.Status{Code: preemption.Unschedulable, Reasons: []string{"node(s) didn't match pod anti-affinity rules"}},
		},
		{
			name:      "second pass: a filter that needs the nominated pod fails without it",
			node:      stdNode("n1"),
			pods:      []*v1.Pod{mkPod("v", prio(low), sizeS)},
			nominated: []*v1.Pod{mkPod("friend", prio(vhigh), labeled("app", "friend"))},
			preemptor: mkPod("p", prio(high), sizeS),
			opts: func(o *preemption.Options) {
				o.Filters = []preemption.Filter{func(_ *v1.Pod, _ *v1.Node, r preemption.Remaining) (bool, string) {
					for p := range r.Pods() {
						if p.Labels["app"] == "friend" {
							return true, ""
						}
					}
					return false, ""
				}}
			},
			wantStatus: preemption.Status{Code: preemption.Unschedulable, Reasons: []string{"rejected by filter 0"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			node := snapNominated(t, c.node, c.pods, c.nominated)
			opts := seq()
			if c.opts != nil {
				c.opts(&opts)
			}
			got, st := preemption.SelectVictimsWithStatus(c.preemptor, node, mustPDBs(c.pdbs), now, opts)
			assert.Equal(t, c.wantStatus, st)
			if !st.IsSuccess() {
				assert.Empty(t, got.Pods)
				return
			}
			assert.Equal(t, c.want, names(got.Pods))
			assert.Equal(t, c.wantViolations, got.NumPDBViolations)

			v, ok := preemption.SelectVictims(c.preemptor, node, mustPDBs(c.pdbs), now, opts)
			assert.True(t, ok)
			assert.Equal(t, got, v)
		})
	}
}

// noPodLabeled is a host-port-like filter: the node must not hold a pod
// with the label.
func noPodLabeled(k, v string) preemption.Filter {
	return func(_ *v1.Pod, _ *v1.Node, r preemption.Remaining) (bool, string) {
		for p := range r.Pods() {
			if p.Labels[k] == v {
				return false, "node(s) didn't have free ports for the requested pod ports"
			}
		}
		return true, ""
	}
}

func TestSelectVictimsInvalidInput(t *testing.T) {
	node := snap(t, stdNode("n1"), mkPod("v", prio(low)))
	for name, run := range map[string]func() preemption.Status{
		"nil preemptor": func() preemption.Status {
			_, st := preemption.SelectVictimsWithStatus(nil, node, preemption.PDBs{}, now, seq())
			return st
		},
		"zero snapshot": func() preemption.Status {
			_, st := preemption.SelectVictimsWithStatus(mkPod("p", prio(high)), preemption.NodeSnapshot{}, preemption.PDBs{}, now, seq())
			return st
		},
	} {
		t.Run(name, func(t *testing.T) {
			st := run()
			assert.Equal(t, preemption.Error, st.Code)
			require.Len(t, st.Reasons, 1)
			assert.True(t, strings.HasPrefix(st.Reasons[0], "preemption: "), st.Reasons[0])
			assert.True(t, strings.HasSuffix(st.Reasons[0], ": invalid input"), st.Reasons[0])
		})
	}
}

func TestNewPDBsInvalidInput(t *testing.T) {
	_, err := preemption.NewPDBs([]*policyv1.PodDisruptionBudget{mkPDB("ok", 1), nil})
	require.ErrorIs(t, err, preemption.ErrInvalidInput)
	assert.Equal(t, "preemption: PodDisruptionBudget 1 is nil: invalid input", err.Error())
}

func TestNewPDBsLen(t *testing.T) {
	s, err := preemption.NewPDBs([]*policyv1.PodDisruptionBudget{
		mkPDB("none", 1), // nil selector: matches no pod, but counted
		mkPDB("app", 1, selecting(&metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}})),
	})
	require.NoError(t, err)
	assert.Equal(t, 2, s.Len())
	assert.Equal(t, 0, preemption.PDBs{}.Len())
}

// TestRemaining checks what a filter sees during a search.
func TestRemaining(t *testing.T) {
	node := snapNominated(t, mkNode("n1", "1", "1Gi", 10, "example.com/gpu", "4"),
		[]*v1.Pod{mkPod("a", prio(low), reqs("cpu", "200m", "memory", "100Mi", "example.com/gpu", "1")), mkPod("b", prio(vhigh), sizeS)},
		[]*v1.Pod{mkPod("nom", prio(vhigh), reqs("cpu", "100m", "example.com/gpu", "2"))})
	type view struct {
		pods      []string
		n         int
		cpu, gpu  int64
		podsFree  int64
		ephemeral int64
	}
	var seen []view
	opts := seq()
	opts.Filters = []preemption.Filter{func(_ *v1.Pod, n *v1.Node, r preemption.Remaining) (bool, string) {
		assert.Equal(t, "n1", n.Name)
		var ps []string
		for p := range r.Pods() {
			ps = append(ps, p.Name)
		}
		seen = append(seen, view{ps, r.NumPods(), r.Free(v1.ResourceCPU), r.Free("example.com/gpu"), r.Free(v1.ResourcePods), r.Free(v1.ResourceEphemeralStorage)})
		return true, ""
	}}
	// The preemptor fits once "a" is removed; "a" is then reprieved.
	got, ok := preemption.SelectVictims(mkPod("p", prio(high), req("100m", "")), node, preemption.PDBs{}, now, opts)
	require.True(t, ok)
	assert.Empty(t, got.Pods)
	assert.Equal(t, []view{
		// all victims removed: with the nominated pod, then without
		{[]string{"b", "nom"}, 2, 1000 - 100 - 100, 4 - 2, 8, 0},
		{[]string{"b"}, 1, 1000 - 100, 4, 9, 0},
		// "a" put back
		{[]string{"a", "b", "nom"}, 3, 1000 - 400, 4 - 3, 7, 0},
		{[]string{"a", "b"}, 2, 1000 - 300, 4 - 1, 8, 0},
	}, seen)

	var zero preemption.Remaining
	assert.Zero(t, zero.NumPods())
	assert.Zero(t, zero.Free(v1.ResourceCPU))
	for range zero.Pods() {
		t.Fatal("zero Remaining yields pods")
	}
}

// TestSelectVictimsUnstartedTies pins the documented difference from
// upstream for equally important victims without a start time: upstream
// reads the clock at each comparison, so its insertion sort puts the later
// of two such pods first (here it would try u3 before u2 before u1, and put
// the non-violating victims first in the final order); the library reads
// them all as now, so they tie and keep snapshot order, PDB-violating
// victims first.
func TestSelectVictimsUnstartedTies(t *testing.T) {
	node := snap(t, stdNode("n1"),
		mkPod("u1", prio(low), sizeS),
		mkPod("u2", prio(low), sizeS, labeled("app", "guarded")),
		mkPod("u3", prio(low), sizeS),
	)
	pdbs := mustPDBs([]*policyv1.PodDisruptionBudget{
		mkPDB("guard", 0, selecting(&metav1.LabelSelector{MatchLabels: map[string]string{"app": "guarded"}})),
	})
	got, ok := preemption.SelectVictims(mkPod("p", prio(high), sizeXL), node, pdbs, now, seq())
	require.True(t, ok)
	assert.Equal(t, []string{"u2", "u1", "u3"}, names(got.Pods))
	assert.Equal(t, 1, got.NumPDBViolations)
}
