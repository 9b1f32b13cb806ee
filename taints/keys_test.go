package taints

import (
	"testing"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
)

func TestKeysEqualAPI(t *testing.T) {
	assert.Equal(t, "node.kubernetes.io/not-ready", KeyNotReady)
	assert.Equal(t, v1.TaintNodeUnreachable, KeyUnreachable)
	assert.Equal(t, v1.TaintNodeUnschedulable, KeyUnschedulable)
	assert.Equal(t, v1.TaintNodeMemoryPressure, KeyMemoryPressure)
	assert.Equal(t, v1.TaintNodeDiskPressure, KeyDiskPressure)
	assert.Equal(t, v1.TaintNodeNetworkUnavailable, KeyNetworkUnavailable)
	assert.Equal(t, v1.TaintNodePIDPressure, KeyPIDPressure)
	assert.Equal(t, v1.TaintNodeOutOfService, KeyOutOfService)
}

func TestForCondition(t *testing.T) {
	tests := []struct {
		cond    v1.NodeConditionType
		status  v1.ConditionStatus
		wantKey string
	}{
		{v1.NodeReady, v1.ConditionFalse, KeyNotReady},
		{v1.NodeReady, v1.ConditionUnknown, KeyUnreachable},
		{v1.NodeReady, v1.ConditionTrue, ""},
		{v1.NodeMemoryPressure, v1.ConditionTrue, KeyMemoryPressure},
		{v1.NodeMemoryPressure, v1.ConditionUnknown, ""},
		{v1.NodeMemoryPressure, v1.ConditionFalse, ""},
		{v1.NodeDiskPressure, v1.ConditionTrue, KeyDiskPressure},
		{v1.NodePIDPressure, v1.ConditionTrue, KeyPIDPressure},
		{v1.NodePIDPressure, v1.ConditionUnknown, ""},
		{v1.NodeNetworkUnavailable, v1.ConditionTrue, KeyNetworkUnavailable},
		{v1.NodeNetworkUnavailable, v1.ConditionFalse, ""},
		{v1.NodeReady, "false", ""},
		{v1.NodeReady, "", ""},
		{"Bogus", v1.ConditionTrue, ""},
	}
	for _, tc := range tests {
		t.Run(string(tc.cond)+"="+string(tc.status), func(t *testing.T) {
			got, ok := ForCondition(tc.cond, tc.status)
			if tc.wantKey == "" {
				assert.False(t, ok)
				assert.Equal(t, v1.Taint{}, got)
				return
			}
			assert.True(t, ok)
			assert.Equal(t, v1.Taint{Key: tc.wantKey, Effect: noSched}, got)
			cond, ok := ConditionForKey(tc.wantKey)
			assert.True(t, ok)
			assert.Equal(t, tc.cond, cond)
			assert.True(t, IsConditionTaint(&got))
		})
	}
}

func TestConditionTaints(t *testing.T) {
	// The NoSchedule taints of a node with Ready=False + MemoryPressure=True + unschedulable.
	node := &v1.Node{
		Spec: v1.NodeSpec{Unschedulable: true},
		Status: v1.NodeStatus{Conditions: []v1.NodeCondition{
			{Type: v1.NodeMemoryPressure, Status: v1.ConditionTrue},
			{Type: v1.NodeDiskPressure, Status: v1.ConditionFalse},
			{Type: v1.NodeReady, Status: v1.ConditionFalse},
		}},
	}
	assert.Equal(t, []v1.Taint{
		{Key: KeyMemoryPressure, Effect: noSched},
		{Key: KeyNotReady, Effect: noSched},
		{Key: KeyUnschedulable, Effect: noSched},
	}, ConditionTaints(node), "condition order, then unschedulable")
	assert.Nil(t, ConditionTaints(&v1.Node{}))
	assert.Nil(t, ConditionTaints(nil))
}

func TestIsConditionTaint(t *testing.T) {
	assert.True(t, IsConditionTaint(&v1.Taint{Key: KeyUnschedulable, Effect: noSched}))
	assert.True(t, IsConditionTaint(&v1.Taint{Key: KeyMemoryPressure, Value: "x", Effect: noSched}))
	assert.False(t, IsConditionTaint(&v1.Taint{Key: KeyNotReady, Effect: noExec}), "NoExecute is not managed by the NoSchedule pass")
	assert.False(t, IsConditionTaint(&v1.Taint{Key: KeyOutOfService, Effect: noSched}))
	assert.False(t, IsConditionTaint(nil))
	_, ok := ConditionForKey(KeyUnschedulable)
	assert.False(t, ok)
}

func TestNoExecuteTemplates(t *testing.T) {
	assert.Equal(t, v1.Taint{Key: KeyNotReady, Effect: noExec}, NotReadyNoExecute())
	assert.Equal(t, v1.Taint{Key: KeyUnreachable, Effect: noExec}, UnreachableNoExecute())
	// The NoExecute side: Ready=Unknown with not-ready:NoExecute present swaps
	// to unreachable at once; as list operations that is add one, remove the other.
	node := []v1.Taint{{Key: "other", Effect: noSched}, NotReadyNoExecute()}
	unreachable, notReady := UnreachableNoExecute(), NotReadyNoExecute()
	got, added := AddOrUpdate(node, &unreachable)
	assert.True(t, added)
	got, removed := Remove(got, &notReady)
	assert.True(t, removed)
	assert.Equal(t, []v1.Taint{{Key: "other", Effect: noSched}, {Key: KeyUnreachable, Effect: noExec}}, got)
}

func TestValidEffect(t *testing.T) {
	for _, e := range Effects() {
		assert.True(t, ValidEffect(e))
	}
	for _, e := range []v1.TaintEffect{"", "noschedule", "NoScheduleNoAdmit", "NoExecute "} {
		assert.False(t, ValidEffect(e), "%q", e)
	}
}
