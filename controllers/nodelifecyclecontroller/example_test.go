package nodelifecyclecontroller_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	coordlisters "k8s.io/client-go/listers/coordination/v1"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/controllers/nodelifecyclecontroller"
)

// A controller embedded on a fake clientset and a fake clock: of two nodes,
// one renews its Lease and the other stops heartbeating; once the grace
// period (50 s by default) has passed the controller marks the silent one
// Unknown, marks its pod not ready, taints it unreachable, and records
// upstream's events. (Were every node silent, the controller would taint
// none: it takes a whole cluster down for its own network's failure.)
func Example() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	newNode := func(name string) *v1.Node {
		return &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{
				Type: v1.NodeReady, Status: v1.ConditionTrue, LastHeartbeatTime: metav1.NewTime(start),
			}}},
		}
	}
	lease := func(renewed time.Time) *coordinationv1.Lease {
		t := metav1.NewMicroTime(renewed)
		return &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: v1.NamespaceNodeLease, Name: "node-2"},
			Spec:       coordinationv1.LeaseSpec{RenewTime: &t},
		}
	}
	client := fake.NewClientset(
		newNode("node-1"), newNode("node-2"), lease(start),
		&v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
			Spec:       v1.PodSpec{NodeName: "node-1"},
			Status:     v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}},
		},
	)
	factory := informers.NewSharedInformerFactory(client, 0)
	clock := clocktesting.NewFakeClock(start)
	recorder := record.NewFakeRecorder(10)
	c, err := nodelifecyclecontroller.New(nodelifecyclecontroller.Config{
		Client:   client,
		Nodes:    factory.Core().V1().Nodes(),
		Pods:     factory.Core().V1().Pods(),
		Leases:   factory.Coordination().V1().Leases(),
		Recorder: recorder,
		Clock:    clock,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()

	// node-1 never heartbeats again; node-2 renews its Lease every 10 s.
	// Time passes a second at a time until node-1 carries its NoExecute
	// taint (for at most 10 minutes of fake time and 10 s of real time).
	tainted := func() bool {
		n, err := client.CoreV1().Nodes().Get(ctx, "node-1", metav1.GetOptions{})
		return err == nil && slices.ContainsFunc(n.Spec.Taints, func(t v1.Taint) bool {
			return t.Key == v1.TaintNodeUnreachable && t.Effect == v1.TaintEffectNoExecute
		})
	}
	leases := factory.Coordination().V1().Leases().Lister().Leases(v1.NamespaceNodeLease)
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < 600 && !tainted() && time.Now().Before(deadline); i++ {
		clock.Step(time.Second)
		if i%10 == 9 {
			renewed := clock.Now()
			_, _ = client.CoordinationV1().Leases(v1.NamespaceNodeLease).Update(ctx, lease(renewed), metav1.UpdateOptions{})
			for !leaseSeen(leases, renewed) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond) // until the controller's cache has it
			}
		}
		time.Sleep(time.Millisecond) // let the controller's goroutines see the tick
	}
	cancel()
	factory.Shutdown()
	if err := <-done; err != nil {
		fmt.Println(err)
	}

	node, _ := client.CoreV1().Nodes().Get(context.Background(), "node-1", metav1.GetOptions{})
	fmt.Println("node-1 Ready:", node.Status.Conditions[0].Status)
	var taints []string
	for _, t := range node.Spec.Taints {
		taints = append(taints, t.ToString())
	}
	slices.Sort(taints)
	fmt.Println("node-1 taints:", taints)
	pod, _ := client.CoreV1().Pods("default").Get(context.Background(), "web", metav1.GetOptions{})
	fmt.Println("web Ready:", pod.Status.Conditions[0].Status)
	for len(recorder.Events) > 0 {
		fmt.Println("event:", <-recorder.Events)
	}
	// Output:
	// node-1 Ready: Unknown
	// node-1 taints: [node.kubernetes.io/unreachable:NoExecute node.kubernetes.io/unreachable:NoSchedule]
	// web Ready: False
	// event: Normal RegisteredNode Node node-1 event: Registered Node node-1 in Controller
	// event: Normal RegisteredNode Node node-2 event: Registered Node node-2 in Controller
	// event: Normal NodeNotReady Node node-1 status is now: NodeNotReady
	// event: Warning NodeNotReady Node is not ready
}

// leaseSeen reports whether the lease cache holds node-2's Lease renewed at t.
func leaseSeen(leases coordlisters.LeaseNamespaceLister, t time.Time) bool {
	l, err := leases.Get("node-2")
	return err == nil && l.Spec.RenewTime.Time.Equal(t)
}
