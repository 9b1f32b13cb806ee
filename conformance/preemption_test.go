package conformance_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	upstreampreemption "k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/preemption"
)

// cluster is one generated preemption problem.
type cluster struct {
	nodes     []*v1.Node
	bound     map[string][]*v1.Pod // by node, in snapshot order
	nominated map[string][]*v1.Pod // by node
	pdbs      []*policyv1.PodDisruptionBudget
	preemptor *v1.Pod
}

func (c *cluster) allBound() []*v1.Pod {
	var out []*v1.Pod
	for _, n := range c.nodes {
		out = append(out, c.bound[n.Name]...)
	}
	return out
}

func (c *cluster) allNominated() []*v1.Pod {
	var out []*v1.Pod
	for _, n := range c.nodes {
		out = append(out, c.nominated[n.Name]...)
	}
	return out
}

// snapshots builds the library's node snapshots, in node order.
func (c *cluster) snapshots(t tester) []preemption.NodeSnapshot {
	out := make([]preemption.NodeSnapshot, len(c.nodes))
	for i, n := range c.nodes {
		s, err := preemption.NewNodeSnapshot(n, c.bound[n.Name], c.nominated[n.Name])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = s
	}
	return out
}

// GoString makes rapid print the cluster readably.
func (c *cluster) GoString() string { return c.String() }

func (c *cluster) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "preemptor %s\n", show(c.preemptor))
	for _, n := range c.nodes {
		fmt.Fprintf(&b, "node %s allocatable %s\n", n.Name, show(n.Status.Allocatable))
		for _, p := range c.bound[n.Name] {
			fmt.Fprintf(&b, "  pod %s\n", show(p))
		}
		for _, p := range c.nominated[n.Name] {
			fmt.Fprintf(&b, "  nominated %s\n", show(p))
		}
	}
	for _, p := range c.pdbs {
		fmt.Fprintf(&b, "pdb %s\n", show(p))
	}
	return b.String()
}

var victimPodOptions = gen.PodOptions{
	Namespaces:    []string{"default", "other"},
	PodLevel:      true,
	Overhead:      true,
	AlwaysStarted: true,
}

// drawCluster draws between minNodes and maxNodes nodes with up to maxPods
// bound pods each, up to two nominated pods, up to three PDBs and a
// preemptor. Pod names are unique; every bound pod has a start time
// (upstream reads the clock anew for each missing one, so ties between
// them are random).
//
// roomy nodes have at least 200m cpu, 200Mi memory and 2 pod slots, so
// that a multi-node problem usually has several candidates.
func drawCluster(t *rapid.T, minNodes, maxNodes, maxPods int, roomy bool) *cluster {
	return drawClusterOf(t, minNodes, maxNodes, maxPods, roomy, victimPodOptions)
}

// drawClusterOf is drawCluster with bound and nominated pods drawn with po.
func drawClusterOf(t *rapid.T, minNodes, maxNodes, maxPods int, roomy bool, po gen.PodOptions) *cluster {
	return rapid.Custom(func(t *rapid.T) *cluster {
		return newCluster(t, minNodes, maxNodes, maxPods, roomy, po)
	}).Draw(t, "cluster")
}

func newCluster(t *rapid.T, minNodes, maxNodes, maxPods int, roomy bool, po gen.PodOptions) *cluster {
	c := &cluster{bound: map[string][]*v1.Pod{}, nominated: map[string][]*v1.Pod{}}
	var names []string
	for i := range rapid.IntRange(minNodes, maxNodes).Draw(t, "nodes") {
		min := 0
		if roomy {
			min = 2
		}
		n := gen.NodeWith(fmt.Sprintf("n%d", i), min).Draw(t, fmt.Sprintf("n%d", i))
		c.nodes = append(c.nodes, n)
		pods := gen.Pods(n.Name+"p", 0, maxPods, po).Draw(t, n.Name+".pods")
		for _, p := range pods {
			p.Spec.NodeName = n.Name
			names = append(names, p.Name)
		}
		c.bound[n.Name] = pods
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "nominated") {
		p := gen.Pod(fmt.Sprintf("nom%d", i), po).Draw(t, fmt.Sprintf("nom%d", i))
		node := rapid.SampledFrom(c.nodes).Draw(t, fmt.Sprintf("nom%d.node", i)).Name
		p.Status.NominatedNodeName = node
		c.nominated[node] = append(c.nominated[node], p)
	}
	c.pdbs = gen.PDBs(3, po.Namespaces, names).Draw(t, "pdbs")
	c.preemptor = gen.Pod("preemptor", gen.PodOptions{
		Namespaces: []string{"default"},
		Priorities: []*int32{gen.Int32(0), gen.Int32(100), gen.Int32(1000), gen.Int32(10000), gen.Int32(10000)},
		PodLevel:   true,
		Overhead:   true,
	}).Draw(t, "preemptor")
	return c
}

