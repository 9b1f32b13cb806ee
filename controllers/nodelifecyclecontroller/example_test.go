package nodelifecyclecontroller_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
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
	// tainted returns node-1 once it carries its NoExecute taint. (The
	// example keeps that copy: the fake clientset keeps no resourceVersions,
	// so a taint written at the same time as another may be lost there,
	// where an API server would have the second writer retry.)
	var node *v1.Node
	tainted := func() bool {
		n, err := client.CoreV1().Nodes().Get(ctx, "node-1", metav1.GetOptions{})
		if err == nil && slices.ContainsFunc(n.Spec.Taints, func(t v1.Taint) bool { return t.Effect == v1.TaintEffectNoExecute }) {
			node = n
		}
		return node != nil
	}
	// node-1 never heartbeats again; node-2 renews its Lease every 10 s.
	// Time passes a second at a time until node-1 is tainted (for at most
	// 10 minutes of fake time and 10 s of real time).
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < 600 && !tainted() && time.Now().Before(deadline); i++ {
		clock.Step(time.Second)
		if i%10 == 9 {
			_, _ = client.CoordinationV1().Leases(v1.NamespaceNodeLease).Update(ctx, lease(clock.Now()), metav1.UpdateOptions{})
		}
		time.Sleep(time.Millisecond) // let the controller's goroutines see the tick
		// Before time goes on, the controller's caches catch up with what
		// it and the Lease renewal wrote.
		for !caughtUp(ctx, client, factory) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	cancel()
	factory.Shutdown()
	if err := <-done; err != nil {
		fmt.Println(err)
	}

	if node == nil {
		fmt.Println("node-1 never tainted NoExecute")
		return
	}
	fmt.Println("node-1 Ready:", node.Status.Conditions[0].Status)
	for _, t := range node.Spec.Taints {
		if t.Effect == v1.TaintEffectNoExecute {
			fmt.Println("node-1 taint:", t.ToString())
		}
	}
	pod, _ := client.CoreV1().Pods("default").Get(context.Background(), "web", metav1.GetOptions{})
	fmt.Println("web Ready:", pod.Status.Conditions[0].Status)
	for len(recorder.Events) > 0 {
		fmt.Println("event:", <-recorder.Events)
	}
	// Output:
	// node-1 Ready: Unknown
	// node-1 taint: node.kubernetes.io/unreachable:NoExecute
	// web Ready: False
	// event: Normal RegisteredNode Node node-1 event: Registered Node node-1 in Controller
	// event: Normal RegisteredNode Node node-2 event: Registered Node node-2 in Controller
	// event: Normal NodeNotReady Node node-1 status is now: NodeNotReady
	// event: Warning NodeNotReady Node is not ready
}

// caughtUp reports whether the informers hold the objects of the example as
// the fake API server does (which keeps no resourceVersions).
func caughtUp(ctx context.Context, client *fake.Clientset, factory informers.SharedInformerFactory) bool {
	same := equality.Semantic.DeepEqual
	for _, name := range []string{"node-1", "node-2"} {
		n, err1 := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		c, err2 := factory.Core().V1().Nodes().Lister().Get(name)
		if err1 != nil || err2 != nil || !same(n.Spec, c.Spec) || !same(n.Status, c.Status) {
			return false
		}
	}
	p, err1 := client.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
	cp, err2 := factory.Core().V1().Pods().Lister().Pods("default").Get("web")
	l, err3 := client.CoordinationV1().Leases(v1.NamespaceNodeLease).Get(ctx, "node-2", metav1.GetOptions{})
	cl, err4 := factory.Coordination().V1().Leases().Lister().Leases(v1.NamespaceNodeLease).Get("node-2")
	return err1 == nil && err2 == nil && err3 == nil && err4 == nil && same(p.Status, cp.Status) && same(l.Spec, cl.Spec)
}
