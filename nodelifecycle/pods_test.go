package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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

func podIn(ns, name, node string, labels map[string]string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:       v1.PodSpec{NodeName: node},
	}
}