// pickNow is the time the library reads a missing start time as: after every
// generated one, like the clock upstream reads. Every generated victim has a
// start time, so it only has to be a valid time.
var pickNow = gen.Epoch.Add(time.Hour)

// parsedPDBs parses generated budgets, which are never nil.
func parsedPDBs(pdbs []*policyv1.PodDisruptionBudget) preemption.PDBs {
	s, err := preemption.NewPDBs(pdbs)
	if err != nil {
		panic(err)
	}
	return s
}

func podNames(pods []*v1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// maxSortedExactly is the longest slice that upstream's sort.Slice sorts
// with an insertion sort, hence stably; every generated node has fewer
// pods, so victims are compared in order, ties included. Beyond it
// upstream's order among ties is its quicksort's and would need comparing
// modulo ties.
const maxSortedExactly = 12

// TestSelectVictims compares upstream's DefaultPreemption.SelectVictimsOnNode,
// run through the scheduler framework with the NodeResourcesFit plugin, with
// preemption.SelectVictimsWithStatus on one generated node: status code and
// reasons, victims in order, and the PDB violation count.
//
// With at most maxSortedExactly potential victims upstream's sort.Slice is
// an insertion sort, hence stable like the library's sorts, so equally
// important pods are reprieved in the same order on both sides and the
// victims come out in the same order, ties included.
func TestSelectVictims(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		checkSelectVictims(t, drawCluster(t, 1, 1, 8, false))
	})
}

// checkSelectVictims runs both sides on the first node of c.
func checkSelectVictims(t tester, c *cluster) {
	t.Helper()
	node := c.nodes[0].Name
	if n := len(c.bound[node]); n > maxSortedExactly {
		t.Fatalf("%d pods on %s: upstream's victim order among ties is unspecified beyond %d", n, node, maxSortedExactly)
	}
	up := newSchedCluster(t, c.nodes, c.allBound(), c.allNominated(), schedArgs{})
	state := up.preFilter(t, c.preemptor)
	want := up.selectVictims(t, state, c.preemptor, node, c.pdbs)

	snap := c.snapshots(t)[0]
	got, status := preemption.SelectVictimsWithStatus(c.preemptor, snap, parsedPDBs(c.pdbs), pickNow, preemption.Options{})

	wantDesc := fmt.Sprintf("%v %q victims %q violations %d", want.Code, want.Reasons, podNames(want.Pods), want.NumViolations)
	gotDesc := fmt.Sprintf("%v %q victims %q violations %d", status.Code, status.Reasons, podNames(got.Pods), got.NumPDBViolations)
	if want.Code != fwk.Success {
		// Upstream returns no victims with a failure; compare the status.
		wantDesc = fmt.Sprintf("%v %q", want.Code, want.Reasons)
		gotDesc = fmt.Sprintf("%v %q", status.Code, status.Reasons)
	}
	if gotDesc != wantDesc {
		t.Fatalf("SelectVictims on %s:\nupstream %s\nevictkit %s\n%v", node, wantDesc, gotDesc, c)
	}
}

