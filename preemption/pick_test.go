package preemption_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/preemption"
)

// v is a victim of the pick cases: priority, start time (0 = unset), labels.
type v struct {
	prio   int32
	start  int
	labels []string
}

// TestPickNodeCases runs the node-pick criteria through Evaluate, each case
// deciding on one of them: the preemptor is high XL, so every listed pod is
// a victim.
func TestPickNodeCases(t *testing.T) {
	type node struct {
		name string
		pods []v
	}
	cases := []struct {
		name    string
		nodes   []node
		maxPods int
		pdbs    []*policyv1.PodDisruptionBudget
		want    string
		wantBy  preemption.Criterion
		runner  string
	}{
		{
			name:  "the lowest priority of the most important victim wins",
			nodes: []node{{"n1", []v{{prio: mid}, {prio: mid}}}, {"n2", []v{{prio: mid}, {prio: low}}}, {"n3", []v{{prio: low}, {prio: low}}}},
			want:  "n3", wantBy: preemption.CriterionHighestPriority, runner: "n1",
		},
		{
			name:  "then the smallest sum of victim priorities",
			nodes: []node{{"n1", []v{{prio: mid}, {prio: mid}}}, {"n2", []v{{prio: mid}, {prio: low}}}, {"n3", []v{{prio: mid}, {prio: mid}}}},
			want:  "n2", wantBy: preemption.CriterionPrioritySum, runner: "n1",
		},
		{
			name: "the priority sum shifts each priority by 2³¹",
			nodes: []node{
				{"n1", []v{{prio: mid}, {prio: neg}, {prio: neg}}},
				{"n2", []v{{prio: mid}, {prio: neg}}},
				{"n3", []v{{prio: mid}, {prio: neg}, {prio: low}}},
			},
			want: "n2", wantBy: preemption.CriterionPrioritySum, runner: "n1",
		},
		{
			name: "the shifted sum already prefers fewer victims",
			nodes: []node{
				{"n1", []v{{prio: mid}, {prio: neg}, {prio: mid}, {prio: neg}}},
				{"n2", []v{{prio: mid}, {prio: neg}}},
				{"n3", []v{{prio: mid}, {prio: neg}, {prio: low}}},
			},
			want: "n2", wantBy: preemption.CriterionPrioritySum, runner: "n3",
		},
		{
			name:  "fewest victims decides when shifted sums tie: {mid, low} vs {mid, -2³⁰, -2³⁰}",
			nodes: []node{{"n2", []v{{prio: mid}, {prio: -1 << 30}, {prio: -1 << 30}}}, {"n1", []v{{prio: mid}, {prio: low}}}},
			want:  "n1", wantBy: preemption.CriterionVictimCount, runner: "n2",
		},
		{
			name:  "fewest victims: {mid} vs {mid, MinInt32}",
			nodes: []node{{"n2", []v{{prio: mid}, {prio: math.MinInt32}}}, {"n1", []v{{prio: mid}}}},
			want:  "n1", wantBy: preemption.CriterionVictimCount, runner: "n2",
		},
		{
			name: "then the latest start time",
			nodes: []node{
				{"n1", []v{{mid, 2, nil}, {mid, 2, nil}}},
				{"n2", []v{{mid, 3, nil}, {mid, 3, nil}}},
				{"n3", []v{{mid, 1, nil}, {mid, 1, nil}}},
			},
			want: "n2", wantBy: preemption.CriterionStartTime, runner: "n1",
		},
		{
			name: "the start-time rule compares each node's earliest start",
			nodes: []node{
				{"n1", []v{{mid, 4, nil}, {mid, 2, nil}}},
				{"n2", []v{{mid, 5, nil}, {mid, 1, nil}}},
				{"n3", []v{{mid, 3, nil}, {mid, 6, nil}}},
			},
			want: "n3", wantBy: preemption.CriterionStartTime, runner: "n1",
		},
		{
			name: "the start-time rule looks only at the highest-priority victims",
			nodes: []node{
				{"n1", []v{{low, 4, nil}, {mid, 2, nil}}},
				{"n2", []v{{mid, 6, nil}, {low, 1, nil}}},
				{"n3", []v{{low, 3, nil}, {mid, 5, nil}}},
			},
			want: "n2", wantBy: preemption.CriterionStartTime, runner: "n3",
		},
		{
			name:  "fewer PDB violations beat a lower top victim priority",
			nodes: []node{{"n1", []v{{low, 0, []string{"app", "foo"}}}}, {"n2", []v{{prio: mid}}}},
			pdbs:  []*policyv1.PodDisruptionBudget{mkPDB("pdb", 0)},
			want:  "n2", wantBy: preemption.CriterionPDBViolations, runner: "n1",
		},
		{
			name: "equal violations: the top victim's priority decides",
			nodes: []node{
				{"n1", []v{{high, 0, []string{"app", "a"}}, {low, 0, []string{"app", "b"}}}},
				{"n2", []v{{mid, 0, []string{"app", "b"}}}},
			},
			maxPods: 1,
			pdbs: []*policyv1.PodDisruptionBudget{
				mkPDB("many", 100, selecting(&metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}})),
				mkPDB("none", 0, selecting(&metav1.LabelSelector{MatchLabels: map[string]string{"app": "b"}})),
			},
			want: "n2", wantBy: preemption.CriterionHighestPriority, runner: "n1",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var nodes []preemption.NodeSnapshot
			for _, n := range c.nodes {
				var pods []*v1.Pod
				for i, vv := range n.pods {
					opts := []podOpt{prio(vv.prio), req("10m", "10")}
					if vv.start > 0 {
						opts = append(opts, started(ts(vv.start)))
					}
					if vv.labels != nil {
						opts = append(opts, labeled(vv.labels...))
					}
					pods = append(pods, mkPod(n.name+"-"+string(rune('a'+i)), opts...))
				}
				maxPods := c.maxPods
				if maxPods == 0 {
					maxPods = 32
				}
				nodes = append(nodes, snap(t, mkNode(n.name, "500m", "500", maxPods), pods...))
			}
			r, err := preemption.Evaluate(mkPod("p", prio(vhigh), sizeXL), nodes, mustPDBs(c.pdbs), now, seq())
			require.NoError(t, err)
			require.Len(t, r.Candidates, len(c.nodes))
			for i, cand := range r.Candidates {
				assert.Len(t, cand.Victims.Pods, len(nodes[i].Pods()), "every pod is a victim")
			}
			assert.Equal(t, c.want, r.Chosen.Node)
			assert.Equal(t, preemption.Decision{Criterion: c.wantBy, RunnerUp: c.runner}, r.Decision)
			assert.Equal(t, c.want, preemption.PickNode(r.Candidates, now).Node)
		})
	}
}

