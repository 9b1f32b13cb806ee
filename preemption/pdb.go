package preemption

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// PDBs is a list of PodDisruptionBudgets parsed once, as the victim search
// reads them: each selector is converted to a [labels.Selector] a single
// time and the budgets are indexed by namespace and by a label each selector
// requires, so a pod is matched only against the budgets that may cover it. Build it with [NewPDBs] and
// pass it to every [SelectVictims], [Evaluate] or [Preempt] call that sees the
// same budgets. The zero value holds no budgets. A PDBs is immutable and safe
// to share between goroutines; it keeps no reference to the input objects
// except their status.disruptedPods maps, which it reads but never modifies.
type PDBs struct {
	items []pdbEntry
	// Each budget is found through one label its selector requires
	// (byLabel), or, when it requires none, through its namespace (rest);
	// index lists are in input order.
	byLabel map[nsLabel][]int32
	rest    map[string][]int32
	n       int // budgets given, usable or not
}

// nsLabel is a label a selector requires, in the budget's namespace.
type nsLabel struct{ ns, key, value string }

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
		idx := int32(len(s.items))
		if key, value, ok := requiredLabel(sel); ok {
			if s.byLabel == nil {
				s.byLabel = make(map[nsLabel][]int32)
			}
			l := nsLabel{pdb.Namespace, key, value}
			s.byLabel[l] = append(s.byLabel[l], idx)
		} else {
			if s.rest == nil {
				s.rest = make(map[string][]int32)
			}
			s.rest[pdb.Namespace] = append(s.rest[pdb.Namespace], idx)
		}
		s.items = append(s.items, pdbEntry{sel, pdb.Status.DisruptionsAllowed, pdb.Status.DisruptedPods})
	}
	return s, nil
}

// requiredLabel returns a label every pod sel matches carries: the first
// requirement that names one value (=, == or In with one value).
func requiredLabel(sel labels.Selector) (key, value string, ok bool) {
	reqs, _ := sel.Requirements()
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			if vs := r.Values(); vs.Len() == 1 {
				return r.Key(), vs.UnsortedList()[0], true
			}
		}
	}
	return "", "", false
}

// Len returns the number of budgets given to [NewPDBs], those that match
// no pod included.
func (s PDBs) Len() int { return s.n }

// fillBudgets fills budgets with every PDB's disruptionsAllowed.
func (s *PDBs) fillBudgets(budgets []int32) {
	for i := range s.items {
		budgets[i] = s.items[i].allowed
	}
}

// restoreBudgets undoes the charges violates recorded in charged.
func (s *PDBs) restoreBudgets(budgets []int32, charged []int32) {
	for _, i := range charged {
		budgets[i] = s.items[i].allowed
	}
}

// candidates appends to buf the budgets that may cover pod, in input order:
// those indexed under one of its labels and those of its namespace that
// require no single label.
func (s *PDBs) candidates(pod *v1.Pod, buf []int32) []int32 {
	buf = append(buf[:0], s.rest[pod.Namespace]...)
	if len(s.byLabel) > 0 {
		for k, v := range pod.Labels {
			buf = append(buf, s.byLabel[nsLabel{pod.Namespace, k, v}]...)
		}
	}
	slices.Sort(buf) // each budget is indexed once: no duplicates
	return buf
}

// violates charges pod against the budgets of the PDBs that cover it and
// reports whether one of them went below zero (upstream's podIsViolating in
// FilterVictimsWithPDBViolation). A pod without labels is never violating; a
// pod listed in a PDB's disruptedPods is not charged to it; the walk, in the
// budgets' input order, stops at the first exhausted budget, so later PDBs
// are not charged. Every budget charged is appended to *charged, and buf is
// scratch.
func (s *PDBs) violates(pod *v1.Pod, budgets []int32, charged *[]int32, buf *[]int32) bool {
	if len(pod.Labels) == 0 {
		return false
	}
	*buf = s.candidates(pod, *buf)
	for _, i := range *buf {
		d := &s.items[i]
		if !d.selector.Matches(labels.Set(pod.Labels)) {
			continue
		}
		if _, done := d.disrupted[pod.Name]; done {
			continue
		}
		budgets[i]--
		*charged = append(*charged, i)
		if budgets[i] < 0 {
			return true
		}
	}
	return false
}
