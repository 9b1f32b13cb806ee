package preemption_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/evictkit/eviction/preemption"
)

// fiveNodes builds n1..n5, each holding one L pod of the given priority,
// for the sampling cases.
func fiveNodes(t *testing.T, prios [5]int32, labels [5]bool) []preemption.NodeSnapshot {
	out := make([]preemption.NodeSnapshot, 5)
	for i := range 5 {
		opts := []podOpt{prio(prios[i]), sizeL}
		if labels[i] {
			opts = append(opts, labeled("app", "foo"))
		}
		out[i] = snap(t, stdNode(fmt.Sprintf("n%d", i+1)), mkPod(fmt.Sprintf("p%d", i+1), opts...))
	}
	return out
}

// countFilter is a filter that accepts everything and counts its calls.
// Upstream's counting plugin in these cases runs ahead of NodeResourcesFit
// and so counts every fit check (2 per visited node: after removing the
// victims, and for the one reprieve). Ours
// runs after the resource check, so it sees only the checks that pass it:
// one per visited node that has victims here.
func countFilter(n *int) preemption.Filter {
	return func(*v1.Pod, *v1.Node, preemption.Remaining) (bool, string) { *n++; return true, "" }
}

// TestEvaluate covers the whole pipeline: eligibility, potential nodes,
// sampling, the dry run, nominated pods and the node pick.
func TestEvaluate(t *testing.T) {
	type tc struct {
		name      string
		nodes     func(t *testing.T) []preemption.NodeSnapshot
		pdbs      []*policyv1.PodDisruptionBudget
		preemptor *v1.Pod
		opts      func(*preemption.Options)

		wantErr        error
		wantCode       preemption.Code
		wantNode       string
		wantVictims    []string
		wantViolations int
		wantKeep       bool
		wantMessage    string
		check          func(t *testing.T, r preemption.Result)
	}
	one := func(node *v1.Node, pods ...*v1.Pod) func(t *testing.T) []preemption.NodeSnapshot {
		return func(t *testing.T) []preemption.NodeSnapshot { return []preemption.NodeSnapshot{snap(t, node, pods...)} }
	}
	var filterCalls int
	// sampled is the setup of the sampling cases: 40% of the
	// potential nodes and at least abs, from offset 4, with the filter
	// calls counted in filterCalls.
	sampled := func(abs int32) func(*preemption.Options) {
		return func(o *preemption.Options) {
			o.Sampling = &preemption.Sampling{MinCandidateNodesPercentage: 40, MinCandidateNodesAbsolute: abs}
			o.Offset = preemption.FixedOffset(4)
			filterCalls = 0
			o.Filters = []preemption.Filter{countFilter(&filterCalls)}
		}
	}
	cases := []tc{
		{
			name:      "preempt the only pod",
			nodes:     one(mkNode("n1", "500m", "500", 1), mkPod("p1", prio(low))),
			preemptor: mkPod("p", prio(high)),
			wantCode:  preemption.Success, wantNode: "n1", wantVictims: []string{"p1"},
			wantMessage: "found a potential placement for pod on node n1, preempting 1 victims",
			check: func(t *testing.T, r preemption.Result) {
				assert.Equal(t, "n1", r.NominatedNode)
				assert.Equal(t, preemption.Decision{Criterion: preemption.CriterionSingle}, r.Decision)
				assert.Equal(t, []string{"n1"}, r.Potential)
				assert.Equal(t, int32(1), r.NumCandidates)
				assert.Equal(t, 1, r.Evaluated)
			},
		},
		{
			name:      "equal priority: no candidate, nomination cleared",
			nodes:     one(mkNode("n1", "500m", "500", 1), mkPod("p1", prio(low))),
			preemptor: mkPod("p", prio(low), nominatedTo("n9")),
			wantErr:   preemption.ErrNoCandidate, wantCode: preemption.Unschedulable,
			wantMessage: "0/1 nodes are available: 1 No preemption victims found for incoming pod.",
			check: func(t *testing.T, r preemption.Result) {
				assert.Empty(t, r.NominatedNode)
				assert.Equal(t, preemption.UnschedulableAndUnresolvable, r.NodeStatuses["n1"].Code)
			},
		},
		{
			name:      "prior status UnschedulableAndUnresolvable: not helpful",
			nodes:     one(mkNode("n1", "500m", "500", 1), mkPod("p1", prio(low))),
			preemptor: mkPod("p", prio(high)),
			opts: func(o *preemption.Options) {
				o.PriorStatus = map[string]preemption.Code{"n1": preemption.UnschedulableAndUnresolvable}
			},
			wantErr: preemption.ErrNoCandidate, wantCode: preemption.Unschedulable,
			wantMessage: "0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
			check: func(t *testing.T, r preemption.Result) {
				assert.Empty(t, r.Potential)
				assert.Empty(t, r.NodeStatuses)
			},
		},
		{
			name:      "a node absent from PriorStatus is UnschedulableAndUnresolvable",
			nodes:     one(mkNode("n1", "500m", "500", 1), mkPod("p1", prio(low))),
			preemptor: mkPod("p", prio(high)),
			opts:      func(o *preemption.Options) { o.PriorStatus = map[string]preemption.Code{} },
			wantErr:   preemption.ErrNoCandidate, wantCode: preemption.Unschedulable,
			wantMessage: "0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		},
		{
			name: "only the node with a lower-priority pod",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return []preemption.NodeSnapshot{
					snap(t, mkNode("n1", "500m", "500", 1), mkPod("p1", prio(high))),
					snap(t, mkNode("n2", "500m", "500", 1), mkPod("p2", prio(low))),
				}
			},
			preemptor: mkPod("p", prio(mid)),
			wantCode:  preemption.Success, wantNode: "n2", wantVictims: []string{"p2"},
		},
		{
			name:      "no room even without the lower-priority pod",
			nodes:     one(stdNode("n1"), mkPod("h", prio(high), sizeL), mkPod("l", prio(low), sizeS)),
			preemptor: mkPod("p", prio(high), sizeL),
			wantErr:   preemption.ErrNoCandidate, wantCode: preemption.Unschedulable,
			wantMessage: "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.",
		},
		{
			name: "upstream variant: cpu only, status forced",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return []preemption.NodeSnapshot{
					snap(t, mkNode("n1", "200m", "500", 32), mkPod("l", prio(low), req("100m", ""))),
					snap(t, mkNode("n2", "200m", "500", 32), mkPod("l2", prio(low), req("100m", ""))),
				}
			},
			preemptor: mkPod("p", prio(high), req("300m", "")),
			opts: func(o *preemption.Options) {
				o.PriorStatus = map[string]preemption.Code{"n1": preemption.Unschedulable, "n2": preemption.Unschedulable}
			},
			wantErr: preemption.ErrNoCandidate, wantCode: preemption.Unschedulable,
			wantMessage: "0/2 nodes are available: 2 Insufficient cpu.",
		},
		{
			name: "two candidates tie on every criterion: the first wins",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return []preemption.NodeSnapshot{
					snap(t, stdNode("n1"), mkPod("p1.1", prio(low), sizeS), mkPod("p1.2", prio(mid), sizeL)),
					snap(t, stdNode("n2"), mkPod("p2", prio(mid), sizeL)),
				}
			},
			preemptor: mkPod("p", prio(high), sizeL),
			wantCode:  preemption.Success, wantNode: "n1", wantVictims: []string{"p1.2"},
			check: func(t *testing.T, r preemption.Result) {
				assert.Equal(t, []string{"n1", "n2"}, candidateNodes(r.Candidates))
				assert.Equal(t, preemption.Decision{Criterion: preemption.CriterionOrder, RunnerUp: "n2"}, r.Decision)
			},
		},
		{
			name: "the node without lower-priority pods is no candidate",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return []preemption.NodeSnapshot{
					snap(t, stdNode("n1"),
						mkPod("p1.1", prio(mid), sizeS), mkPod("p1.2", prio(low), sizeS),
						mkPod("p1.3", prio(mid), sizeM), mkPod("p1.4", prio(high), sizeS)),
					snap(t, stdNode("n2"), mkPod("p2", prio(high), sizeL)),
				}
			},
			preemptor: mkPod("p", prio(high), sizeL),
			wantCode:  preemption.Success, wantNode: "n1", wantVictims: []string{"p1.3", "p1.2"},
			check: func(t *testing.T, r preemption.Result) {
				assert.Equal(t, []string{"n1"}, candidateNodes(r.Candidates))
				assert.Equal(t, preemption.Status{
					Code:    preemption.UnschedulableAndUnresolvable,
					Reasons: []string{"No preemption victims found for incoming pod"},
				}, r.NodeStatuses["n2"])
			},
		},
		{
			name: "sampling 40%/1 from offset 4: n5 then n1",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return fiveNodes(t, [5]int32{mid, mid, mid, mid, mid}, [5]bool{})
			},
			preemptor: mkPod("p", prio(high), sizeL),
			opts:      sampled(1),
			wantCode:  preemption.Success, wantNode: "n5", wantVictims: []string{"p5"},
			check: func(t *testing.T, r preemption.Result) {
				assert.Equal(t, []string{"n5", "n1"}, candidateNodes(r.Candidates))
				assert.Equal(t, int32(4), r.Offset)
				assert.Equal(t, int32(2), r.NumCandidates)
				assert.Equal(t, 2, r.Evaluated)
				assert.Equal(t, 2, filterCalls) // upstream's counter: 4
			},
		},
		{
			name: "sampling skips nodes without victims: n1, n3",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return fiveNodes(t, [5]int32{mid, vhigh, mid, mid, vhigh}, [5]bool{})
			},
			preemptor: mkPod("p", prio(high), sizeL),
			opts:      sampled(1),
			wantCode:  preemption.Success, wantNode: "n1", wantVictims: []string{"p1"},
			check: func(t *testing.T, r preemption.Result) {
				assert.Equal(t, []string{"n1", "n3"}, candidateNodes(r.Candidates))
				assert.Equal(t, 4, r.Evaluated)
				assert.Equal(t, 2, filterCalls) // upstream's counter: 4
			},
		},
		{
			name: "the dry run looks past numCandidates for a non-violating node",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return fiveNodes(t, [5]int32{mid, mid, mid, mid, mid}, [5]bool{true, true, false, false, true})
			},
			pdbs:      []*policyv1.PodDisruptionBudget{mkPDB("pdb", 0)},
			preemptor: mkPod("p", prio(high), sizeL),
			opts:      sampled(2),
			wantCode:  preemption.Success, wantNode: "n3", wantVictims: []string{"p3"},
			check: func(t *testing.T, r preemption.Result) {
				assert.Equal(t, []string{"n3", "n5", "n1"}, candidateNodes(r.Candidates))
				assert.Equal(t, []int{0, 1, 1}, []int{
					r.Candidates[0].Victims.NumPDBViolations, r.Candidates[1].Victims.NumPDBViolations, r.Candidates[2].Victims.NumPDBViolations,
				})
				assert.Equal(t, 4, r.Evaluated) // n4 never evaluated
				assert.Equal(t, 4, filterCalls) // upstream's counter: 8
				assert.Equal(t, preemption.Decision{Criterion: preemption.CriterionPDBViolations, RunnerUp: "n5"}, r.Decision)
			},
		},
		{
			name: "whole pipeline",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return []preemption.NodeSnapshot{
					snap(t, stdNode("n1"), mkPod("p1.1", prio(low), sizeS), mkPod("p1.2", prio(low), sizeS)),
					snap(t, stdNode("n2"), mkPod("p2.1", prio(high), sizeL)),
					snap(t, stdNode("n3"), mkPod("p3.1", prio(mid), sizeM)),
				}
			},
			preemptor: mkPod("p", prio(high), sizeXL),
			wantCode:  preemption.Success, wantNode: "n1", wantVictims: []string{"p1.1", "p1.2"},
			check: func(t *testing.T, r preemption.Result) {
				assert.Equal(t, []string{"n1", "n3"}, candidateNodes(r.Candidates))
				assert.Equal(t, preemption.Decision{Criterion: preemption.CriterionHighestPriority, RunnerUp: "n3"}, r.Decision)
			},
		},
		{
			name:      "preemptionPolicy Never: not eligible, nomination kept",
			nodes:     one(stdNode("n1"), mkPod("p1.1", prio(low), sizeS)),
			preemptor: mkPod("p", prio(high), sizeXL, policy(v1.PreemptNever)),
			wantErr:   preemption.ErrNotEligible, wantCode: preemption.Unschedulable, wantKeep: true,
			wantMessage: "not eligible due to preemptionPolicy=Never.",
		},
		{
			name:      "preemptionPolicy PreemptLowerPriority is the default",
			nodes:     one(stdNode("n1"), mkPod("p1.1", prio(low), sizeS)),
			preemptor: mkPod("p", prio(high), sizeXL, policy(v1.PreemptLowerPriority)),
			wantCode:  preemption.Success, wantNode: "n1", wantVictims: []string{"p1.1"},
		},
		{
			name:      "a victim still terminating on the nominated node: not eligible",
			nodes:     one(stdNode("n1"), mkPod("t", prio(low), sizeS, terminating(true))),
			preemptor: mkPod("p", prio(high), sizeXL, nominatedTo("n1")),
			wantErr:   preemption.ErrNotEligible, wantCode: preemption.Unschedulable, wantKeep: true,
			wantMessage: "not eligible due to a terminating pod on the nominated node.",
		},
		{
			name:      "terminating for another reason: eligible (and a victim)",
			nodes:     one(stdNode("n1"), mkPod("t", prio(low), sizeS, terminating(false))),
			preemptor: mkPod("p", prio(high), sizeXL, nominatedTo("n1")),
			wantCode:  preemption.Success, wantNode: "n1", wantVictims: []string{"t"},
		},
		{
			name: "nominated node UnschedulableAndUnresolvable: eligible",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return []preemption.NodeSnapshot{
					snap(t, stdNode("n1"), mkPod("t", prio(low), sizeS, terminating(true))),
					snap(t, stdNode("n2"), mkPod("v", prio(low), sizeS)),
				}
			},
			preemptor: mkPod("p", prio(high), sizeXL, nominatedTo("n1")),
			opts: func(o *preemption.Options) {
				o.PriorStatus = map[string]preemption.Code{"n1": preemption.UnschedulableAndUnresolvable, "n2": preemption.Unschedulable}
			},
			wantCode: preemption.Success, wantNode: "n2", wantVictims: []string{"v"},
		},
		{
			name: "34c' nominated node absent from PriorStatus reads as UnschedulableAndUnresolvable: eligible",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return []preemption.NodeSnapshot{
					snap(t, stdNode("n1"), mkPod("t", prio(low), sizeS, terminating(true))),
					snap(t, stdNode("n2"), mkPod("v", prio(low), sizeS)),
				}
			},
			preemptor: mkPod("p", prio(high), sizeXL, nominatedTo("n1")),
			opts: func(o *preemption.Options) {
				o.PriorStatus = map[string]preemption.Code{"n2": preemption.Unschedulable}
			},
			wantCode: preemption.Success, wantNode: "n2", wantVictims: []string{"v"},
		},
		{
			name: "terminating pod of equal priority: eligible",
			nodes: one(stdNode("n1"),
				mkPod("t", prio(high), sizeS, terminating(true)), mkPod("v", prio(low), sizeS)),
			preemptor: mkPod("p", prio(high), sizeXL, nominatedTo("n1")),
			wantErr:   preemption.ErrNoCandidate, wantCode: preemption.Unschedulable,
			wantMessage: "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.",
		},
		{
			name:      "a nominated node missing from the snapshot: eligible",
			nodes:     one(stdNode("n2"), mkPod("v", prio(low), sizeS)),
			preemptor: mkPod("p", prio(high), sizeXL, nominatedTo("gone")),
			wantCode:  preemption.Success, wantNode: "n2", wantVictims: []string{"v"},
		},
		{
			name: "IsEligibleVictim also filters the terminating pods",
			nodes: one(stdNode("n1"),
				mkPod("t", prio(low), sizeS, terminating(true)), mkPod("v", prio(low), sizeS)),
			preemptor: mkPod("p", prio(high), sizeXL, nominatedTo("n1")),
			opts: func(o *preemption.Options) {
				o.IsEligibleVictim = func(_ *preemption.NodeSnapshot, v, _ *v1.Pod) bool { return v.Name != "t" }
			},
			wantErr: preemption.ErrNoCandidate, wantCode: preemption.Unschedulable,
			wantMessage: "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.",
		},
		{
			name: "nominated pods: victims and the nominations to clear",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return []preemption.NodeSnapshot{snapNominated(t, stdNode("n1"),
					[]*v1.Pod{mkPod("L1", prio(low), sizeM)},
					[]*v1.Pod{mkPod("Q", prio(vhigh), sizeS, nominatedTo("n1")), mkPod("R", prio(mid), sizeS, nominatedTo("n1"))})}
			},
			preemptor: mkPod("p", prio(high), sizeL),
			wantCode:  preemption.Success, wantNode: "n1", wantVictims: []string{"L1"},
			check: func(t *testing.T, r preemption.Result) {
				assert.Equal(t, []string{"R"}, names(r.ClearNominationOf))
			},
		},
		{
			name: "the preemptor fits outright: no potential node",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return []preemption.NodeSnapshot{snapNominated(t, stdNode("n1"),
					[]*v1.Pod{mkPod("L1", prio(low), sizeM)}, []*v1.Pod{mkPod("Q", prio(mid), sizeM)})}
			},
			preemptor: mkPod("p", prio(high), sizeM),
			wantErr:   preemption.ErrNoCandidate, wantCode: preemption.Unschedulable,
			wantMessage: "0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		},
		{
			name: "forced Unschedulable but no victim needed: node error",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return []preemption.NodeSnapshot{snapNominated(t, stdNode("n1"),
					[]*v1.Pod{mkPod("L1", prio(low), sizeM)}, []*v1.Pod{mkPod("Q", prio(mid), sizeM)})}
			},
			preemptor: mkPod("p", prio(high), sizeM),
			opts: func(o *preemption.Options) {
				o.PriorStatus = map[string]preemption.Code{"n1": preemption.Unschedulable}
			},
			wantErr: preemption.ErrNodeEvaluation, wantCode: preemption.Error, wantKeep: true,
			wantMessage: `expected at least one victim pod on node "n1"`,
		},
		{
			// Upstream aggregates node errors with utilerrors.NewAggregate,
			// which prints "[e1, e2]", not errors.Join's lines.
			name: "two nodes forced Unschedulable that need no victim: errors aggregated as upstream prints them",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return []preemption.NodeSnapshot{
					snap(t, stdNode("n1"), mkPod("L1", prio(low), sizeS)),
					snap(t, stdNode("n2"), mkPod("L2", prio(low), sizeS)),
				}
			},
			preemptor: mkPod("p", prio(high)),
			opts: func(o *preemption.Options) {
				o.PriorStatus = map[string]preemption.Code{"n1": preemption.Unschedulable, "n2": preemption.Unschedulable}
			},
			wantErr: preemption.ErrNodeEvaluation, wantCode: preemption.Error, wantKeep: true,
			wantMessage: `[expected at least one victim pod on node "n1", expected at least one victim pod on node "n2"]`,
		},
		{
			name: "node errors are ignored when a candidate exists",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return []preemption.NodeSnapshot{
					snap(t, stdNode("n1"), mkPod("L1", prio(low), sizeM)),
					snap(t, stdNode("n2"), mkPod("L2", prio(low), sizeL)),
				}
			},
			preemptor: mkPod("p", prio(high), sizeL),
			opts: func(o *preemption.Options) {
				o.PriorStatus = map[string]preemption.Code{"n1": preemption.Unschedulable, "n2": preemption.Unschedulable}
			},
			wantCode: preemption.Success, wantNode: "n2", wantVictims: []string{"L2"},
			check: func(t *testing.T, r preemption.Result) {
				assert.Equal(t, preemption.Error, r.NodeStatuses["n1"].Code)
			},
		},
		{
			name: "a request beyond allocatable leaves the node out",
			nodes: one(mkNode("n1", "500m", "500", 32, "example.com/gpu", "2"),
				mkPod("L", prio(low), reqs("example.com/gpu", "2"))),
			preemptor: mkPod("p", prio(high), reqs("example.com/gpu", "3")),
			wantErr:   preemption.ErrNoCandidate, wantCode: preemption.Unschedulable,
			wantMessage: "0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		},
		{
			name: "ScoreFuncs replace the default criteria",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				containers := func(k int) podOpt {
					return func(p *v1.Pod) { p.Spec.Containers = make([]v1.Container, k) }
				}
				return []preemption.NodeSnapshot{
					snap(t, mkNode("n1", "500m", "500", 1), mkPod("v1", prio(low), containers(2))),
					snap(t, mkNode("n2", "500m", "500", 1), mkPod("v2", prio(mid), containers(1))),
					snap(t, mkNode("n3", "500m", "500", 1), mkPod("v3", prio(low), containers(3))),
				}
			},
			preemptor: mkPod("p", prio(high)),
			opts: func(o *preemption.Options) {
				o.ScoreFuncs = []preemption.ScoreFunc{func(c preemption.Candidate) int64 {
					n := 0
					for _, p := range c.Victims.Pods {
						n += len(p.Spec.Containers)
					}
					return -int64(n)
				}}
			},
			wantCode: preemption.Success, wantNode: "n2", wantVictims: []string{"v2"},
			check: func(t *testing.T, r preemption.Result) {
				assert.Equal(t, preemption.Decision{Criterion: preemption.CriterionScoreFunc, ScoreFunc: 0, RunnerUp: "n1"}, r.Decision)
				// The default criteria would take a low-priority victim.
				assert.Equal(t, "n1", preemption.PickNode(r.Candidates, now).Node)
			},
		},
		{
			name:      "no nodes",
			nodes:     func(*testing.T) []preemption.NodeSnapshot { return nil },
			preemptor: mkPod("p", prio(high)),
			wantErr:   preemption.ErrNoNodes, wantCode: preemption.Error, wantKeep: true,
			wantMessage: "no nodes available",
		},
		{
			name: "upstream quirk: numCandidates 0 drops every candidate",
			nodes: func(t *testing.T) []preemption.NodeSnapshot {
				return fiveNodes(t, [5]int32{mid, mid, mid, mid, mid}, [5]bool{})
			},
			preemptor: mkPod("p", prio(high), sizeL),
			opts: func(o *preemption.Options) {
				o.Sampling = &preemption.Sampling{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 0}
			},
			wantErr: preemption.ErrNoCandidate, wantCode: preemption.Unschedulable,
			wantMessage: "0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
			check: func(t *testing.T, r preemption.Result) {
				assert.Equal(t, int32(0), r.NumCandidates)
				assert.Equal(t, 5, r.Evaluated)
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := seq()
			if c.opts != nil {
				c.opts(&opts)
			}
			r, err := preemption.Evaluate(c.preemptor, c.nodes(t), mustPDBs(c.pdbs), now, opts)
			if c.wantErr != nil {
				require.ErrorIs(t, err, c.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, c.wantCode, r.Code)
			assert.Equal(t, c.wantKeep, r.KeepNomination)
			assert.Equal(t, c.wantNode, r.Chosen.Node)
			if c.wantCode == preemption.Success {
				assert.Equal(t, c.wantNode, r.NominatedNode)
				assert.Equal(t, c.wantVictims, names(r.Chosen.Victims.Pods))
				assert.Equal(t, c.wantViolations, r.Chosen.Victims.NumPDBViolations)
			} else {
				assert.Empty(t, r.Chosen.Victims.Pods)
				assert.Empty(t, r.NominatedNode)
			}
			if c.wantMessage != "" {
				assert.Equal(t, c.wantMessage, r.Message)
			}
			if c.check != nil {
				c.check(t, r)
			}
			// Preempt is Evaluate's chosen candidate.
			cand, perr := preemption.Preempt(c.preemptor, c.nodes(t), mustPDBs(c.pdbs), now, opts)
			assert.Equal(t, err == nil, perr == nil)
			assert.Equal(t, r.Chosen.Node, cand.Node)
		})
	}
}

