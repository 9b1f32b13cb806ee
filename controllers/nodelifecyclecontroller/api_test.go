package nodelifecyclecontroller

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/nodelifecycle"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// TestSwapTaints writes a taint swap as the API server stores it, and reads
// the node again after a conflict.
func TestSwapTaints(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: v1.NodeSpec{Taints: []v1.Taint{
		{Key: "user", Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute},
	}}}
	client := fake.NewClientset(node)
	conflicts := 1
	client.PrependReactor("update", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			conflicts--
			return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, "n", nil)
		}
		return false, nil, nil
	})
	a := &api{client: client, clock: clocktesting.NewFakeClock(now)}
	s := nodelifecycle.Swap{
		Add:    []v1.Taint{{Key: v1.TaintNodeUnreachable, Effect: v1.TaintEffectNoExecute}},
		Remove: []v1.Taint{{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute}},
	}
	if err := a.SwapTaints(context.Background(), "n", s); err != nil {
		t.Fatal(err)
	}
	got, err := client.CoreV1().Nodes().Get(context.Background(), "n", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := s.Apply(node.Spec.Taints, now)
	if len(got.Spec.Taints) != len(want) {
		t.Fatalf("taints = %v, want %v", got.Spec.Taints, want)
	}
	for i := range want {
		if !got.Spec.Taints[i].MatchTaint(&want[i]) || !got.Spec.Taints[i].TimeAdded.Equal(want[i].TimeAdded) {
			t.Errorf("taint %d = %v, want %v", i, got.Spec.Taints[i], want[i])
		}
	}
}

// TestGetLease: NotFound is an answer, not an error.
func TestGetLease(t *testing.T) {
	a := &api{client: fake.NewClientset(), clock: clocktesting.NewFakeClock(now)}
	l, err := a.GetLease(context.Background(), "n")
	if err != nil || l.Found {
		t.Errorf("GetLease of a missing Lease = %+v, %v; want not found, nil", l, err)
	}
}
