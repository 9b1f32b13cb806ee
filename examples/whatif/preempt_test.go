package main

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/evictkit/eviction/examples/whatif/internal/gensnap"
)

// The budget index names, for every pod, the budgets a scan of every budget
// names, in the same order: on a generated cluster's PDBs (matchLabels) and
// on selectors of every other form (expressions only, both, empty, nil,
// invalid, another namespace).
func TestBudgetIndexMatchesAScanOfEveryBudget(t *testing.T) {
	s := generated(t, gensnap.Config{Nodes: 60, Zones: 3, PodsPerNode: 10})
	pdb := func(ns, name string, sel *metav1.LabelSelector) *policyv1.PodDisruptionBudget {
		return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel}}
	}
	exists := func(key string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpExists}
	}
	pdbs := slices.Clone(s.PDBs)
	var model *corev1.Pod // the pod the hand-made budgets are made for
	if len(pdbs) == 0 {
		t.Fatal("no PDBs generated: the test proves nothing")
	}
	for _, p := range s.Pods {
		if len(p.Labels) == 0 {
			continue
		}
		model = p
		var key string
		for k := range p.Labels {
			key = max(key, k)
		}
		pdbs = append(pdbs,
			pdb(p.Namespace, "expressions", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{exists(key)}}),
			pdb(p.Namespace, "both", &metav1.LabelSelector{MatchLabels: map[string]string{key: p.Labels[key]},
				MatchExpressions: []metav1.LabelSelectorRequirement{exists(key)}}),
			pdb(p.Namespace, "both, one not met", &metav1.LabelSelector{MatchLabels: map[string]string{key: p.Labels[key]},
				MatchExpressions: []metav1.LabelSelectorRequirement{exists("no-such-label")}}),
			pdb(p.Namespace, "empty", &metav1.LabelSelector{}),
			pdb(p.Namespace, "nil", nil),
			pdb(p.Namespace, "invalid", &metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "x"}}),
			pdb("elsewhere", "same-labels", &metav1.LabelSelector{MatchLabels: p.Labels}),
		)
		break
	}
	scan := func(p *corev1.Pod) []string {
		var out []string
		for _, b := range pdbs {
			sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
			if err != nil || sel.Empty() || len(p.Labels) == 0 || b.Namespace != p.Namespace {
				continue
			}
			if sel.Matches(labels.Set(p.Labels)) {
				out = append(out, b.Namespace+"/"+b.Name)
			}
		}
		return out
	}
	idx := indexBudgets(pdbs)
	matched := 0
	for _, p := range s.Pods {
		got, want := idx.selecting(p), scan(p)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", podKey(p), got, want)
		}
		if len(want) > 0 {
			matched++
		}
		if p == model && !slices.ContainsFunc(want, func(n string) bool { return strings.HasSuffix(n, "/both") }) {
			t.Errorf("%s: %q: the hand-made budgets made for it do not match it", podKey(p), want)
		}
	}
	if matched == 0 {
		t.Error("no pod matched a budget: the test proves nothing")
	}
}
