package preemption_test

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/preemption"
)

// examplePod is a pod with a priority and a cpu request.
func examplePod(name string, priority int32, cpu string, labels map[string]string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: labels},
		Spec: v1.PodSpec{
			Priority: &priority,
			Containers: []v1.Container{{Name: "app", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)},
			}}},
		},
	}
}

func exampleNode(name, cpu string) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU:  resource.MustParse(cpu),
			v1.ResourcePods: resource.MustParse("110"),
		}},
	}
}

// A 2-cpu node holds three low-priority pods. A PodDisruptionBudget that
// allows no disruption protects the "db" pod, so the search reprieves it
// first and evicts the unprotected pods instead.
func ExampleSelectVictims() {
	node, _ := preemption.NewNodeSnapshot(exampleNode("n1", "2"), []*v1.Pod{
		examplePod("db", 100, "1", map[string]string{"app": "db"}),
		examplePod("web", 100, "500m", nil),
		examplePod("batch", 0, "500m", nil),
	}, nil)
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop"},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 0},
	}
	preemptor := examplePod("checkout", 1000, "1", nil)

	victims, ok := preemption.SelectVictims(preemptor, node, mustPDBs([]*policyv1.PodDisruptionBudget{pdb}), now, preemption.Options{})
	fmt.Println("candidate:", ok)
	for _, p := range victims.Pods {
		fmt.Println("evict", p.Name)
	}
	fmt.Println("PDB violations:", victims.NumPDBViolations)
	// Output:
	// candidate: true
	// evict web
	// evict batch
	// PDB violations: 0
}

