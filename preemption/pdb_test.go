package preemption

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"pgregory.net/rapid"
)

// drawSelector draws a selector of every shape the index treats apart: a
// required label (matchLabels, In with one value), none (In with two values,
// NotIn, Exists), several requirements, empty and nil.
func drawSelector(t *rapid.T, label string) *metav1.LabelSelector {
	key := func(l string) string { return rapid.SampledFrom([]string{"app", "tier", "team"}).Draw(t, l) }
	value := func(l string) string { return rapid.SampledFrom([]string{"a", "b"}).Draw(t, l) }
	switch rapid.IntRange(0, 7).Draw(t, label) {
	case 0:
		return nil
	case 1:
		return &metav1.LabelSelector{}
	case 2:
		return &metav1.LabelSelector{MatchLabels: map[string]string{key(label + ".k"): value(label + ".v")}}
	case 3:
		return &metav1.LabelSelector{MatchLabels: map[string]string{key(label + ".k1"): value(label + ".v1"), key(label + ".k2"): value(label + ".v2")}}
	case 4:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: key(label + ".k"), Operator: metav1.LabelSelectorOpIn, Values: []string{value(label + ".v")}}}}
	case 5:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: key(label + ".k"), Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}}
	case 6:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: key(label + ".k"), Operator: metav1.LabelSelectorOpNotIn, Values: []string{value(label + ".v")}}}}
	default:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: key(label + ".k"), Operator: metav1.LabelSelectorOpExists}}}
	}
}

// scanViolates is the walk over every budget of the pod's namespace, in
// input order, that the index must reproduce.
func scanViolates(pdbs []*policyv1.PodDisruptionBudget, pod *v1.Pod, budgets map[int]int32) bool {
	if len(pod.Labels) == 0 {
		return false
	}
	for i, pdb := range pdbs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if pdb.Namespace != pod.Namespace || pdb.Spec.Selector == nil || err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		if _, done := pdb.Status.DisruptedPods[pod.Name]; done {
			continue
		}
		if _, ok := budgets[i]; !ok {
			budgets[i] = pdb.Status.DisruptionsAllowed
		}
		budgets[i]--
		if budgets[i] < 0 {
			return true
		}
	}
	return false
}

// The label index finds, for every pod, the budgets a walk over all of the
// namespace's budgets finds, charged in the same order: the same pods
// violate, node after node (the budgets charged on one node are restored
// before the next).
func TestPDBIndexMatchesAScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		namespaces := []string{"ns1", "ns2"}
		var pdbs []*policyv1.PodDisruptionBudget
		for i := range rapid.IntRange(0, 12).Draw(t, "pdbs") {
			pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("pdb", i), Namespace: rapid.SampledFrom(namespaces).Draw(t, "ns")}}
			pdb.Spec.Selector = drawSelector(t, fmt.Sprint("sel", i))
			pdb.Status.DisruptionsAllowed = int32(rapid.IntRange(0, 2).Draw(t, "allowed"))
			if rapid.Bool().Draw(t, "disrupted?") {
				pdb.Status.DisruptedPods = map[string]metav1.Time{"pod0": {}}
			}
			pdbs = append(pdbs, pdb)
		}
		s, err := NewPDBs(pdbs)
		if err != nil {
			t.Fatal(err)
		}
		budgets := make([]int32, len(s.items))
		s.fillBudgets(budgets)
		var charged, buf []int32
		for node := range rapid.IntRange(1, 3).Draw(t, "nodes") {
			s.restoreBudgets(budgets, charged)
			charged = charged[:0]
			scan := map[int]int32{}
			for i := range rapid.IntRange(0, 6).Draw(t, "pods") {
				pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("pod", i), Namespace: rapid.SampledFrom(namespaces).Draw(t, "pod ns"), Labels: map[string]string{}}}
				for _, k := range []string{"app", "tier", "team"} {
					if v := rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, k); v != "" {
						pod.Labels[k] = v
					}
				}
				want := scanViolates(pdbs, pod, scan)
				if got := s.violates(pod, budgets, &charged, &buf); got != want {
					t.Fatalf("node %d, pod %d %v: violates %v, a scan of every budget says %v", node, i, pod.Labels, got, want)
				}
			}
		}
	})
}
