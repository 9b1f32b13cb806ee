package taintevictioncontroller_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/controllers/taintevictioncontroller"
	"github.com/evictkit/eviction/tainteviction"
)

// A controller embedded with a policy of its own, on a fake clock: on a node
// tainted NoExecute, the pod that does not tolerate the taint is deleted at
// once, the pod that tolerates it for five minutes five minutes later, the
// pod that tolerates it forever stays, and so does the pod the policy
// vetoes.
func Example() {
	fiveMinutes := int64(300)
	taint := v1.Taint{Key: "example.com/maintenance", Effect: v1.TaintEffectNoExecute}
	pod := func(name string, tols ...v1.Toleration) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
			Spec:       v1.PodSpec{NodeName: "node-1", Tolerations: tols},
		}
	}
	client := fake.NewClientset(
		&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}, Spec: v1.NodeSpec{Taints: []v1.Taint{taint}}},
		pod("web"),
		pod("agent", v1.Toleration{Key: taint.Key, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute}),
		pod("db"),
		pod("batch", v1.Toleration{Key: taint.Key, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &fiveMinutes}),
	)
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	factory := informers.NewSharedInformerFactory(client, 0)
	recorder := record.NewFakeRecorder(10)
	vetoed := make(chan string, 1)
	c, err := taintevictioncontroller.New(taintevictioncontroller.Config{
		Client:   client,
		Pods:     factory.Core().V1().Pods(),
		Nodes:    factory.Core().V1().Nodes(),
		Recorder: recorder,
		Clock:    clock,
		// The author's policy: databases are drained by hand.
		Policy: func(_ context.Context, e tainteviction.Eviction) taintevictioncontroller.Verdict {
			if e.Pod.Name == "db" {
				select {
				case vetoed <- e.Pod.String():
				default:
				}
				return taintevictioncontroller.Verdict{Veto: true}
			}
			return taintevictioncontroller.Verdict{}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()

	// Wait, at most 10 s, for the policy to veto db and for web to go.
	select {
	case name := <-vetoed:
		fmt.Println("vetoed:", name)
	case <-time.After(10 * time.Second):
		fmt.Println("db was never vetoed")
	}
	waitGone(client, "web", func() {})
	// Time passes a minute at a time until batch's five minutes are up.
	waitGone(client, "batch", func() { clock.Step(time.Minute) })
	cancel()
	factory.Shutdown()
	if err := <-done; err != nil {
		fmt.Println(err)
	}

	left, _ := client.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
	for _, p := range left.Items {
		fmt.Println("kept:", p.Name)
	}
	// Each deleted pod got upstream's event before its deletion. (When a
	// pod's and its node's add events race, upstream's controller may mark
	// a pod twice, or cancel and schedule again a pod's eviction: only the
	// distinct Marking events are printed.)
	seen := map[string]bool{}
	for len(recorder.Events) > 0 {
		if e := <-recorder.Events; strings.Contains(e, "Marking for deletion") && !seen[e] {
			seen[e] = true
			fmt.Println("event:", e)
		}
	}
	// Output:
	// vetoed: default/db
	// kept: agent
	// kept: db
	// event: Normal TaintManagerEviction Marking for deletion Pod default/web
	// event: Normal TaintManagerEviction Marking for deletion Pod default/batch
}

// waitGone waits, at most 10 s, for a pod to be deleted, calling meanwhile
// every millisecond.
func waitGone(client *fake.Clientset, name string, meanwhile func()) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, err := client.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return
		}
		meanwhile()
	}
}