// TestEvaluateStrictPDB: beyond upstream, StrictPDB refuses candidates with
// violations. Upstream picks the least-violating node instead.
func TestEvaluateStrictPDB(t *testing.T) {
	nodes := func() []preemption.NodeSnapshot {
		return []preemption.NodeSnapshot{
			snap(t, stdNode("n1"), mkPod("a", prio(low), sizeL, labeled("app", "foo"))),
			snap(t, stdNode("n2"), mkPod("b", prio(low), sizeL, labeled("app", "foo"))),
		}
	}
	pdbs := []*policyv1.PodDisruptionBudget{mkPDB("pdb", 0)}
	p := mkPod("p", prio(high), sizeL)

	// Upstream: every candidate violates, the first one is taken anyway.
	r, err := preemption.Evaluate(p, nodes(), mustPDBs(pdbs), now, seq())
	require.NoError(t, err)
	assert.Equal(t, "n1", r.Chosen.Node)
	assert.Equal(t, 1, r.Chosen.Victims.NumPDBViolations)

	opts := seq()
	opts.StrictPDB = true
	r, err = preemption.Evaluate(p, nodes(), mustPDBs(pdbs), now, opts)
	require.ErrorIs(t, err, preemption.ErrNoCandidate)
	assert.Equal(t, preemption.Unschedulable, r.Code)
	assert.False(t, r.KeepNomination)
	assert.Len(t, r.Candidates, 2)
	assert.Equal(t, "0/2 nodes are available: 2 preemption would violate a PodDisruptionBudget.", r.Message)

	// With one clean candidate, strict mode takes it (so does upstream, on
	// criterion 1).
	clean := append(nodes(), snap(t, stdNode("n3"), mkPod("c", prio(mid), sizeL)))
	r, err = preemption.Evaluate(p, clean, mustPDBs(pdbs), now, opts)
	require.NoError(t, err)
	assert.Equal(t, "n3", r.Chosen.Node)
	assert.Equal(t, preemption.CriterionSingle, r.Decision.Criterion)
}

