package preemption_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/preemption"
)

var (
	genPrio          = rapid.SampledFrom([]int32{neg, low, low, mid, mid, high, vhigh})
	genPreemptorPrio = rapid.SampledFrom([]int32{mid, high, high, vhigh, vhigh})
)

// genPod draws a pod with small requests, maybe labels, a start time and a
// terminating mark.
func genPod(t *rapid.T, name string) *v1.Pod {
	return genPodPrio(t, name, genPrio)
}

func genPodPrio(t *rapid.T, name string, prios *rapid.Generator[int32]) *v1.Pod {
	opts := []podOpt{prio(prios.Draw(t, name+"-prio"))}
	l := v1.ResourceList{}
	if cpu := rapid.IntRange(0, 400).Draw(t, name+"-cpu"); cpu > 0 {
		l[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(cpu), resource.DecimalSI)
	}
	if mem := rapid.IntRange(0, 400).Draw(t, name+"-mem"); mem > 0 {
		l[v1.ResourceMemory] = *resource.NewQuantity(int64(mem), resource.DecimalSI)
	}
	if gpu := rapid.SampledFrom([]int{0, 0, 0, 1, 2}).Draw(t, name+"-gpu"); gpu > 0 {
		l["example.com/gpu"] = *resource.NewQuantity(int64(gpu), resource.DecimalSI)
	}
	opts = append(opts, func(p *v1.Pod) { p.Spec.Containers[0].Resources.Requests = l })
	if app := rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, name+"-app"); app != "" {
		opts = append(opts, labeled("app", app))
	}
	if s := rapid.IntRange(0, 4).Draw(t, name+"-start"); s > 0 {
		opts = append(opts, started(ts(s)))
	}
	if rapid.IntRange(0, 9).Draw(t, name+"-term") == 0 {
		opts = append(opts, terminating(true))
	}
	if rapid.IntRange(0, 9).Draw(t, name+"-ns") == 0 {
		opts = append(opts, inNS("other"))
	}
	return mkPod(name, opts...)
}

// genNode draws a node snapshot with up to 8 bound and 2 nominated pods.
func genNode(t *rapid.T, name string) preemption.NodeSnapshot {
	node := mkNode(name,
		fmt.Sprintf("%dm", rapid.IntRange(200, 1500).Draw(t, name+"-cpu")),
		fmt.Sprint(rapid.IntRange(200, 1500).Draw(t, name+"-mem")),
		rapid.SampledFrom([]int{0, 2, 4, 6, 8, 10, 10, 10}).Draw(t, name+"-pods"),
		"example.com/gpu", fmt.Sprint(rapid.IntRange(0, 4).Draw(t, name+"-gpu")))
	pods := make([]*v1.Pod, rapid.IntRange(0, 8).Draw(t, name+"-n"))
	for i := range pods {
		pods[i] = genPod(t, fmt.Sprintf("%s-p%d", name, i))
		pods[i].Spec.NodeName = name
	}
	nominated := make([]*v1.Pod, rapid.IntRange(0, 2).Draw(t, name+"-nom"))
	for i := range nominated {
		nominated[i] = genPod(t, fmt.Sprintf("%s-nom%d", name, i))
		nominated[i].Status.NominatedNodeName = name
	}
	s, err := preemption.NewNodeSnapshot(node, pods, nominated)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func genPDBs(t *rapid.T, pods []*v1.Pod) []*policyv1.PodDisruptionBudget {
	n := rapid.IntRange(0, 3).Draw(t, "pdbs")
	out := make([]*policyv1.PodDisruptionBudget, n)
	if n > 0 && rapid.Bool().Draw(t, "pdb-everywhere") {
		// A budget in every namespace the pods use, so that it applies.
		out = append(out, mkPDB("other", 0, pdbNS("other"),
			selecting(&metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}})))
	}
	for i := range n {
		app := rapid.SampledFrom([]string{"a", "b"}).Draw(t, "pdb-app")
		out[i] = mkPDB(fmt.Sprintf("pdb%d", i), int32(rapid.IntRange(0, 2).Draw(t, "pdb-allowed")),
			selecting(&metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}))
		if len(pods) > 0 && rapid.Bool().Draw(t, "pdb-disrupted") {
			out[i].Status.DisruptedPods = map[string]metav1.Time{rapid.SampledFrom(pods).Draw(t, "pdb-victim").Name: {}}
		}
	}
	return out
}

