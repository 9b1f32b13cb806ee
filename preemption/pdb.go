package preemption

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// PDBs is a list of PodDisruptionBudgets parsed once, as the victim search
// reads them: each selector is converted to a [labels.Selector] a single
// time and the budgets are indexed by namespace. Build it with [NewPDBs] and
// pass it to every [SelectVictims], [Evaluate] or [Preempt] call that sees the
// same budgets. The zero value holds no budgets. A PDBs is immutable and safe
// to share between goroutines; it keeps no reference to the input objects
// except their status.disruptedPods maps, which it reads but never modifies.
type PDBs struct {
	items []pdbEntry
	byNS  map[string][]int // indices into items, in input order
	n     int              // budgets given, usable or not
}

type pdbEntry struct {
	selector  labels.Selector
	allowed   int32
	disrupted map[string]metav1.Time
}

// NewPDBs parses pdbs. Budgets that can match no pod (a nil or empty
// selector, or one that does not parse) are kept out, as upstream skips them
// for every pod. It fails with [ErrInvalidInput] when an element is nil.
func NewPDBs(pdbs []*policyv1.PodDisruptionBudget) (PDBs, error) {
	s := PDBs{n: len(pdbs)}
	for i, pdb := range pdbs {
		if pdb == nil {
			return PDBs{}, fmt.Errorf("preemption: PodDisruptionBudget %d is nil: %w", i, ErrInvalidInput)
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

// Len returns the number of budgets given to [NewPDBs], those that match
// no pod included.
func (s PDBs) Len() int { return s.n }

// resetBudgets fills budgets with every PDB's disruptionsAllowed.
func (s *PDBs) resetBudgets(budgets []int32) {
	for i := range s.items {
		budgets[i] = s.items[i].allowed
	}
}

// violates charges pod against the budgets of the PDBs that cover it and
// reports whether one of them went below zero (upstream's podIsViolating in
// FilterVictimsWithPDBViolation). A pod without labels is never violating; a
// pod listed in a PDB's disruptedPods is not charged to it; the walk stops at
// the first exhausted budget, so later PDBs are not charged.
func (s *PDBs) violates(pod *v1.Pod, budgets []int32) bool {
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