// TestVictimTieOrder is TestSelectVictims where most pods tie: priorities
// 100 and 1000 only, start times within six minutes, and budgets.
//
// It found a library bug, now fixed: when a node has both PDB-violating and
// non-violating victims, upstream re-sorts the victims by importance with
// sort.Slice, an insertion sort (stable) for up to 12 victims, so equally
// important victims keep the order they were appended in: violating ones
// first. The library broke such ties by the pods' order on the node. The
// minimal case, kept below: p2 and p4 both priority 1000, started 12:01, p4
// matched by a PDB with no disruptions allowed, p2 not: upstream
// [p4 p2 p1 p0 p3], the library gave [p2 p4 p1 p0 p3].
func TestVictimTieOrder(t *testing.T) {
	t.Run("minimal", func(t *testing.T) {
		c := tieCluster()
		checkSelectVictims(t, c)
		got, _ := preemption.SelectVictims(c.preemptor, c.snapshots(t)[0], parsedPDBs(c.pdbs), pickNow, preemption.Options{})
		if want := []string{"p4", "p2", "p1", "p0", "p3"}; !slices.Equal(podNames(got.Pods), want) || got.NumPDBViolations != 1 {
			t.Fatalf("victims %q violations %d, want %q (upstream's) and 1", podNames(got.Pods), got.NumPDBViolations, want)
		}
	})
	ties := victimPodOptions
	ties.Priorities = []*int32{gen.Int32(100), gen.Int32(1000)}
	rapid.Check(t, func(t *rapid.T) {
		checkSelectVictims(t, drawClusterOf(t, 1, 1, 8, false, ties))
	})
}

// tieCluster is TestVictimTieOrder's minimal case: a node that all five
// pods must leave, two of them (p2, p4) equally important, p4 alone under
// an exhausted budget.
func tieCluster() *cluster {
	res := func(cpu, mem string) v1.ResourceList {
		return v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}
	}
	pod := func(name string, prio int32, minute int, labels map[string]string) *v1.Pod {
		start := metav1.NewTime(gen.Epoch.Add(time.Duration(minute) * time.Minute))
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name), Labels: labels},
			Spec: v1.PodSpec{NodeName: "n0", Priority: &prio, Containers: []v1.Container{
				{Name: "c", Resources: v1.ResourceRequirements{Requests: res("100m", "100Mi")}}}},
			Status: v1.PodStatus{StartTime: &start},
		}
	}
	alloc := res("500m", "500Mi")
	alloc[v1.ResourcePods] = resource.MustParse("10")
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n0", UID: "n0"},
		Status: v1.NodeStatus{Allocatable: alloc, Capacity: alloc}}
	one := intstr.FromInt32(1)
	preemptor := pod("preemptor", 10000, 0, nil)
	preemptor.Spec.NodeName = ""
	preemptor.Status = v1.PodStatus{}
	preemptor.Spec.Containers[0].Resources.Requests = res("500m", "500Mi")
	return &cluster{
		nodes: []*v1.Node{node},
		bound: map[string][]*v1.Pod{"n0": {
			pod("p0", 100, 2, nil),
			pod("p1", 100, 1, nil),
			pod("p2", 1000, 1, nil),
			pod("p3", 0, 1, nil),
			pod("p4", 1000, 1, map[string]string{"app": "foo"}),
		}},
		nominated: map[string][]*v1.Pod{},
		pdbs: []*policyv1.PodDisruptionBudget{{
			ObjectMeta: metav1.ObjectMeta{Name: "pdb", Namespace: "default"},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "foo"}}},
		}},
		preemptor: preemptor,
	}
}

// upstreamCandidates renders upstream's dry-run candidates.
func upstreamCandidates(cs []upstreampreemption.Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%s%q/%d", c.Name(), podNames(c.Victims().Pods), c.Victims().NumPDBViolations)
	}
	return out
}

func ourCandidates(cs []preemption.Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%s%q/%d", c.Node, podNames(c.Victims.Pods), c.Victims.NumPDBViolations)
	}
	return out
}