// Preempt returns the node to preempt on and its victims: n2, whose victim
// has the lowest priority, and there only "report" (the small "etl" pod is
// reprieved). The errors say why preemption cannot help.
func ExamplePreempt() {
	n1, _ := preemption.NewNodeSnapshot(exampleNode("n1", "1"), []*v1.Pod{
		examplePod("cache", 500, "1", nil),
	}, nil)
	n2, _ := preemption.NewNodeSnapshot(exampleNode("n2", "1"), []*v1.Pod{
		examplePod("report", 10, "600m", nil),
		examplePod("etl", 10, "200m", nil),
	}, nil)
	preemptor := examplePod("api", 1000, "700m", nil)
	opts := preemption.Options{Offset: preemption.FixedOffset(0)}

	chosen, err := preemption.Preempt(preemptor, []preemption.NodeSnapshot{n1, n2}, preemption.PDBs{}, now, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("node:", chosen.Node)
	for _, p := range chosen.Victims.Pods {
		fmt.Println("evict", p.Name)
	}

	never := v1.PreemptNever
	preemptor.Spec.PreemptionPolicy = &never
	_, err = preemption.Preempt(preemptor, []preemption.NodeSnapshot{n1, n2}, preemption.PDBs{}, now, opts)
	fmt.Println(errors.Is(err, preemption.ErrNotEligible), err)
	// Output:
	// node: n2
	// evict report
	// true preemption: pod shop/api: preemptor not eligible: not eligible due to preemptionPolicy=Never.
}

// PickNode chooses among candidates found elsewhere, for example by
// SelectVictims on each node. Fewest PodDisruptionBudget violations comes
// first, which leaves n2 and n3; then the lower priority of the most
// important victim decides for n3, although it loses two pods.
// PickNodeExplained says which criterion decided.
func ExamplePickNode() {
	candidates := []preemption.Candidate{
		{Node: "n1", Victims: preemption.Victims{Pods: []*v1.Pod{examplePod("batch", 0, "1", nil)}, NumPDBViolations: 1}},
		{Node: "n2", Victims: preemption.Victims{Pods: []*v1.Pod{examplePod("cache", 500, "1", nil)}}},
		{Node: "n3", Victims: preemption.Victims{Pods: []*v1.Pod{examplePod("report", 10, "600m", nil), examplePod("etl", 10, "400m", nil)}}},
	}
	fmt.Println("node:", preemption.PickNode(candidates, now).Node)
	_, d := preemption.PickNodeExplained(candidates, now, nil)
	fmt.Println("by:", d)
	// Output:
	// node: n3
	// by: lowest highest-victim priority (runner-up n2)
}

// Evaluate explains a decision: the candidates of the dry run, the node
// chosen and the criterion that separated it from the runner-up.
func ExampleEvaluate() {
	started := func(p *v1.Pod, minutes int) *v1.Pod {
		p.Status.StartTime = &metav1.Time{Time: time.Date(2026, 1, 1, 0, minutes, 0, 0, time.UTC)}
		return p
	}
	var nodes []preemption.NodeSnapshot
	for _, n := range []struct {
		name string
		pods []*v1.Pod
	}{
		{"n1", []*v1.Pod{started(examplePod("a", 100, "1", nil), 5)}},
		{"n2", []*v1.Pod{started(examplePod("b", 100, "1", nil), 30)}},
		{"n3", []*v1.Pod{started(examplePod("c", 200, "1", nil), 1)}},
	} {
		s, _ := preemption.NewNodeSnapshot(exampleNode(n.name, "1"), n.pods, nil)
		nodes = append(nodes, s)
	}
	r, err := preemption.Evaluate(examplePod("api", 1000, "1", nil), nodes, preemption.PDBs{}, now, preemption.Options{Offset: preemption.FixedOffset(0)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range r.Candidates {
		fmt.Printf("candidate %s: victims %d, PDB violations %d\n", c.Node, len(c.Victims.Pods), c.Victims.NumPDBViolations)
	}
	fmt.Printf("chosen %s by %v\n", r.Chosen.Node, r.Decision)
	// Output:
	// candidate n1: victims 1, PDB violations 0
	// candidate n2: victims 1, PDB violations 0
	// candidate n3: victims 1, PDB violations 0
	// chosen n2 by latest start time of the highest-priority victims (runner-up n1)
}

// A Filter plugs in a check the resource model does not make; here, at most
// one pod labelled "exclusive" per node.
func ExampleFilter() {
	exclusive := map[string]string{"exclusive": "true"}
	node, _ := preemption.NewNodeSnapshot(exampleNode("n1", "4"), []*v1.Pod{
		examplePod("old", 0, "100m", exclusive),
		examplePod("other", 0, "100m", nil),
	}, nil)
	oneExclusive := func(pre *v1.Pod, _ *v1.Node, r preemption.Remaining) (bool, string) {
		if pre.Labels["exclusive"] == "" {
			return true, ""
		}
		for p := range r.Pods() {
			if p.Labels["exclusive"] != "" {
				return false, "node(s) already run an exclusive pod"
			}
		}
		return true, ""
	}
	preemptor := examplePod("new", 1000, "100m", exclusive)
	opts := preemption.Options{Filters: []preemption.Filter{oneExclusive}}

	fmt.Println(preemption.CheckFit(preemptor, node, opts))
	victims, _ := preemption.SelectVictims(preemptor, node, preemption.PDBs{}, now, opts)
	fmt.Println("evict", victims.Pods[0].Name)
	// Output:
	// Unschedulable: node(s) already run an exclusive pod
	// evict old
}

// PodRequests measures a pod that is being scheduled: the init container
// "setup" runs beside the sidecar "proxy" (1 + 0.2 cpu), more than the
// sidecar and "app" together (0.7), and the overhead is added.
// AssignedPodRequests charges a pod already on a node at least what was
// allocated to it: "app" was resized to 1.5 cpu, which PodRequests ignores.
func ExamplePodRequests() {
	cpu := func(q string) v1.ResourceList { return v1.ResourceList{v1.ResourceCPU: resource.MustParse(q)} }
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{
		Spec: v1.PodSpec{
			InitContainers: []v1.Container{
				{Name: "proxy", RestartPolicy: &always, Resources: v1.ResourceRequirements{Requests: cpu("200m")}},
				{Name: "setup", Resources: v1.ResourceRequirements{Requests: cpu("1")}},
			},
			Containers: []v1.Container{{Name: "app", Resources: v1.ResourceRequirements{Requests: cpu("500m")}}},
			Overhead:   cpu("100m"),
		},
		Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", AllocatedResources: cpu("1500m")}}},
	}
	fmt.Printf("scheduling: %dm\n", preemption.PodRequests(pod).MilliCPU)
	fmt.Printf("on a node: %dm\n", preemption.AssignedPodRequests(pod).MilliCPU)
	// Output:
	// scheduling: 1300m
	// on a node: 1800m
}

// EvaluateSource prepares a node's snapshot only when the decision looks at
// it: with the prior statuses known, only the nodes of the dry run (here the
// sampling asks for 2 candidates among 4 potential nodes, from offset 1).
func ExampleEvaluateSource() {
	nodes := []string{"n1", "n2", "n3", "n4"}
	src := &onDemand{names: nodes, build: func(name string) (preemption.NodeSnapshot, error) {
		victim := examplePod("batch-"+name, 100, "1", nil)
		return preemption.NewNodeSnapshot(exampleNode(name, "1"), []*v1.Pod{victim}, nil)
	}}
	prior := map[string]preemption.Code{}
	for _, n := range nodes {
		prior[n] = preemption.Unschedulable
	}
	r, err := preemption.EvaluateSource(examplePod("api", 1000, "1", nil), src, preemption.PDBs{}, now, preemption.Options{
		Sampling:    &preemption.Sampling{MinCandidateNodesPercentage: 50, MinCandidateNodesAbsolute: 1},
		Offset:      preemption.FixedOffset(1),
		PriorStatus: prior,
		Workers:     1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("prepared:", src.built)
	fmt.Println("chosen:", r.Chosen.Node, names(r.Chosen.Victims.Pods))
	// Output:
	// prepared: [n2 n3]
	// chosen: n2 [batch-n2]
}

// onDemand is a NodeSource that builds each snapshot when asked, once.
type onDemand struct {
	names []string
	build func(name string) (preemption.NodeSnapshot, error)
	cache map[string]preemption.NodeSnapshot
	built []string
}

func (s *onDemand) Len() int          { return len(s.names) }
func (s *onDemand) Name(i int) string { return s.names[i] }

// Snapshot is called from one goroutine here (Workers: 1); a source used
// with more workers must lock its cache.
func (s *onDemand) Snapshot(i int) (preemption.NodeSnapshot, error) {
	name := s.names[i]
	if snap, ok := s.cache[name]; ok {
		return snap, nil
	}
	snap, err := s.build(name)
	if err != nil {
		return preemption.NodeSnapshot{}, err
	}
	if s.cache == nil {
		s.cache = map[string]preemption.NodeSnapshot{}
	}
	s.cache[name] = snap
	s.built = append(s.built, name)
	return snap, nil
}
