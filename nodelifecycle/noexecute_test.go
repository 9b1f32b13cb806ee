package nodelifecycle

import (
	"testing"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
)

// TestNoExecuteAction: the NoExecute decision for each Ready status and taint combination.
func TestNoExecuteAction(t *testing.T) {
	notReady, unreachable := ne(v1.TaintNodeNotReady), ne(v1.TaintNodeUnreachable)
	status := func(s v1.ConditionStatus) *v1.NodeCondition { return ptr(readyCond(s, t0, t0)) }
	cases := []struct {
		name  string
		taint []v1.Taint
		ready *v1.NodeCondition
		want  Action
	}{
		{"False with unreachable: swap at once", []v1.Taint{unreachable}, status(v1.ConditionFalse),
			Action{Kind: SwapToNotReady, Swap: Swap{Add: []v1.Taint{notReady}, Remove: []v1.Taint{unreachable}}}},
		{"Unknown with not-ready: swap at once", []v1.Taint{notReady}, status(v1.ConditionUnknown),
			Action{Kind: SwapToUnreachable, Swap: Swap{Add: []v1.Taint{unreachable}, Remove: []v1.Taint{notReady}}}},
		{"False, no taints: enqueue clearing the tombstone", nil, status(v1.ConditionFalse),
			Action{Kind: Enqueue, ClearTombstone: true}},
		{"False with not-ready: enqueue without clearing", []v1.Taint{notReady}, status(v1.ConditionFalse),
			Action{Kind: Enqueue}},
		{"Unknown, no taints: enqueue clearing the tombstone", nil, status(v1.ConditionUnknown),
			Action{Kind: Enqueue, ClearTombstone: true}},
		{"Unknown with unreachable: enqueue without clearing", []v1.Taint{unreachable}, status(v1.ConditionUnknown),
			Action{Kind: Enqueue}},
		{"True: untaint whatever is there", []v1.Taint{ns("x"), unreachable}, status(v1.ConditionTrue),
			Action{Kind: Untaint, Swap: Swap{Remove: []v1.Taint{unreachable}}}},
		{"True, nothing to remove: untaint still dequeues", nil, status(v1.ConditionTrue),
			Action{Kind: Untaint}},
		{"nil Ready: nothing", []v1.Taint{notReady}, nil, Action{}},
		{"unknown status string: nothing", nil, status("Maybe"), Action{}},
		{"a NoSchedule unreachable taint does not count", []v1.Taint{ns(v1.TaintNodeUnreachable)}, status(v1.ConditionFalse),
			Action{Kind: Enqueue, ClearTombstone: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := withTaints(mkNode("n", t0), tc.taint...)
			assert.Equal(t, tc.want, NoExecuteAction(n, tc.ready))
		})
	}
	both := withTaints(mkNode("n", t0), notReady, unreachable)
	assert.Equal(t, Action{Kind: Untaint, Swap: Swap{Remove: []v1.Taint{unreachable, notReady}}}, MarkReachable(both))
	assert.Equal(t, Action{Kind: Untaint}, MarkReachable(nil))
	assert.Equal(t, Action{Kind: Enqueue, ClearTombstone: true}, NoExecuteAction(nil, status(v1.ConditionFalse)))
}

func TestNoExecuteTaintChanges(t *testing.T) {
	notReady, unreachable := ne(v1.TaintNodeNotReady), ne(v1.TaintNodeUnreachable)
	cases := []struct {
		name        string
		taint       []v1.Taint
		ready       v1.ConditionStatus
		add, remove []v1.Taint
	}{
		{"False, none", nil, v1.ConditionFalse, []v1.Taint{notReady}, nil},
		{"False, unreachable", []v1.Taint{unreachable}, v1.ConditionFalse, []v1.Taint{notReady}, []v1.Taint{unreachable}},
		{"False, already not-ready", []v1.Taint{notReady}, v1.ConditionFalse, nil, nil},
		{"Unknown, not-ready", []v1.Taint{notReady}, v1.ConditionUnknown, []v1.Taint{unreachable}, []v1.Taint{notReady}},
		{"True, both", []v1.Taint{notReady, unreachable}, v1.ConditionTrue, nil, []v1.Taint{unreachable, notReady}},
		{"True, none", nil, v1.ConditionTrue, nil, nil},
		{"other status", []v1.Taint{notReady, unreachable}, "x", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			add, remove := NoExecuteTaintChanges(withTaints(mkNode("n", t0), tc.taint...), ptr(readyCond(tc.ready, t0, t0)))
			assert.Equal(t, tc.add, add)
			assert.Equal(t, tc.remove, remove)
		})
	}
	add, remove := NoExecuteTaintChanges(mkNode("n", t0), nil)
	assert.Nil(t, add)
	assert.Nil(t, remove)
	add, remove = NoExecuteTaintChanges(nil, ptr(readyCond(v1.ConditionUnknown, t0, t0)))
	assert.Equal(t, []v1.Taint{unreachable}, add, "a nil node has no taints")
	assert.Nil(t, remove)
	add, remove = NoExecuteTaintChanges(nil, ptr(readyCond(v1.ConditionTrue, t0, t0)))
	assert.Nil(t, add)
	assert.Nil(t, remove)
}

// TestTaintQueued: what a queued node gets when its zone's token comes.
func TestTaintQueued(t *testing.T) {
	notReady, unreachable := ne(v1.TaintNodeNotReady), ne(v1.TaintNodeUnreachable)
	cases := []struct {
		name string
		node *v1.Node
		want QueueStep
	}{
		{"gone from the cache: done", nil, QueueStep{Done: true}},
		{"no Ready: retry after 50ms", mkNode("n", t0), QueueStep{RetryAfter: RetryQueued}},
		{"False: not-ready in, unreachable out", mkNode("n", t0, readyCond(v1.ConditionFalse, t0, t0)),
			QueueStep{Swap: Swap{Add: []v1.Taint{notReady}, Remove: []v1.Taint{unreachable}}}},
		{"Unknown: unreachable in, not-ready out", mkNode("n", t0, readyCond(v1.ConditionUnknown, t0, t0)),
			QueueStep{Swap: Swap{Add: []v1.Taint{unreachable}, Remove: []v1.Taint{notReady}}}},
		{"True again: done without tainting", mkNode("n", t0, readyCond(v1.ConditionTrue, t0, t0)), QueueStep{Done: true}},
		{"another status string: done without tainting", mkNode("n", t0, readyCond("Maybe", t0, t0)), QueueStep{Done: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, TaintQueued(tc.node))
		})
	}
}

func TestActionKindString(t *testing.T) {
	for k, s := range map[ActionKind]string{NoAction: "NoAction", SwapToNotReady: "SwapToNotReady", SwapToUnreachable: "SwapToUnreachable",
		Enqueue: "Enqueue", Untaint: "Untaint", ActionKind(7): "ActionKind(7)"} {
		assert.Equal(t, s, k.String())
	}
}