func TestEvaluateCandidateFilter(t *testing.T) {
	nodes := func() []preemption.NodeSnapshot {
		return []preemption.NodeSnapshot{
			snap(t, stdNode("n1"), mkPod("a", prio(low), sizeL)),
			snap(t, stdNode("n2"), mkPod("b", prio(low), sizeL)),
			snap(t, stdNode("n3"), mkPod("c", prio(mid), sizeL)),
		}
	}
	p := mkPod("p", prio(high), sizeL)
	boom := errors.New("extender down")
	for _, c := range []struct {
		name     string
		filter   func(*v1.Pod, []preemption.Candidate) ([]preemption.Candidate, error)
		wantErr  error
		wantCode preemption.Code
		wantNode string
		wantKeep bool
		wantMsg  string
	}{
		{
			name: "keeps only n3",
			filter: func(_ *v1.Pod, cs []preemption.Candidate) ([]preemption.Candidate, error) {
				return cs[2:], nil
			},
			wantCode: preemption.Success, wantNode: "n3",
			wantMsg: "found a potential placement for pod on node n3, preempting 1 victims",
		},
		{
			name:     "removes every candidate",
			filter:   func(*v1.Pod, []preemption.Candidate) ([]preemption.Candidate, error) { return nil, nil },
			wantErr:  preemption.ErrNoCandidate,
			wantCode: preemption.Unschedulable, wantKeep: true,
			wantMsg: "no candidate node for preemption",
		},
		{
			name:     "fails",
			filter:   func(*v1.Pod, []preemption.Candidate) ([]preemption.Candidate, error) { return nil, boom },
			wantErr:  boom,
			wantCode: preemption.Error, wantKeep: true,
			wantMsg: "extender down",
		},
		{
			name: "returns a candidate without a node name",
			filter: func(_ *v1.Pod, cs []preemption.Candidate) ([]preemption.Candidate, error) {
				c := cs[0]
				c.Node = ""
				return []preemption.Candidate{c}, nil
			},
			wantErr:  preemption.ErrNoCandidate,
			wantCode: preemption.Unschedulable, wantKeep: true,
			wantMsg: "no candidate node for preemption",
		},
		{
			name: "returns a candidate without victims",
			filter: func(_ *v1.Pod, cs []preemption.Candidate) ([]preemption.Candidate, error) {
				return []preemption.Candidate{{Node: cs[0].Node}}, nil
			},
			wantErr:  preemption.ErrCandidateFilter,
			wantCode: preemption.Error, wantKeep: true,
			wantMsg: `expected at least one victim pod on node "n1"`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := seq()
			opts.CandidateFilter = c.filter
			r, err := preemption.Evaluate(p, nodes(), preemption.PDBs{}, now, opts)
			if c.wantErr != nil {
				require.ErrorIs(t, err, c.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, c.wantCode, r.Code)
			assert.Equal(t, c.wantNode, r.Chosen.Node)
			assert.Equal(t, c.wantKeep, r.KeepNomination)
			assert.Equal(t, c.wantMsg, r.Message)
			if c.wantCode != preemption.Success {
				assert.Equal(t, preemption.Candidate{}, r.Chosen)
				assert.Equal(t, preemption.Decision{}, r.Decision)
				assert.Empty(t, r.NominatedNode)
			}
			assert.Len(t, r.Candidates, 3)
		})
	}
}