// TestPreempt compares the whole per-pod preemption: the potential nodes
// (where upstream's Filter plugins answer Unschedulable), upstream's
// DryRunPreemption from the same offset over the potential nodes in the
// same order, with parallelism 1 (its stop rule is racy otherwise), and
// the node pick, against preemption.Evaluate. The candidates must be
// equal, in order, with their victims in order (at most 5 pods a node, so
// upstream's sorts are stable); the chosen node must be one upstream's
// pickOneNodeForPreemption can choose (it breaks full ties by map order).
func TestPreempt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawCluster(t, 2, 5, 5, true)
		args := schedArgs{
			MinCandidateNodesPercentage: int32(rapid.IntRange(0, 100).Draw(t, "percentage")),
			MinCandidateNodesAbsolute:   int32(rapid.IntRange(0, 4).Draw(t, "absolute")),
		}
		if args.MinCandidateNodesPercentage == 0 && args.MinCandidateNodesAbsolute == 0 {
			args.MinCandidateNodesAbsolute = 1
		}
		up := newSchedCluster(t, c.nodes, c.allBound(), c.allNominated(), args)
		state := up.preFilter(t, c.preemptor)
		var potential []string
		for _, n := range c.nodes {
			if up.nodeFits(t, state, c.preemptor, n.Name).Code() == fwk.Unschedulable {
				potential = append(potential, n.Name)
			}
		}
		offset := int32(0)
		if len(potential) > 0 {
			offset = int32(rapid.IntRange(0, len(potential)-1).Draw(t, "offset"))
		}

		opts := preemption.Options{
			Sampling: &preemption.Sampling{MinCandidateNodesPercentage: args.MinCandidateNodesPercentage,
				MinCandidateNodesAbsolute: args.MinCandidateNodesAbsolute},
			Offset:  preemption.FixedOffset(offset),
			Workers: 1,
		}
		r, _ := preemption.Evaluate(c.preemptor, c.snapshots(t), parsedPDBs(c.pdbs), pickNow, opts)
		// The scheduler plugin's path: snapshots prepared on demand from
		// what upstream's NodeInfo charges each pod, statuses from
		// upstream's filters. Same decision.
		lazy := &upstreamNodes{t: t, c: c, up: up, state: state}
		lazyR, _ := preemption.EvaluateSource(c.preemptor, lazy, parsedPDBs(c.pdbs), pickNow, opts)
		if !reflect.DeepEqual(r, lazyR) {
			t.Fatalf("on-demand snapshots from upstream's NodeInfos differ:\nevaluate %+v\non demand %+v\n%v", r, lazyR, c)
		}
		if !slices.Equal(r.Potential, potential) {
			t.Fatalf("potential nodes: upstream %q, evictkit %q\n%v", potential, r.Potential, c)
		}
		if len(potential) == 0 {
			if r.Code != preemption.Unschedulable {
				t.Fatalf("no potential node: evictkit %v %q, want Unschedulable\n%v", r.Code, r.Message, c)
			}
			return
		}
		candidates := up.dryRun(t, state, c.preemptor, potential, c.pdbs, offset)
		if want, got := upstreamCandidates(candidates), ourCandidates(r.Candidates); !slices.Equal(got, want) {
			t.Fatalf("candidates from offset %d:\nupstream %q\nevictkit %q\n%v", offset, want, got, c)
		}
		if len(candidates) == 0 {
			if r.Code == preemption.Success {
				t.Fatalf("no candidate upstream, evictkit chose %s\n%v", r.Chosen.Node, c)
			}
			return
		}
		if r.Code != preemption.Success {
			t.Fatalf("evictkit %v %q with candidates %q\n%v", r.Code, r.Message, ourCandidates(r.Candidates), c)
		}
		if !upstreamCanPick(t, candidates, r.Chosen.Node) {
			t.Fatalf("evictkit picked %s (%v) from %q; upstream picks %s\n%v",
				r.Chosen.Node, r.Decision, ourCandidates(r.Candidates), upstreamPick(candidates), c)
		}
	})
}

// upstreamNodes is the preemption.StatusSource a scheduler plugin builds:
// prior statuses from upstream's filters, snapshots built when asked for
// with what upstream's NodeInfo charges each bound pod.
type upstreamNodes struct {
	t     *rapid.T
	c     *cluster
	up    *schedCluster
	state fwk.CycleState
}

func (u *upstreamNodes) Len() int          { return len(u.c.nodes) }
func (u *upstreamNodes) Name(i int) string { return u.c.nodes[i].Name }
func (u *upstreamNodes) PriorStatus(i int) preemption.Code {
	// A node where the preemptor fits has no entry in upstream's
	// NodeToStatus, and an absent entry reads as
	// UnschedulableAndUnresolvable.
	switch u.up.nodeFits(u.t, u.state, u.c.preemptor, u.Name(i)).Code() {
	case fwk.Unschedulable:
		return preemption.Unschedulable
	}
	return preemption.UnschedulableAndUnresolvable
}
func (u *upstreamNodes) Snapshot(i int) (preemption.NodeSnapshot, error) {
	ni := u.up.nodeInfo(u.t, u.Name(i))
	var pods, nominated []preemption.ChargedPod
	for _, pi := range ni.GetPods() {
		r := pi.CalculateResource().Resource
		pods = append(pods, preemption.ChargedPod{Pod: pi.GetPod(), Charged: preemption.Resources{
			MilliCPU: r.GetMilliCPU(), Memory: r.GetMemory(), EphemeralStorage: r.GetEphemeralStorage(), Scalars: r.GetScalarResources(),
		}})
	}
	for _, p := range u.c.nominated[u.Name(i)] {
		nominated = append(nominated, preemption.ChargedPod{Pod: p, Charged: preemption.AssignedPodRequests(p)})
	}
	return preemption.NewNodeSnapshotCharged(ni.Node(), pods, nominated)
}