// without returns a snapshot of node minus the given pods (plus back).
func without(t *rapid.T, node preemption.NodeSnapshot, gone []*v1.Pod, back *v1.Pod) preemption.NodeSnapshot {
	var keep []*v1.Pod
	for _, p := range node.Pods() {
		if !slices.Contains(gone, p) || p == back {
			keep = append(keep, p)
		}
	}
	s, err := preemption.NewNodeSnapshot(node.Node(), keep, node.NominatedPods())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPropertySelectVictims checks the laws of a victim search: victims are
// pods of the node with a lower priority, in importance order (without
// budgets, equally important ones in node order: the sorts are stable, as
// upstream's insertion sort is up to 12 pods); without them
// the preemptor fits; putting any single one back breaks the fit (the
// reprieve is maximal); a reported violation count never exceeds the
// victims.
func TestPropertySelectVictims(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		node := genNode(t, "n")
		pre := genPodPrio(t, "pre", genPreemptorPrio)
		pdbs := genPDBs(t, node.Pods())
		opts := seq()
		got, ok := preemption.SelectVictims(pre, node, mustPDBs(pdbs), now, opts)
		if !ok {
			if len(got.Pods) != 0 {
				t.Fatalf("rejected node with victims %v", names(got.Pods))
			}
			return
		}
		preP := *pre.Spec.Priority
		for i, v := range got.Pods {
			if !slices.Contains(node.Pods(), v) {
				t.Fatalf("victim %s is not on the node", v.Name)
			}
			if *v.Spec.Priority >= preP {
				t.Fatalf("victim %s priority %d >= preemptor %d", v.Name, *v.Spec.Priority, preP)
			}
			if i > 0 && moreImportant(v, got.Pods[i-1]) {
				t.Fatalf("victims out of importance order: %v", names(got.Pods))
			}
			if i > 0 && len(pdbs) == 0 && !moreImportant(got.Pods[i-1], v) &&
				slices.Index(node.Pods(), v) < slices.Index(node.Pods(), got.Pods[i-1]) {
				t.Fatalf("tied victims out of node order: %v", names(got.Pods))
			}
		}
		if got.NumPDBViolations < 0 || got.NumPDBViolations > len(got.Pods) {
			t.Fatalf("NumPDBViolations %d for %d victims", got.NumPDBViolations, len(got.Pods))
		}
		if st := preemption.CheckFit(pre, without(t, node, got.Pods, nil), opts); !st.IsSuccess() {
			t.Fatalf("preemptor does not fit after evicting %v: %v", names(got.Pods), st)
		}
		for _, v := range got.Pods {
			if st := preemption.CheckFit(pre, without(t, node, got.Pods, v), opts); st.IsSuccess() {
				t.Fatalf("victim %s could have been reprieved (victims %v)", v.Name, names(got.Pods))
			}
		}
		if len(got.Pods) == 0 {
			if st := preemption.CheckFit(pre, node, opts); !st.IsSuccess() {
				t.Fatalf("no victims but the preemptor does not fit: %v", st)
			}
		}
	})
}

func moreImportant(a, b *v1.Pod) bool {
	pa, pb := *a.Spec.Priority, *b.Spec.Priority
	if pa != pb {
		return pa > pb
	}
	return startOf(a).Before(startOf(b))
}

func startOf(p *v1.Pod) time.Time {
	if p.Status.StartTime == nil {
		return now
	}
	return p.Status.StartTime.Time
}

