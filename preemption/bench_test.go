package preemption_test

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/evictkit/eviction/preemption"
)

// benchNode builds a 32-cpu node holding n one-cpu pods of mixed priority;
// every third pod is labelled for one of the benchmark PDBs.
func benchNode(tb testing.TB, name string, n int) preemption.NodeSnapshot {
	node := mkNode(name, "32", "128Gi", 110)
	node.Status.Allocatable[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(n*1000+1000), resource.DecimalSI)
	pods := make([]*v1.Pod, n)
	for i := range pods {
		opts := []podOpt{prio(int32(i % 7 * 100)), req("1", "1Gi"), started(ts(i % 13))}
		if i%3 == 0 {
			opts = append(opts, labeled("app", fmt.Sprintf("app%d", i%10)))
		}
		pods[i] = mkPod(fmt.Sprintf("%s-p%d", name, i), opts...)
	}
	s, err := preemption.NewNodeSnapshot(node, pods, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func benchPDBs() []*policyv1.PodDisruptionBudget {
	out := make([]*policyv1.PodDisruptionBudget, 10)
	for i := range out {
		out[i] = mkPDB(fmt.Sprintf("pdb%d", i), int32(i%3),
			selecting(&metav1.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("app%d", i)}}))
	}
	return out
}

// benchPreemptor needs 4 cpu where 1 is free: a few victims per node.
func benchPreemptor() *v1.Pod { return mkPod("pre", prio(1000), req("4", "1Gi")) }

// BenchmarkSelectVictims is one victim search on a full node (110 pods),
// beside a naive search that re-sums the present pods for every fit check
// and re-parses PDB selectors per pod, as a direct transcription would.
func BenchmarkSelectVictims(b *testing.B) {
	node := benchNode(b, "n", 110)
	pre := benchPreemptor()
	opts := seq()
	for _, pdbs := range []struct {
		name string
		list []*policyv1.PodDisruptionBudget
	}{{"pdbs=0", nil}, {"pdbs=10", benchPDBs()}} {
		parsed := mustPDBs(pdbs.list)
		b.Run("ours/"+pdbs.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := preemption.SelectVictims(pre, node, parsed, now, opts); !ok {
					b.Fatal("no victims")
				}
			}
		})
		b.Run("naive/"+pdbs.name, func(b *testing.B) {
			want, _ := preemption.SelectVictims(pre, node, parsed, now, opts)
			b.ReportAllocs()
			for b.Loop() {
				if got := naiveSelectVictims(pre, node, pdbs.list); len(got) != len(want.Pods) {
					b.Fatalf("naive found %d victims, ours %d", len(got), len(want.Pods))
				}
			}
		})
	}
}

// naiveSelectVictims is the baseline: the same greedy reprieve with the fit
// recomputed from scratch (cpu and pod count only) at every step.
func naiveSelectVictims(pre *v1.Pod, node preemption.NodeSnapshot, pdbs []*policyv1.PodDisruptionBudget) []*v1.Pod {
	preCPU := preemption.PodRequests(pre).MilliCPU
	alloc := node.Allocatable()
	present := map[*v1.Pod]bool{}
	var potential []*v1.Pod
	for _, p := range node.Pods() {
		present[p] = true
		if *p.Spec.Priority < *pre.Spec.Priority {
			potential = append(potential, p)
		}
	}
	fits := func() bool {
		var cpu, n int64
		for p, in := range present {
			if in {
				cpu += preemption.AssignedPodRequests(p).MilliCPU
				n++
			}
		}
		return n+1 <= alloc.Pods && preCPU <= alloc.MilliCPU-cpu
	}
	for _, p := range potential {
		present[p] = false
	}
	if !fits() {
		return nil
	}
	slices.SortStableFunc(potential, func(a, b *v1.Pod) int {
		if *a.Spec.Priority != *b.Spec.Priority {
			return int(*b.Spec.Priority - *a.Spec.Priority)
		}
		return a.Status.StartTime.Compare(b.Status.StartTime.Time)
	})
	budgets := make([]int32, len(pdbs))
	for i, p := range pdbs {
		budgets[i] = p.Status.DisruptionsAllowed
	}
	var viol, nonViol, victims []*v1.Pod
	for _, p := range potential {
		violating := false
		for i, pdb := range pdbs {
			sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
			if err != nil || sel.Empty() || !sel.Matches(labels.Set(p.Labels)) || len(p.Labels) == 0 {
				continue
			}
			if budgets[i]--; budgets[i] < 0 {
				violating = true
				break
			}
		}
		if violating {
			viol = append(viol, p)
		} else {
			nonViol = append(nonViol, p)
		}
	}
	for _, p := range append(viol, nonViol...) {
		present[p] = true
		if !fits() {
			present[p] = false
			victims = append(victims, p)
		}
	}
	return victims
}

