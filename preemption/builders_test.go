package preemption_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/evictkit/eviction/preemption"
)

// Priorities of the tests, from lowest to highest.
const (
	neg   int32 = -100
	low   int32 = 0
	mid   int32 = 100
	high  int32 = 1000
	vhigh int32 = 10000
)

// t0 is the epoch of the spec's t1 < t2 < …; ts(k) is tk.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ts(k int) time.Time { return t0.Add(time.Duration(k) * time.Minute) }

// now is the time of the tests, later than every ts(k) used.
var now = ts(1000)

type podOpt func(*v1.Pod)

// mkPod builds a pod in namespace "default" with one container.
func mkPod(name string, opts ...podOpt) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name)},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c"}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func prio(v int32) podOpt { return func(p *v1.Pod) { p.Spec.Priority = &v } }

// req sets the first container's cpu and memory requests ("" skips one).
func req(cpu, mem string) podOpt {
	return func(p *v1.Pod) {
		l := v1.ResourceList{}
		if cpu != "" {
			l[v1.ResourceCPU] = resource.MustParse(cpu)
		}
		if mem != "" {
			l[v1.ResourceMemory] = resource.MustParse(mem)
		}
		p.Spec.Containers[0].Resources.Requests = l
	}
}

// reqs sets arbitrary requests on the first container.
func reqs(kv ...string) podOpt {
	return func(p *v1.Pod) {
		l := v1.ResourceList{}
		for i := 0; i+1 < len(kv); i += 2 {
			l[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		p.Spec.Containers[0].Resources.Requests = l
	}
}

var (
	sizeS  = req("100m", "100")
	sizeM  = req("200m", "200")
	sizeL  = req("300m", "300")
	sizeXL = req("500m", "500")
)

func started(t time.Time) podOpt {
	return func(p *v1.Pod) { p.Status.StartTime = &metav1.Time{Time: t} }
}

func labeled(kv ...string) podOpt {
	return func(p *v1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func inNS(ns string) podOpt { return func(p *v1.Pod) { p.Namespace = ns } }

func nominatedTo(node string) podOpt {
	return func(p *v1.Pod) { p.Status.NominatedNodeName = node }
}

func policy(pp v1.PreemptionPolicy) podOpt {
	return func(p *v1.Pod) { p.Spec.PreemptionPolicy = &pp }
}

// terminating marks the pod deleted; byPreemption adds the DisruptionTarget
// condition the scheduler sets.
func terminating(byPreemption bool) podOpt {
	return func(p *v1.Pod) {
		p.DeletionTimestamp = &metav1.Time{Time: t0}
		if byPreemption {
			p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{
				Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler,
			})
		}
	}
}

// mkNode builds a node with allocatable cpu, memory and pods, plus extra
// name/quantity pairs.
func mkNode(name, cpu, mem string, pods int, extra ...string) *v1.Node {
	alloc := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse(cpu),
		v1.ResourceMemory: resource.MustParse(mem),
		v1.ResourcePods:   *resource.NewQuantity(int64(pods), resource.DecimalSI),
	}
	for i := 0; i+1 < len(extra); i += 2 {
		alloc[v1.ResourceName(extra[i])] = resource.MustParse(extra[i+1])
	}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Allocatable: alloc}}
}

// stdNode is the spec's default node: cpu 500m, mem 500, pods 32.
func stdNode(name string) *v1.Node { return mkNode(name, "500m", "500", 32) }

// snap is the snapshot of node holding pods, none nominated.
func snap(t testing.TB, node *v1.Node, pods ...*v1.Pod) preemption.NodeSnapshot {
	t.Helper()
	return snapNominated(t, node, pods, nil)
}

// snapNominated is the snapshot of node holding pods (their spec.nodeName
// set to it) with nominated pods.
func snapNominated(t testing.TB, node *v1.Node, pods, nominated []*v1.Pod) preemption.NodeSnapshot {
	t.Helper()
	for _, p := range pods {
		p.Spec.NodeName = node.Name
	}
	s, err := preemption.NewNodeSnapshot(node, pods, nominated)
	require.NoError(t, err)
	return s
}

type pdbOpt func(*policyv1.PodDisruptionBudget)

// mkPDB builds a PDB in "default" selecting app=<app> ("" for no selector
// change) with the given disruptionsAllowed.
func mkPDB(name string, allowed int32, opts ...pdbOpt) *policyv1.PodDisruptionBudget {
	one := intstr.FromInt32(1)
	p := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: &one,
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "foo"}},
		},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func selecting(sel *metav1.LabelSelector) pdbOpt {
	return func(p *policyv1.PodDisruptionBudget) { p.Spec.Selector = sel }
}

func pdbNS(ns string) pdbOpt { return func(p *policyv1.PodDisruptionBudget) { p.Namespace = ns } }

func disrupted(names ...string) pdbOpt {
	return func(p *policyv1.PodDisruptionBudget) {
		p.Status.DisruptedPods = map[string]metav1.Time{}
		for _, n := range names {
			p.Status.DisruptedPods[n] = metav1.Time{Time: t0}
		}
	}
}

// names returns the pod names, in order.
func names(pods []*v1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// candidateNodes returns the candidate node names, in order.
func candidateNodes(cs []preemption.Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Node
	}
	return out
}

// seq is the deterministic option set of the spec's cases: one worker,
// offset 0, a fixed now.
func seq() preemption.Options {
	return preemption.Options{Workers: 1, Offset: preemption.FixedOffset(0)}
}

// mustPDBs parses budgets the tests know to be valid.
func mustPDBs(pdbs []*policyv1.PodDisruptionBudget) preemption.PDBs {
	s, err := preemption.NewPDBs(pdbs)
	if err != nil {
		panic(err)
	}
	return s
}