func TestPickNodeEdges(t *testing.T) {
	low1 := mkPod("a", prio(low))
	mid1 := mkPod("b", prio(mid))

	got, d := preemption.PickNodeExplained(nil, now, nil)
	assert.Equal(t, preemption.Candidate{}, got)
	assert.Equal(t, preemption.CriterionNone, d.Criterion)

	only := preemption.Candidate{Node: "n1", Victims: preemption.Victims{Pods: []*v1.Pod{mid1}}}
	got, d = preemption.PickNodeExplained([]preemption.Candidate{only}, now, nil)
	assert.Equal(t, only, got)
	assert.Equal(t, preemption.Decision{Criterion: preemption.CriterionSingle}, d)

	// Hand-built candidates: no victims, nil pods and a zero now do not
	// panic. Evicting nothing ranks best.
	cs := []preemption.Candidate{
		{Node: "nil-pod", Victims: preemption.Victims{Pods: []*v1.Pod{nil}}},
		{Node: "empty"},
		{Node: "low", Victims: preemption.Victims{Pods: []*v1.Pod{low1}}},
	}
	got, d = preemption.PickNodeExplained(cs, now, nil)
	assert.Equal(t, "empty", got.Node)
	assert.Equal(t, preemption.Decision{Criterion: preemption.CriterionHighestPriority, RunnerUp: "nil-pod"}, d)

	// Custom score functions that tie everywhere fall back to order.
	zero := func(preemption.Candidate) int64 { return 0 }
	got, d = preemption.PickNodeExplained(cs, now, []preemption.ScoreFunc{zero, zero})
	assert.Equal(t, "nil-pod", got.Node)
	assert.Equal(t, preemption.Decision{Criterion: preemption.CriterionOrder, RunnerUp: "empty"}, d)

	// The second score function decides.
	byName := func(c preemption.Candidate) int64 { return int64(len(c.Node)) }
	got, d = preemption.PickNodeExplained(cs, now, []preemption.ScoreFunc{zero, byName})
	assert.Equal(t, "nil-pod", got.Node)
	assert.Equal(t, preemption.Decision{Criterion: preemption.CriterionScoreFunc, ScoreFunc: 1, RunnerUp: "empty"}, d)
	assert.Equal(t, "custom score function 1 (runner-up empty)", d.String())
}