// BenchmarkPreempt is the whole decision over N nodes × 30 pods, every node
// a potential node, at 1, 2 and GOMAXPROCS workers.
func BenchmarkPreempt(b *testing.B) {
	pre := benchPreemptor()
	pdbs := mustPDBs(benchPDBs())
	for _, n := range []int{500, 5000} {
		nodes := make([]preemption.NodeSnapshot, n)
		for i := range nodes {
			nodes[i] = benchNode(b, fmt.Sprintf("n%d", i), 30)
		}
		for _, w := range slices.Compact([]int{1, 2, runtime.GOMAXPROCS(0)}) {
			b.Run(fmt.Sprintf("nodes=%d/workers=%d", n, w), func(b *testing.B) {
				opts := seq()
				opts.Workers = w
				b.ReportAllocs()
				for b.Loop() {
					if _, err := preemption.Preempt(pre, nodes, pdbs, now, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// dryRunPDBs returns n budgets with set-based selectors on the apps of
// benchNode's pods.
func dryRunPDBs(n int) []*policyv1.PodDisruptionBudget {
	out := make([]*policyv1.PodDisruptionBudget, n)
	for i := range out {
		out[i] = mkPDB(fmt.Sprintf("pdb%d", i), int32(i%3),
			selecting(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{fmt.Sprintf("app%d", i%10), fmt.Sprintf("x%d", i)}}}}))
	}
	return out
}

// BenchmarkDryRun5000 is a dry run over 5,000 nodes of 30 pods with 50
// PodDisruptionBudgets: Evaluate visiting every node, and a caller's own
// loop of SelectVictims over the nodes, both with the budgets parsed once
// by NewPDBs (inside the measured loop, so its cost is counted).
func BenchmarkDryRun5000(b *testing.B) {
	pre := benchPreemptor()
	pdbs := dryRunPDBs(50)
	nodes := make([]preemption.NodeSnapshot, 5000)
	for i := range nodes {
		nodes[i] = benchNode(b, fmt.Sprintf("n%d", i), 30)
	}
	b.Run("Evaluate", func(b *testing.B) {
		opts := seq()
		opts.Sampling = &preemption.Sampling{MinCandidateNodesPercentage: 100, MinCandidateNodesAbsolute: 5000}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := preemption.Evaluate(pre, nodes, mustPDBs(pdbs), now, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SelectVictims", func(b *testing.B) {
		opts := seq()
		b.ReportAllocs()
		for b.Loop() {
			parsed := mustPDBs(pdbs)
			for i := range nodes {
				if _, ok := preemption.SelectVictims(pre, nodes[i], parsed, now, opts); !ok {
					b.Fatal("no victims")
				}
			}
		}
	})
}

// BenchmarkNewNodeSnapshot is the one-time cost of the request vectors.
func BenchmarkNewNodeSnapshot(b *testing.B) {
	node := benchNode(b, "n", 110)
	pods := node.Pods()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := preemption.NewNodeSnapshot(node.Node(), pods, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPickNode picks among 500 candidates of 3 victims that tie down
// to the start-time criterion.
func BenchmarkPickNode(b *testing.B) {
	cands := make([]preemption.Candidate, 500)
	for i := range cands {
		cands[i] = preemption.Candidate{Node: fmt.Sprint(i), Victims: preemption.Victims{Pods: []*v1.Pod{
			mkPod("a", prio(100), started(ts(i%50))), mkPod("b", prio(0)), mkPod("c", prio(0)),
		}}}
	}
	b.ReportAllocs()
	for b.Loop() {
		preemption.PickNode(cands, now)
	}
}
