package nodelifecyclecontroller

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/nodelifecycle"
)

// A node with ten thousand taints of others: the controller's swap of its
// own taint keeps every other taint, in order, and touches nothing else;
// the NoSchedule pass wants only its own taints. The work is linear in the
// node's taints for each taint swapped.
func TestThousandsOfTaintsOfOthers(t *testing.T) {
	const many = 10000
	var others []v1.Taint
	for i := range many {
		effect := []v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute}[i%3]
		others = append(others, v1.Taint{Key: fmt.Sprintf("example.com/t-%d", i), Value: "v", Effect: effect})
	}
	mine := v1.Taint{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute}
	list := append(append(append([]v1.Taint(nil), others[:many/2]...), mine), others[many/2:]...)
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: v1.NodeSpec{Taints: list}}
	client := fake.NewClientset(node)
	a := &api{client: client, clock: clocktesting.NewFakeClock(now)}
	s := nodelifecycle.Swap{
		Add:    []v1.Taint{{Key: v1.TaintNodeUnreachable, Effect: v1.TaintEffectNoExecute}},
		Remove: []v1.Taint{mine},
	}
	if err := a.SwapTaints(context.Background(), "n", s); err != nil {
		t.Fatal(err)
	}
	got, err := client.CoreV1().Nodes().Get(context.Background(), "n", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.Taints) != many+1 {
		t.Fatalf("%d taints, want the %d others and unreachable", len(got.Spec.Taints), many)
	}
	for i, o := range others {
		if g := got.Spec.Taints[i]; g.Key != o.Key || g.Value != o.Value || g.Effect != o.Effect || g.TimeAdded != nil {
			t.Fatalf("taint %d = %v, want %v untouched", i, g, o)
		}
	}
	if last := got.Spec.Taints[many]; last.Key != v1.TaintNodeUnreachable || last.Effect != v1.TaintEffectNoExecute || !last.TimeAdded.Equal(&metav1.Time{Time: now}) {
		t.Errorf("last taint %v, want unreachable NoExecute added now", last)
	}

	// Ready: the NoSchedule pass adds nothing and removes nothing of theirs.
	node.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}
	if add, remove := nodelifecycle.NoScheduleTaints(node); len(add) != 0 || len(remove) != 0 {
		t.Errorf("NoSchedule pass on a ready node with others' taints: add %v, remove %v; want nothing", add, remove)
	}
}
