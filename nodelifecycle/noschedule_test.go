package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ns(key string) v1.Taint { return v1.Taint{Key: key, Effect: v1.TaintEffectNoSchedule} }
func ne(key string) v1.Taint { return v1.Taint{Key: key, Effect: v1.TaintEffectNoExecute} }

func withTaints(n *v1.Node, ts ...v1.Taint) *v1.Node {
	n.Spec.Taints = ts
	return n
}

// TestNoScheduleTaints: condition taints follow the conditions and spec.unschedulable; other
// taints are never touched.
func TestNoScheduleTaints(t *testing.T) {
	unsched := func(n *v1.Node) *v1.Node { n.Spec.Unschedulable = true; return n }
	cases := []struct {
		name        string
		node        *v1.Node
		add, remove []v1.Taint
	}{
		{
			name: "not ready, memory pressure, cordoned, no taints",
			node: unsched(mkNode("n", t0, readyCond(v1.ConditionFalse, t0, t0), cond(v1.NodeMemoryPressure, v1.ConditionTrue, t0, t0))),
			add:  []v1.Taint{ns(v1.TaintNodeNotReady), ns(v1.TaintNodeMemoryPressure), ns(v1.TaintNodeUnschedulable)},
		},
		{
			name: "ready again: stale condition taints removed, others untouched",
			node: withTaints(mkNode("n", t0, readyCond(v1.ConditionTrue, t0, t0)),
				ns(v1.TaintNodeMemoryPressure), ns(v1.TaintNodeUnreachable), ns("foo"), ne(v1.TaintNodeNotReady)),
			remove: []v1.Taint{ns(v1.TaintNodeMemoryPressure), ns(v1.TaintNodeUnreachable)},
		},
		{
			name: "memory pressure Unknown gives no taint",
			node: mkNode("n", t0, readyCond(v1.ConditionTrue, t0, t0), cond(v1.NodeMemoryPressure, v1.ConditionUnknown, t0, t0)),
		},
		{
			name: "memory pressure False gives no taint",
			node: mkNode("n", t0, readyCond(v1.ConditionTrue, t0, t0), cond(v1.NodeMemoryPressure, v1.ConditionFalse, t0, t0)),
		},
		{
			name: "an existing taint with a value counts as present",
			node: withTaints(mkNode("n", t0, cond(v1.NodeMemoryPressure, v1.ConditionTrue, t0, t0)),
				v1.Taint{Key: v1.TaintNodeMemoryPressure, Value: "x", Effect: v1.TaintEffectNoSchedule}),
		},
		{
			name: "Ready Unknown, every pressure, network unavailable; in condition order",
			node: mkNode("n", t0, cond(v1.NodeNetworkUnavailable, v1.ConditionTrue, t0, t0), cond(v1.NodePIDPressure, v1.ConditionTrue, t0, t0),
				readyCond(v1.ConditionUnknown, t0, t0), cond(v1.NodeDiskPressure, v1.ConditionTrue, t0, t0)),
			add: []v1.Taint{ns(v1.TaintNodeNetworkUnavailable), ns(v1.TaintNodePIDPressure), ns(v1.TaintNodeUnreachable), ns(v1.TaintNodeDiskPressure)},
		},
		{
			name: "uncordoned: unschedulable removed; a PreferNoSchedule one is not managed",
			node: withTaints(mkNode("n", t0), ns(v1.TaintNodeUnschedulable),
				v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectPreferNoSchedule}),
			remove: []v1.Taint{ns(v1.TaintNodeUnschedulable)},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.node.DeepCopy()
			add, remove := NoScheduleTaints(tc.node)
			assert.Equal(t, tc.add, add)
			assert.Equal(t, tc.remove, remove)
			assert.Equal(t, before, tc.node, "node not modified")
		})
	}
	add, remove := NoScheduleTaints(nil)
	assert.Nil(t, add)
	assert.Nil(t, remove)
}

func TestSwapApply(t *testing.T) {
	old := metav1.NewTime(t0)
	list := []v1.Taint{ns("foo"), {Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute, TimeAdded: &old}, ne(v1.TaintNodeUnreachable)}
	before := append([]v1.Taint(nil), list...)
	now := at(time.Minute)

	got := Swap{Add: []v1.Taint{ne(v1.TaintNodeNotReady)}, Remove: []v1.Taint{ne(v1.TaintNodeUnreachable)}}.Apply(list, now)
	stamp := metav1.NewTime(now)
	assert.Equal(t, []v1.Taint{ns("foo"), {Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute, TimeAdded: &stamp}}, got,
		"re-adding refreshes TimeAdded in place, then the opposite taint goes")
	assert.Equal(t, before, list, "input untouched")

	got = Swap{Add: []v1.Taint{ns("a"), ns("b")}}.Apply(nil, now)
	assert.Equal(t, []v1.Taint{{Key: "a", Effect: v1.TaintEffectNoSchedule, TimeAdded: &stamp}, {Key: "b", Effect: v1.TaintEffectNoSchedule, TimeAdded: &stamp}}, got)
	assert.NotSame(t, got[0].TimeAdded, got[1].TimeAdded, "each taint owns its time")

	empty := Swap{}
	assert.True(t, empty.Empty())
	cp := empty.Apply(list, now)
	assert.Equal(t, list, cp)
	cp[0].Key = "changed"
	assert.Equal(t, "foo", list[0].Key, "a copy even when nothing changes")
}
