package preemption

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// pdbSet is the PodDisruptionBudgets of one decision with their selectors
// parsed once. Budgets that can match no pod (nil, empty or invalid
// selector) are left out: upstream skips them for every pod.
type pdbSet struct {
	items []pdbEntry
	byNS  map[string][]int // indices into items, in input order
}

type pdbEntry struct {
	selector  labels.Selector
	allowed   int32
	disrupted map[string]metav1.Time
}

func newPDBSet(pdbs []*policyv1.PodDisruptionBudget) (pdbSet, error) {
	var s pdbSet
	for i, pdb := range pdbs {
		if pdb == nil {
			return pdbSet{}, fmt.Errorf("%w: PodDisruptionBudget %d is nil", ErrInvalidInput, i)
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() || pdb.Spec.Selector == nil {
			continue
		}
		if s.byNS == nil {
			s.byNS = make(map[string][]int)
		}
		s.byNS[pdb.Namespace] = append(s.byNS[pdb.Namespace], len(s.items))
		s.items = append(s.items, pdbEntry{sel, pdb.Status.DisruptionsAllowed, pdb.Status.DisruptedPods})
	}
	return s, nil
}

// resetBudgets fills budgets with every PDB's disruptionsAllowed.
func (s *pdbSet) resetBudgets(budgets []int32) {
	for i := range s.items {
		budgets[i] = s.items[i].allowed
	}
}

// violates charges pod against the budgets of the PDBs that cover it and
// reports whether one of them went below zero (upstream's podIsViolating in
// FilterVictimsWithPDBViolation). A pod without labels is never violating; a
// pod listed in a PDB's disruptedPods is not charged to it; the walk stops at
// the first exhausted budget, so later PDBs are not charged.
func (s *pdbSet) violates(pod *v1.Pod, budgets []int32) bool {
	if len(pod.Labels) == 0 {
		return false
	}
	for _, i := range s.byNS[pod.Namespace] {
		d := &s.items[i]
		if !d.selector.Matches(labels.Set(pod.Labels)) {
			continue
		}
		if _, done := d.disrupted[pod.Name]; done {
			continue
		}
		budgets[i]--
		if budgets[i] < 0 {
			return true
		}
	}
	return false
}
