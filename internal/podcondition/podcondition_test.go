package podcondition

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSet(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	ready := v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue}
	disrupted := func(status v1.ConditionStatus, reason string, at metav1.Time, gen int64) v1.PodCondition {
		return v1.PodCondition{Type: v1.DisruptionTarget, Status: status, Reason: reason, LastTransitionTime: at, ObservedGeneration: gen}
	}
	cases := []struct {
		name        string
		before      []v1.PodCondition
		cond        v1.PodCondition
		want        []v1.PodCondition
		wantChanged bool
	}{
		{"appended when absent", []v1.PodCondition{ready}, disrupted("True", "R", t1, 0),
			[]v1.PodCondition{ready, disrupted("True", "R", t1, 0)}, true},
		{"same status: the old time stays, nothing changes", []v1.PodCondition{disrupted("True", "R", t0, 0), ready}, disrupted("True", "R", t1, 0),
			[]v1.PodCondition{disrupted("True", "R", t0, 0), ready}, false},
		{"observedGeneration alone is no change, but is written", []v1.PodCondition{disrupted("True", "R", t0, 1)}, disrupted("True", "R", t1, 2),
			[]v1.PodCondition{disrupted("True", "R", t0, 2)}, false},
		{"another reason", []v1.PodCondition{disrupted("True", "R", t0, 0)}, disrupted("True", "S", t1, 0),
			[]v1.PodCondition{disrupted("True", "S", t0, 0)}, true},
		{"another status: the new time", []v1.PodCondition{disrupted("False", "R", t0, 0)}, disrupted("True", "R", t1, 0),
			[]v1.PodCondition{disrupted("True", "R", t1, 0)}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status := v1.PodStatus{Conditions: tc.before}
			assert.Equal(t, tc.wantChanged, Set(&status, tc.cond))
			assert.Equal(t, tc.want, status.Conditions)
		})
	}
}
