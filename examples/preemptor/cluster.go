package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/evictkit/eviction/podresources"
	"github.com/evictkit/eviction/preemption"
)

// cluster is the scheduler's view of a small cluster: nodes with their bound
// pods, and the PodDisruptionBudgets.
type cluster struct {
	nodes []*v1.Node
	pods  map[string][]*v1.Pod // node name → bound pods, in bind order
	pdbs  []*policyv1.PodDisruptionBudget
}

// snapshots captures every node for the preemption package.
func (c *cluster) snapshots() ([]preemption.NodeSnapshot, error) {
	var out []preemption.NodeSnapshot
	for _, n := range c.nodes {
		s, err := preemption.NewNodeSnapshot(n, c.pods[n.Name], nil)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// budgets returns the PodDisruptionBudgets with the status the disruption
// controller would give them now: for an integer minAvailable,
// disruptionsAllowed = healthy matching pods − minAvailable, at least 0.
func (c *cluster) budgets() []*policyv1.PodDisruptionBudget {
	var out []*policyv1.PodDisruptionBudget
	for _, pdb := range c.pdbs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			continue
		}
		healthy := int32(0)
		for _, n := range c.nodes {
			for _, p := range c.pods[n.Name] {
				if p.Namespace == pdb.Namespace && sel.Matches(labels.Set(p.Labels)) {
					healthy++
				}
			}
		}
		b := pdb.DeepCopy()
		b.Status.CurrentHealthy = healthy
		b.Status.DesiredHealthy = pdb.Spec.MinAvailable.IntVal
		b.Status.DisruptionsAllowed = max(0, healthy-b.Status.DesiredHealthy)
		out = append(out, b)
	}
	return out
}

// evict deletes the victims and binds the preemptor to its node, as the
// scheduler's preemption executor and the next scheduling cycle would.
func (c *cluster) evict(node string, victims []*v1.Pod, preemptor *v1.Pod, now time.Time) {
	c.pods[node] = slices.DeleteFunc(c.pods[node], func(p *v1.Pod) bool { return slices.Contains(victims, p) })
	bound := preemptor.DeepCopy()
	bound.Spec.NodeName = node
	bound.Status.StartTime = &metav1.Time{Time: now}
	c.pods[node] = append(c.pods[node], bound)
}

// print lists every node with its pods.
func (c *cluster) print(w io.Writer) {
	for _, n := range c.nodes {
		var used resource.Quantity
		var names []string
		for _, p := range c.pods[n.Name] {
			used.Add(p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU])
			names = append(names, describePod(p))
		}
		fmt.Fprintf(w, "  %s  cpu %s/%s  %s\n", n.Name, used.String(), n.Status.Allocatable.Cpu(), strings.Join(names, ", "))
	}
}

func node(name, cpu string) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU:    resource.MustParse(cpu),
			v1.ResourceMemory: resource.MustParse("16Gi"),
			v1.ResourcePods:   resource.MustParse("110"),
		}},
	}
}

// pod returns a pod of the "shop" namespace with a priority (as admission
// resolves it from the pod's PriorityClass), a cpu request, an app label
// and, for running pods, a start time.
func pod(name, app string, priority int32, cpu string, started time.Time) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{"app": app}},
		Spec: v1.PodSpec{
			Priority: &priority,
			Containers: []v1.Container{{Name: app, Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)},
			}}},
		},
	}
	if !started.IsZero() {
		p.Status.StartTime = &metav1.Time{Time: started}
	}
	return p
}

func pdb(app string, minAvailable int) *policyv1.PodDisruptionBudget {
	m := intstr.FromInt(minAvailable)
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: app},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: &m,
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
		},
	}
}

func cpu(p *v1.Pod) string {
	q := p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU]
	return q.String()
}

func describePod(p *v1.Pod) string {
	return fmt.Sprintf("%s(%d)", p.Name, podresources.Priority(p))
}