// genCluster draws nodes, PDBs, a preemptor and options for Evaluate.
func genCluster(t *rapid.T) ([]preemption.NodeSnapshot, []*policyv1.PodDisruptionBudget, *v1.Pod, preemption.Options) {
	nodes := make([]preemption.NodeSnapshot, rapid.IntRange(0, 12).Draw(t, "nodes"))
	var all []*v1.Pod
	for i := range nodes {
		nodes[i] = genNode(t, fmt.Sprintf("n%d", i))
		all = append(all, nodes[i].Pods()...)
	}
	pdbs := genPDBs(t, all)
	pre := genPodPrio(t, "pre", genPreemptorPrio)
	pre.DeletionTimestamp = nil
	if len(nodes) > 0 && rapid.Bool().Draw(t, "nominated") {
		pre.Status.NominatedNodeName = nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "nominated-to")].Name()
	}
	opts := seq()
	pct := int32(rapid.IntRange(0, 100).Draw(t, "pct"))
	abs := int32(rapid.IntRange(0, 4).Draw(t, "abs"))
	if pct == 0 && abs == 0 {
		abs = 1
	}
	opts.Sampling = &preemption.Sampling{MinCandidateNodesPercentage: pct, MinCandidateNodesAbsolute: abs}
	opts.Offset = preemption.FixedOffset(int32(rapid.IntRange(0, 20).Draw(t, "offset")))
	opts.StrictPDB = rapid.Bool().Draw(t, "strict")
	if rapid.Bool().Draw(t, "prior") {
		opts.PriorStatus = map[string]preemption.Code{}
		for _, n := range nodes {
			opts.PriorStatus[n.Name()] = rapid.SampledFrom([]preemption.Code{
				preemption.Unschedulable, preemption.Unschedulable, preemption.UnschedulableAndUnresolvable,
			}).Draw(t, "status")
		}
	}
	return nodes, pdbs, pre, opts
}

// TestPropertyParallelEqualsSequential: any worker count gives the result
// of one worker (upstream's parallel early stop does not).
func TestPropertyParallelEqualsSequential(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, pdbs, pre, opts := genCluster(t)
		want, wantErr := preemption.Evaluate(pre, nodes, mustPDBs(pdbs), now, opts)
		opts.Workers = rapid.IntRange(2, 8).Draw(t, "workers")
		got, gotErr := preemption.Evaluate(pre, nodes, mustPDBs(pdbs), now, opts)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("workers=%d differs:\nseq %+v\npar %+v", opts.Workers, want, got)
		}
		if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
			t.Fatalf("errors differ: %v vs %v", wantErr, gotErr)
		}
		if want.Code == preemption.Success {
			if !slices.ContainsFunc(want.Candidates, func(c preemption.Candidate) bool { return reflect.DeepEqual(c, want.Chosen) }) {
				t.Fatalf("chosen %s is not a candidate", want.Chosen.Node)
			}
			if opts.StrictPDB && want.Chosen.Victims.NumPDBViolations > 0 {
				t.Fatalf("strict mode chose a violating node")
			}
		}
	})
}

// TestPropertyInputsNotMutated: Evaluate leaves pods, nodes and PDBs as it
// found them.
func TestPropertyInputsNotMutated(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, pdbs, pre, opts := genCluster(t)
		opts.Workers = 3
		type frozen struct {
			node           *v1.Node
			pods, nominees []*v1.Pod
		}
		deep := func() ([]frozen, []*policyv1.PodDisruptionBudget, *v1.Pod) {
			var fs []frozen
			for _, n := range nodes {
				f := frozen{node: n.Node().DeepCopy()}
				for _, p := range n.Pods() {
					f.pods = append(f.pods, p.DeepCopy())
				}
				for _, p := range n.NominatedPods() {
					f.nominees = append(f.nominees, p.DeepCopy())
				}
				fs = append(fs, f)
			}
			var ps []*policyv1.PodDisruptionBudget
			for _, p := range pdbs {
				ps = append(ps, p.DeepCopy())
			}
			return fs, ps, pre.DeepCopy()
		}
		n0, p0, pre0 := deep()
		_, _ = preemption.Evaluate(pre, nodes, mustPDBs(pdbs), now, opts)
		for _, n := range nodes {
			_, _ = preemption.SelectVictims(pre, n, mustPDBs(pdbs), now, opts)
		}
		n1, p1, pre1 := deep()
		if !reflect.DeepEqual(n0, n1) || !reflect.DeepEqual(p0, p1) || !reflect.DeepEqual(pre0, pre1) {
			t.Fatalf("inputs were modified")
		}
	})
}