func TestEvaluateInvalidInput(t *testing.T) {
	n1 := snap(t, stdNode("n1"), mkPod("a", prio(low)))
	p := mkPod("p", prio(high))
	for _, c := range []struct {
		name      string
		preemptor *v1.Pod
		nodes     []preemption.NodeSnapshot
		pdbs      []*policyv1.PodDisruptionBudget
		opts      preemption.Options
		want      error
	}{
		{"nil preemptor", nil, []preemption.NodeSnapshot{n1}, nil, seq(), preemption.ErrInvalidInput},
		{"duplicate node", p, []preemption.NodeSnapshot{n1, n1}, nil, seq(), preemption.ErrInvalidInput},
		{"zero snapshot", p, []preemption.NodeSnapshot{{}}, nil, seq(), preemption.ErrInvalidInput},
		{"bad sampling", p, []preemption.NodeSnapshot{n1}, nil, preemption.Options{Sampling: &preemption.Sampling{}}, preemption.ErrInvalidOptions},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := preemption.Evaluate(c.preemptor, c.nodes, mustPDBs(c.pdbs), now, c.opts)
			require.ErrorIs(t, err, c.want)
			assert.Equal(t, preemption.Error, r.Code)
			assert.True(t, r.KeepNomination)
		})
	}
}