// TestPickNode compares the node pick alone on generated candidates: the
// library's pick must be one of upstream's possible picks (upstream breaks
// full ties by map order).
func TestPickNode(t *testing.T) {
	victim := func(name string) *rapid.Generator[*v1.Pod] {
		return rapid.Custom(func(t *rapid.T) *v1.Pod {
			prio := rapid.SampledFrom([]int32{-1 << 31, -1 << 30, -100, 0, 100, 1000}).Draw(t, "priority")
			start := metav1.NewTime(gen.Epoch.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, "start")) * time.Minute))
			return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.PodSpec{Priority: &prio},
				Status: v1.PodStatus{StartTime: &start}}
		})
	}
	rapid.Check(t, func(t *rapid.T) {
		var ours []preemption.Candidate
		var ups []upstreampreemption.Candidate
		for i := range rapid.IntRange(1, 5).Draw(t, "candidates") {
			name := fmt.Sprintf("n%d", i)
			var pods []*v1.Pod
			for j := range rapid.IntRange(1, 3).Draw(t, name+".victims") {
				pods = append(pods, victim(fmt.Sprintf("%s.v%d", name, j)).Draw(t, fmt.Sprintf("%s.v%d", name, j)))
			}
			violations := rapid.IntRange(0, 2).Draw(t, name+".violations")
			ours = append(ours, preemption.Candidate{Node: name, Victims: preemption.Victims{Pods: pods, NumPDBViolations: violations}})
			ups = append(ups, pickCandidate{name: name, victims: &extenderv1.Victims{Pods: pods, NumPDBViolations: int64(violations)}})
		}
		got, decision := preemption.PickNodeExplained(ours, pickNow, nil)
		if !upstreamCanPick(t, ups, got.Node) {
			t.Fatalf("PickNode(%s) = %s (%v); upstream picks %s", show(ourCandidates(ours)), got.Node, decision, upstreamPick(ups))
		}
	})
}

// pickCandidate is a Candidate for upstream's pick.
type pickCandidate struct {
	name    string
	victims *extenderv1.Victims
}

func (c pickCandidate) Victims() *extenderv1.Victims { return c.victims }
func (c pickCandidate) Name() string                 { return c.name }
func (c pickCandidate) NumPodGroupDisruptions() int  { return 0 }

// TestUpstreamCanPickIsExhaustive checks the tie check itself: two
// candidates that tie on every criterion are both possible answers, every
// time, whichever order upstream's map yields; a candidate worse only on the
// last criterion (start time) by one nanosecond never is.
func TestUpstreamCanPickIsExhaustive(t *testing.T) {
	victim := func(name string, start time.Time) *v1.Pod {
		prio := int32(100)
		st := metav1.NewTime(start)
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.PodSpec{Priority: &prio}, Status: v1.PodStatus{StartTime: &st}}
	}
	cand := func(node string, start time.Time) upstreampreemption.Candidate {
		return pickCandidate{name: node, victims: &extenderv1.Victims{Pods: []*v1.Pod{victim(node+".v", start)}}}
	}
	tied := []upstreampreemption.Candidate{cand("n0", gen.Epoch), cand("n1", gen.Epoch)}
	older := []upstreampreemption.Candidate{cand("n0", gen.Epoch), cand("n1", gen.Epoch.Add(-time.Nanosecond))}
	for range 200 {
		if !upstreamCanPick(t, tied, "n0") || !upstreamCanPick(t, tied, "n1") {
			t.Fatal("a full tie must leave both nodes possible")
		}
		if upstreamCanPick(t, older, "n1") || !upstreamCanPick(t, older, "n0") {
			t.Fatal("a victim started one nanosecond earlier must lose the start-time rule")
		}
	}
}
