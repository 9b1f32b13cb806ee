package nodelifecyclecontroller

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/nodelifecycle"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// TestSwapTaints writes a taint swap as the API server stores it, with
// upstream's requests: a read from the API server's cache, a strategic merge
// patch of the taints that carries the resourceVersion read, and after a
// conflict a read from etcd and the patch again.
func TestSwapTaints(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: "7"}, Spec: v1.NodeSpec{Taints: []v1.Taint{
		{Key: "user", Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute},
	}}}
	client := fake.NewClientset(node)
	conflicts := 1
	var reads []string
	var patches []string
	client.PrependReactor("get", "nodes", func(a clienttesting.Action) (bool, runtime.Object, error) {
		reads = append(reads, a.(clienttesting.GetActionImpl).GetOptions.ResourceVersion)
		return false, nil, nil
	})
	client.PrependReactor("patch", "nodes", func(a clienttesting.Action) (bool, runtime.Object, error) {
		p := a.(clienttesting.PatchAction)
		if p.GetPatchType() != types.StrategicMergePatchType {
			t.Errorf("patch type %s, want strategic merge", p.GetPatchType())
		}
		patches = append(patches, string(p.GetPatch()))
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
	if want := []string{"0", ""}; !slices.Equal(reads, want) {
		t.Errorf("reads at resourceVersions %q, want %q (the cache, then etcd)", reads, want)
	}
	for _, p := range patches {
		if !strings.Contains(p, `"resourceVersion":"`) || !strings.Contains(p, `"taints":[`) {
			t.Errorf("patch %s: want the taints and the resourceVersion read", p)
		}
	}
	if len(patches) != 2 {
		t.Errorf("%d patches, want 2 (one refused)", len(patches))
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

// TestSwapTaintsRemovesTheLast: removing a node's only taint removes the
// field, and removing a taint the node no longer has writes nothing (as
// upstream's RemoveTaintOffNode, which patches only what it removes).
func TestSwapTaintsRemovesTheLast(t *testing.T) {
	mine := v1.Taint{Key: v1.TaintNodeUnreachable, Effect: v1.TaintEffectNoExecute}
	client := fake.NewClientset(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: v1.NodeSpec{Taints: []v1.Taint{mine}}})
	var patches []string
	client.PrependReactor("patch", "nodes", func(a clienttesting.Action) (bool, runtime.Object, error) {
		patches = append(patches, string(a.(clienttesting.PatchAction).GetPatch()))
		return false, nil, nil
	})
	a := &api{client: client, clock: clocktesting.NewFakeClock(now)}
	s := nodelifecycle.Swap{Remove: []v1.Taint{mine}}
	for range 2 {
		if err := a.SwapTaints(context.Background(), "n", s); err != nil {
			t.Fatal(err)
		}
	}
	if len(patches) != 1 || !strings.Contains(patches[0], `"taints":null`) {
		t.Errorf("patches %q, want one that removes the taints field", patches)
	}
	got, err := client.CoreV1().Nodes().Get(context.Background(), "n", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.Taints) != 0 {
		t.Errorf("taints %v, want none", got.Spec.Taints)
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