func TestNewNodeSnapshotInvalid(t *testing.T) {
	_, err := preemption.NewNodeSnapshot(nil, nil, nil)
	require.ErrorIs(t, err, preemption.ErrInvalidInput)
	_, err = preemption.NewNodeSnapshot(&v1.Node{}, nil, nil)
	require.ErrorIs(t, err, preemption.ErrInvalidInput)
	_, err = preemption.NewNodeSnapshot(stdNode("n1"), []*v1.Pod{nil}, nil)
	require.ErrorIs(t, err, preemption.ErrInvalidInput)
	_, err = preemption.NewNodeSnapshot(stdNode("n1"), nil, []*v1.Pod{nil})
	require.ErrorIs(t, err, preemption.ErrInvalidInput)
}

// TestEvaluateOffsetWraps: offsets outside [0, n) are reduced modulo n, and
// the nil Offset (upstream's random draw) always lands inside.
func TestEvaluateOffsetWraps(t *testing.T) {
	nodes := fiveNodes(t, [5]int32{mid, mid, mid, mid, mid}, [5]bool{})
	opts := seq()
	opts.Sampling = &preemption.Sampling{MinCandidateNodesPercentage: 40, MinCandidateNodesAbsolute: 1}
	for off, want := range map[int32]int32{-1: 4, 7: 2, 5: 0} {
		opts.Offset = preemption.FixedOffset(off)
		r, err := preemption.Evaluate(mkPod("p", prio(high), sizeL), nodes, preemption.PDBs{}, now, opts)
		require.NoError(t, err)
		assert.Equal(t, want, r.Offset, "offset %d", off)
	}
	opts.Offset = nil
	for range 20 {
		r, err := preemption.Evaluate(mkPod("p", prio(high), sizeL), nodes, preemption.PDBs{}, now, opts)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, r.Offset, int32(0))
		assert.Less(t, r.Offset, int32(5))
		assert.Len(t, r.Candidates, 2)
	}
}

