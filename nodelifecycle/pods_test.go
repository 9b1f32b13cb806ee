package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func podIn(ns, name, node string, labels map[string]string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:       v1.PodSpec{NodeName: node},
	}
}

func daemonSet(ns string, sel *metav1.LabelSelector) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ds"}, Spec: appsv1.DaemonSetSpec{Selector: sel}}
}

// TestPlanPodDeletion covers spec case 35.
func TestPlanPodDeletion(t *testing.T) {
	dsLabels := map[string]string{"app": "agent"}
	dss := []*appsv1.DaemonSet{
		daemonSet("kube-system", &metav1.LabelSelector{MatchLabels: dsLabels}),
		daemonSet("default", &metav1.LabelSelector{}), // empty selector matches nothing
		daemonSet("default", nil),                     // nil selector matches nothing
		daemonSet("default", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}), // invalid
	}
	terminating := podIn("default", "terminating", "n0", nil)
	terminating.DeletionGracePeriodSeconds = ptr(int64(30))
	ownedByDS := podIn("default", "owned", "n0", map[string]string{"app": "other"})
	ownedByDS.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "ds", Controller: ptr(true)}}
	alreadyLost := podIn("default", "lost", "n0", nil)
	alreadyLost.Status.Reason = PodReasonNodeLost

	cases := []struct {
		name     string
		pod      *v1.Pod
		fate     PodFate
		nodeLost bool
	}{
		{"case35 plain pod: NodeLost status, then deleted", podIn("default", "plain", "n0", nil), PodDelete, true},
		{"case35 DaemonSet-selected pod in the same namespace: NodeLost, kept", podIn("kube-system", "agent", "n0", dsLabels), PodDaemonSet, true},
		{"case35 terminating pod: kept, remaining", terminating, PodTerminating, true},
		{"case35 pod on another node: untouched", podIn("default", "elsewhere", "n1", nil), PodElsewhere, false},
		{"case35 DaemonSet-selected labels in another namespace: deleted", podIn("default", "agent2", "n0", dsLabels), PodDelete, true},
		{"case35 DaemonSet owner reference without a matching selector: deleted", ownedByDS, PodDelete, true},
		{"case35 reason already NodeLost: no status write", alreadyLost, PodDelete, false},
	}
	var pods []*v1.Pod
	for _, tc := range cases {
		pods = append(pods, tc.pod)
	}
	before := make([]*v1.Pod, len(pods))
	for i, p := range pods {
		before[i] = p.DeepCopy()
	}
	plan := PlanPodDeletion(pods, "n0", dss)
	require.Len(t, plan, len(cases))
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plan[i]
			assert.Same(t, tc.pod, d.Pod)
			assert.Equal(t, tc.fate, d.Fate)
			if !tc.nodeLost {
				assert.Nil(t, d.NodeLost)
				return
			}
			require.NotNil(t, d.NodeLost)
			assert.Equal(t, PodReasonNodeLost, d.NodeLost.Status.Reason)
			assert.Equal(t, "Node n0 which was running pod "+tc.pod.Name+" is unresponsive", d.NodeLost.Status.Message)
		})
	}
	assert.Equal(t, before, pods, "pods not modified")
	assert.Empty(t, PlanPodDeletion(nil, "n0", nil))
	assert.Equal(t, []PodDeletion{{}}, PlanPodDeletion([]*v1.Pod{nil}, "n0", nil))
}

func TestIsDaemonSetPod(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
	cases := []struct {
		name string
		pod  *v1.Pod
		dss  []*appsv1.DaemonSet
		want bool
	}{
		{"selector matches, same namespace", podIn("ns", "p", "n", map[string]string{"app": "a", "x": "y"}), []*appsv1.DaemonSet{daemonSet("ns", sel)}, true},
		{"other namespace", podIn("ns", "p", "n", map[string]string{"app": "a"}), []*appsv1.DaemonSet{daemonSet("other", sel)}, false},
		{"no labels never match", podIn("ns", "p", "n", nil), []*appsv1.DaemonSet{daemonSet("ns", &metav1.LabelSelector{})}, false},
		{"empty selector matches nothing", podIn("ns", "p", "n", map[string]string{"app": "a"}), []*appsv1.DaemonSet{daemonSet("ns", &metav1.LabelSelector{})}, false},
		{"nil DaemonSet and nil pod are ignored", nil, []*appsv1.DaemonSet{nil}, false},
		{"second DaemonSet matches", podIn("ns", "p", "n", map[string]string{"app": "a"}), []*appsv1.DaemonSet{nil, daemonSet("ns", nil), daemonSet("ns", sel)}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, IsDaemonSetPod(tc.pod, tc.dss))
		})
	}
}

