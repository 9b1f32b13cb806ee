package tainteviction_test

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/tainteviction"
	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/tolerations"
)

// A node stops responding; of its three pods, one tolerates the taint for a
// minute, one forever, and one not at all. The taint goes away after two
// minutes, too late for the first. The caller keeps the time, calls Step
// after each event and when Result.Next comes, and carries out the
// evictions Step hands out.
func Example_taintEviction() {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	minute := int64(60)
	pods := []*v1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: v1.PodSpec{NodeName: "node-a",
			Tolerations: []v1.Toleration{{Key: taints.KeyUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &minute}}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent"}, Spec: v1.PodSpec{NodeName: "node-a",
			Tolerations: tolerations.DaemonSet(tolerations.DaemonSetOptions{})}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "batch"}, Spec: v1.PodSpec{NodeName: "node-a"}},
	}
	c := tainteviction.New(tainteviction.PodListerFunc(func(node string) ([]*v1.Pod, error) { return pods, nil }), tainteviction.Options{})
	step := func(now time.Time) time.Time {
		res := c.Step(now)
		for _, e := range res.Events {
			fmt.Printf("%v event %s\n", now.Sub(start), e.Message)
		}
		for _, e := range res.Evictions {
			fmt.Printf("%v event %s\n", now.Sub(start), tainteviction.Marking(e.Pod).Message)
			fmt.Printf("%v evict %v (due %v, %s)\n", now.Sub(start), e.Pod, e.FireAt.Sub(start), taints.Format(e.Taint))
			c.Done(e) // deleted
		}
		return res.Next
	}

	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}
	_ = c.NodeAdded(start, node)
	unreachable := node.DeepCopy()
	unreachable.Spec.Taints = []v1.Taint{taints.UnreachableNoExecute()}
	_ = c.NodeUpdated(start, node, unreachable)
	next := step(start)
	fmt.Println("next step:", next.Sub(start))
	step(next)

	back := start.Add(2 * time.Minute)
	_ = c.NodeUpdated(back, unreachable, node) // nothing left to cancel
	step(back)
	fmt.Println("scheduled:", c.Len())
	// Output:
	// 0s event Marking for deletion Pod shop/batch
	// 0s evict shop/batch (due 0s, node.kubernetes.io/unreachable:NoExecute)
	// next step: 1m0s
	// 1m0s event Marking for deletion Pod shop/web
	// 1m0s evict shop/web (due 1m0s, node.kubernetes.io/unreachable:NoExecute)
	// scheduled: 0
}

// The status upstream patches onto a pod before deleting it.
func ExampleDisruptedStatus() {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 3}}
	status, changed := tainteviction.DisruptedStatus(pod, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	cond := status.Conditions[0]
	fmt.Println(changed, cond.Type, cond.Status, cond.Reason, cond.ObservedGeneration)
	fmt.Println(cond.Message)
	// Output:
	// true DisruptionTarget True DeletionByTaintManager 3
	// Taint manager: deleting due to NoExecute taint
}

// A pod that tolerates a taint for a minute, then for an hour, then not at all.
func ExampleReconcile() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	node := []v1.Taint{{Key: taints.KeyNotReady, Effect: v1.TaintEffectNoExecute}}
	tolFor := func(s int64) []v1.Toleration {
		return []v1.Toleration{{Key: taints.KeyNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: seconds(s)}}
	}

	// At t0 the pod tolerates the taint for 60 s: schedule the eviction.
	a := tainteviction.Reconcile(tolerations.NoExecuteDecision(node, tolFor(60), tolerations.Options{}), nil, t0)
	fmt.Println(a)

	// 10 s later its toleration grows to an hour: the scheduled eviction is kept.
	scheduled := &tainteviction.Scheduled{CreatedAt: a.CreatedAt, FireAt: a.FireAt}
	fmt.Println(tainteviction.Reconcile(tolerations.NoExecuteDecision(node, tolFor(3600), tolerations.Options{}), scheduled, t0.Add(10*time.Second)))

	// Its toleration is removed: cancel, and evict at once.
	fmt.Println(tainteviction.Reconcile(tolerations.NoExecuteDecision(node, nil, tolerations.Options{}), scheduled, t0.Add(20*time.Second)))
	// Output:
	// add(created 2026-01-01T00:00:00Z, fire 2026-01-01T00:01:00Z)
	// keep
	// cancel, add(created 2026-01-01T00:00:20Z, fire 2026-01-01T00:00:20Z)
}
func seconds(s int64) *int64 { return &s }