func TestCheckFit(t *testing.T) {
	for _, c := range []struct {
		name string
		node preemption.NodeSnapshot
		pod  *v1.Pod
		want preemption.Status
	}{
		{
			name: "zero requests on an over-committed node fit while a slot is free",
			node: snap(t, mkNode("n1", "100m", "100", 3), mkPod("big", req("1", "1Gi"))),
			pod:  mkPod("p"),
			want: preemption.Status{Code: preemption.Success},
		},
		{
			name: "over-committed node rejects any cpu request, resolvably",
			node: snap(t, mkNode("n1", "100m", "100", 3), mkPod("big", req("1", ""))),
			pod:  mkPod("p", req("1m", "")),
			want: preemption.Status{Code: preemption.Unschedulable, Reasons: []string{"Insufficient cpu"}},
		},
		{
			name: "no pods entry in allocatable: nothing fits, still resolvable",
			node: func() preemption.NodeSnapshot {
				n := stdNode("n1")
				delete(n.Status.Allocatable, v1.ResourcePods)
				return snap(t, n)
			}(),
			pod:  mkPod("p"),
			want: preemption.Status{Code: preemption.Unschedulable, Reasons: []string{"Too many pods"}},
		},
		{
			name: "every failing item is reported, one unresolvable item decides the code",
			node: snap(t, mkNode("n1", "500m", "500", 1, "example.com/b", "1", "example.com/a", "1"), mkPod("x", sizeS)),
			pod:  mkPod("p", reqs("cpu", "1", "memory", "450", "ephemeral-storage", "1", "example.com/b", "1", "example.com/a", "1")),
			want: preemption.Status{Code: preemption.UnschedulableAndUnresolvable, Reasons: []string{
				"Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage",
			}},
		},
		{
			name: "scalars are reported by name",
			node: snap(t, mkNode("n1", "500m", "500", 10, "example.com/b", "1", "example.com/a", "1"),
				mkPod("x", reqs("example.com/a", "1", "example.com/b", "1"))),
			pod: mkPod("p", reqs("example.com/b", "1", "example.com/a", "1")),
			want: preemption.Status{Code: preemption.Unschedulable, Reasons: []string{
				"Insufficient example.com/a", "Insufficient example.com/b",
			}},
		},
		{
			name: "hugepages are scalars and never ignored",
			node: snap(t, mkNode("n1", "500m", "500", 10, "hugepages-2Mi", "2Mi")),
			pod:  mkPod("p", reqs("hugepages-2Mi", "4Mi")),
			want: preemption.Status{Code: preemption.UnschedulableAndUnresolvable, Reasons: []string{"Insufficient hugepages-2Mi"}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := seq()
			opts.IgnoredResources = []string{"hugepages-2Mi"}
			assert.Equal(t, c.want, preemption.CheckFit(c.pod, c.node, opts))
		})
	}
	assert.Equal(t, preemption.Error, preemption.CheckFit(nil, snap(t, stdNode("n1")), seq()).Code)
	assert.Equal(t, preemption.Error, preemption.CheckFit(mkPod("p"), preemption.NodeSnapshot{}, seq()).Code)
}