func TestMarkPodNotReady(t *testing.T) {
	now := at(time.Minute)
	withConds := func(cs ...v1.PodCondition) *v1.Pod {
		p := podIn("default", "p", "n1", nil)
		p.Status.Conditions = cs
		return p
	}
	old := mt(t0)
	cases := []struct {
		name    string
		pod     *v1.Pod
		node    string
		changed bool
		want    []v1.PodCondition
	}{
		{"ready pod: False, transition now, reason kept", withConds(
			v1.PodCondition{Type: v1.PodScheduled, Status: tTrue},
			v1.PodCondition{Type: v1.PodReady, Status: tTrue, Reason: "r", LastTransitionTime: old, LastProbeTime: old}),
			"n1", true, []v1.PodCondition{
				{Type: v1.PodScheduled, Status: tTrue},
				{Type: v1.PodReady, Status: tFalse, Reason: "r", LastTransitionTime: mt(now), LastProbeTime: old}}},
		{"Unknown becomes False too", withConds(v1.PodCondition{Type: v1.PodReady, Status: tUnknown}), "n1", true,
			[]v1.PodCondition{{Type: v1.PodReady, Status: tFalse, LastTransitionTime: mt(now)}}},
		{"already not ready: no write", withConds(v1.PodCondition{Type: v1.PodReady, Status: tFalse, LastTransitionTime: old}), "n1", false, nil},
		{"no Ready condition: untouched", withConds(v1.PodCondition{Type: v1.PodScheduled, Status: tTrue}), "n1", false, nil},
		{"another node: skipped", withConds(v1.PodCondition{Type: v1.PodReady, Status: tTrue}), "n2", false, nil},
		{"only the first Ready condition counts", withConds(
			v1.PodCondition{Type: v1.PodReady, Status: tFalse},
			v1.PodCondition{Type: v1.PodReady, Status: tTrue}), "n1", false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.pod.DeepCopy()
			got, changed := MarkPodNotReady(tc.pod, tc.node, now)
			assert.Equal(t, tc.changed, changed)
			assert.Equal(t, before, tc.pod, "input untouched")
			if !changed {
				assert.Nil(t, got)
				return
			}
			assert.Equal(t, tc.want, got.Status.Conditions)
		})
	}
	got, changed := MarkPodNotReady(nil, "n1", now)
	assert.Nil(t, got)
	assert.False(t, changed)
}

func TestPodBinding(t *testing.T) {
	a, b, none := podIn("d", "p", "a", nil), podIn("d", "p", "b", nil), podIn("d", "p", "", nil)
	assert.True(t, PodBindingChanged(nil, a), "added bound")
	assert.True(t, PodBindingChanged(none, a), "scheduled")
	assert.True(t, PodBindingChanged(a, b), "moved")
	assert.False(t, PodBindingChanged(a, a.DeepCopy()))
	assert.False(t, PodBindingChanged(nil, none))
	assert.False(t, PodBindingChanged(a, nil))

	_, _, ok := PodBoundToNode(nil)
	assert.False(t, ok, "no probe")
	_, _, ok = PodBoundToNode(&Probe{})
	assert.False(t, ok, "no saved Ready")
	r, mark, ok := PodBoundToNode(&Probe{Ready: ptr(readyCond(tTrue, t0, t0))})
	assert.Equal(t, []any{tTrue, false, true}, []any{r, mark, ok})
	r, mark, ok = PodBoundToNode(&Probe{Ready: ptr(readyCond(tUnknown, t0, t0))})
	assert.Equal(t, []any{tUnknown, true, true}, []any{r, mark, ok})
}

func TestPodFateString(t *testing.T) {
	for f, s := range map[PodFate]string{PodElsewhere: "Elsewhere", PodDelete: "Delete", PodTerminating: "Terminating", PodDaemonSet: "DaemonSet", PodFate(8): "PodFate(8)"} {
		assert.Equal(t, s, f.String())
	}
}