func TestCriterionString(t *testing.T) {
	for c, want := range map[preemption.Criterion]string{
		preemption.CriterionNone:            "no candidate",
		preemption.CriterionSingle:          "only candidate",
		preemption.CriterionPDBViolations:   "fewest PDB violations",
		preemption.CriterionHighestPriority: "lowest highest-victim priority",
		preemption.CriterionPrioritySum:     "smallest victim priority sum",
		preemption.CriterionVictimCount:     "fewest victims",
		preemption.CriterionStartTime:       "latest start time of the highest-priority victims",
		preemption.CriterionOrder:           "first in candidate order",
		preemption.CriterionScoreFunc:       "custom score function",
		preemption.Criterion(42):            "Criterion(42)",
	} {
		assert.Equal(t, want, c.String())
	}
	assert.Equal(t, "fewest victims (runner-up n2)", preemption.Decision{Criterion: preemption.CriterionVictimCount, RunnerUp: "n2"}.String())
}

func TestCodeAndStatusString(t *testing.T) {
	assert.Equal(t, "Success", preemption.Success.String())
	assert.Equal(t, "Unschedulable", preemption.Unschedulable.String())
	assert.Equal(t, "UnschedulableAndUnresolvable", preemption.UnschedulableAndUnresolvable.String())
	assert.Equal(t, "Error", preemption.Error.String())
	assert.Equal(t, "Code(9)", preemption.Code(9).String())
	st := preemption.Status{Code: preemption.Unschedulable, Reasons: []string{"Too many pods", "Insufficient cpu"}}
	assert.Equal(t, "Too many pods, Insufficient cpu", st.Message())
	assert.Equal(t, "Unschedulable: Too many pods, Insufficient cpu", st.String())
	assert.Equal(t, "Success", preemption.Status{}.String())
}

// TestPickNodeReadsNowForMissingStartTimes: the start-time criterion reads a
// victim without a start time as the now it is given, never the clock.
func TestPickNodeReadsNowForMissingStartTimes(t *testing.T) {
	cands := []preemption.Candidate{
		{Node: "unstarted", Victims: preemption.Victims{Pods: []*v1.Pod{mkPod("u", prio(low))}}},
		{Node: "started", Victims: preemption.Victims{Pods: []*v1.Pod{mkPod("s", prio(low), started(ts(5)))}}},
	}
	early, late := ts(1), ts(9)
	got, d := preemption.PickNodeExplained(cands, early, nil)
	assert.Equal(t, "started", got.Node, "now before the other start: the unstarted victim is older")
	assert.Equal(t, preemption.CriterionStartTime, d.Criterion)
	assert.Equal(t, "unstarted", preemption.PickNode(cands, late).Node, "now after it: the unstarted victim is the newest work")
}
