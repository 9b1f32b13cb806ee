package pressureevictor_test

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/controllers/pressureevictor"
	"github.com/evictkit/eviction/thresholds"
)

// An evictor embedded on a fake clientset, a fake clock and a summary source
// of its own: memory.available stays at 300Mi, under the default soft
// threshold of 500Mi; once its 30 s grace period has passed the evictor
// evicts, through the Eviction API, the pod the kubelet would pick (web, far
// above its memory request), and leaves db (within its request) alone.
func Example() {
	const mi = 1 << 20
	pod := func(name string, request int64) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
			Spec: v1.PodSpec{NodeName: "node-1", Containers: []v1.Container{{Name: "app", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceMemory: *resource.NewQuantity(request*mi, resource.BinarySI)},
			}}}},
			Status: v1.PodStatus{Phase: v1.PodRunning},
		}
	}
	client := fake.NewClientset(pod("web", 100), pod("db", 500))
	// The fake clientset accepts an Eviction and does nothing; an API
	// server would delete the pod.
	evicted := make(chan string, 10)
	client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		e := a.(clienttesting.CreateAction).GetObject().(*policyv1.Eviction)
		evicted <- e.Namespace + "/" + e.Name
		return true, nil, client.Tracker().Delete(v1.SchemeGroupVersion.WithResource("pods"), e.Namespace, e.Name)
	})

	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	// The node's stats summary, as the kubelet serves it: node memory (300Mi
	// of 8Gi available), and each pod's working set (web 600Mi, db 200Mi),
	// stamped now.
	summary := pressureevictor.SummaryFunc(func(context.Context) ([]byte, error) {
		now := clock.Now().Format(time.RFC3339)
		mem := func(workingSet int64) string {
			return fmt.Sprintf(`{"time":%q,"workingSetBytes":%d}`, now, workingSet*mi)
		}
		stats := func(name string, workingSet int64) string {
			return fmt.Sprintf(`{"podRef":{"name":%q,"namespace":"default","uid":"uid-%s"},"memory":%s,"containers":[{"name":"app","memory":%s}]}`,
				name, name, mem(workingSet), mem(workingSet))
		}
		return fmt.Appendf(nil, `{"node":{"nodeName":"node-1","memory":{"time":%q,"availableBytes":%d,"workingSetBytes":%d}},"pods":[%s,%s]}`,
			now, 300*mi, 7892*mi, stats("web", 600), stats("db", 200)), nil
	})
	ts, err := pressureevictor.ParseThresholds(thresholds.Flags{}) // memory.available<500Mi for 30s
	if err != nil {
		fmt.Println(err)
		return
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	pods := factory.Core().V1().Pods()
	recorder := record.NewFakeRecorder(10)
	e, err := pressureevictor.New(pressureevictor.Config{
		Client:     client,
		Node:       "node-1",
		Pods:       pods.Lister(),
		PodsSynced: pods.Informer().HasSynced,
		Source:     summary,
		Thresholds: ts,
		Recorder:   recorder,
		Clock:      clock,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	done := make(chan error)
	go func() { done <- e.Run(ctx) }()

	// A cycle every 10 s: time passes a cycle at a time until a pod is
	// evicted (for at most 10 minutes of fake time and 10 s of real time).
	var got string
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < 60 && got == "" && time.Now().Before(deadline); i++ {
		select {
		case got = <-evicted:
		case <-time.After(10 * time.Millisecond):
			clock.Step(pressureevictor.DefaultInterval)
		}
	}
	cancel()
	factory.Shutdown()
	if err := <-done; err != nil {
		fmt.Println(err)
	}
	fmt.Println("evicted:", got)
	left, _ := client.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
	for _, p := range left.Items {
		fmt.Println("kept:", p.Name)
	}
	for len(recorder.Events) > 0 {
		fmt.Println("event:", <-recorder.Events)
	}
	// Output:
	// evicted: default/web
	// kept: db
	// event: Warning Evicted The node was low on resource: memory. Threshold quantity: 500Mi, available: 300Mi. Container app was using 600Mi, request is 100Mi, has larger consumption of memory.  map[offending_containers:app offending_containers_usage:600Mi starved_resource:memory]
}