// TestPropertyEvaluateAgreesWithSelectVictims: every candidate of the dry
// run is what SelectVictims returns for that node, and the chosen one is
// what PickNode picks among the usable candidates.
func TestPropertyEvaluateAgreesWithSelectVictims(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, pdbs, pre, opts := genCluster(t)
		opts.StrictPDB = false
		r, _ := preemption.Evaluate(pre, nodes, mustPDBs(pdbs), now, opts)
		for _, c := range r.Candidates {
			i := slices.IndexFunc(nodes, func(n preemption.NodeSnapshot) bool { return n.Name() == c.Node })
			v, ok := preemption.SelectVictims(pre, nodes[i], mustPDBs(pdbs), now, opts)
			if !ok || !reflect.DeepEqual(v, c.Victims) {
				t.Fatalf("candidate %s: dry run %v, SelectVictims %v", c.Node, names(c.Victims.Pods), names(v.Pods))
			}
		}
		if r.Code == preemption.Success && !reflect.DeepEqual(preemption.PickNode(r.Candidates, now), r.Chosen) {
			t.Fatalf("PickNode disagrees with Evaluate")
		}
	})
}

// pickScore is the default pick criteria of a candidate with victims, as
// PickNode documents them, higher is better: fewest PDB violations, lowest
// priority of the first victim, smallest sum of priorities shifted by 2³¹,
// fewest victims, latest earliest start among the highest-priority victims.
func pickScore(c preemption.Candidate) [5]int64 {
	pods := c.Victims.Pods
	top := *pods[0].Spec.Priority
	var sum int64
	for _, p := range pods {
		sum += int64(*p.Spec.Priority) + 1<<31
		top = max(top, *p.Spec.Priority)
	}
	var earliest time.Time
	for _, p := range pods {
		if s := startOf(p); *p.Spec.Priority == top && (earliest.IsZero() || s.Before(earliest)) {
			earliest = s
		}
	}
	return [5]int64{
		-int64(c.Victims.NumPDBViolations), -int64(*pods[0].Spec.Priority), -sum, -int64(len(pods)), earliest.UnixNano(),
	}
}

// TestPropertyPickNode: PickNode returns a candidate that no other beats on
// the criteria taken in order, the first such one in slice order, and a
// reordering of the candidates picks a candidate with the same scores.
func TestPropertyPickNode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cands := make([]preemption.Candidate, rapid.IntRange(1, 6).Draw(t, "candidates"))
		for i := range cands {
			pods := make([]*v1.Pod, rapid.IntRange(1, 2).Draw(t, "victims"))
			for j := range pods {
				// Few distinct values, so that the later criteria decide
				// often.
				opts := []podOpt{prio(rapid.SampledFrom([]int32{neg, low, low, mid, mid}).Draw(t, "prio"))}
				if s := rapid.IntRange(0, 3).Draw(t, "start"); s > 0 {
					opts = append(opts, started(ts(s)))
				}
				pods[j] = mkPod(fmt.Sprintf("c%d-v%d", i, j), opts...)
			}
			cands[i] = preemption.Candidate{Node: fmt.Sprintf("c%d", i), Victims: preemption.Victims{
				Pods: pods, NumPDBViolations: rapid.SampledFrom([]int{0, 0, 0, 1}).Draw(t, "violations"),
			}}
		}
		got := preemption.PickNode(cands, now)
		w := slices.IndexFunc(cands, func(c preemption.Candidate) bool { return c.Node == got.Node })
		if w < 0 || !reflect.DeepEqual(got, cands[w]) {
			t.Fatalf("picked %s, not one of the candidates", got.Node)
		}
		best := pickScore(got)
		for i, c := range cands {
			switch s := pickScore(c); {
			case slices.Compare(s[:], best[:]) > 0:
				t.Fatalf("picked %s %v, but %s scores %v", got.Node, best, c.Node, s)
			case i < w && s == best:
				t.Fatalf("picked %s, but %s ties on every criterion and comes first", got.Node, c.Node)
			}
		}
		shuffled := rapid.Permutation(cands).Draw(t, "shuffled")
		if s := pickScore(preemption.PickNode(shuffled, now)); s != best {
			t.Fatalf("reordered candidates pick scores %v, not %v", s, best)
		}
	})
}
