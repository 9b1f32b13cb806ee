package devicetaintevictioncontroller_test

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/evictkit/eviction/controllers/devicetaintevictioncontroller"
)

// The controller on a fake clock: a DeviceTaintRule takes a GPU pool out
// for maintenance; the training pod, whose claim tolerates that for five
// minutes, goes five minutes after the taint was added, and the rule's
// status says so.
func Example() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "training", UID: "uid-training"},
		Spec: v1.PodSpec{NodeName: "node-1", Containers: []v1.Container{{Name: "c", Image: "i"}},
			ResourceClaims: []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("training-gpu")}}},
	}
	claim := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "training-gpu", UID: "uid-claim"},
		Status: resourceapi.ResourceClaimStatus{
			Allocation: &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
				Request: "gpu", Driver: "gpu.example.com", Pool: "node-1", Device: "gpu-0",
				Tolerations: []resourceapi.DeviceToleration{{Key: "example.com/maintenance", Operator: resourceapi.DeviceTolerationOpExists,
					Effect: resourceapi.DeviceTaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}},
			}}}},
			ReservedFor: []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: pod.Name, UID: pod.UID}},
		},
	}
	rule := &resourceapi.DeviceTaintRule{
		ObjectMeta: metav1.ObjectMeta{Name: "maintenance", UID: types.UID("uid-rule"), Generation: 1},
		Spec: resourceapi.DeviceTaintRuleSpec{
			DeviceSelector: &resourceapi.DeviceTaintSelector{Driver: ptr.To("gpu.example.com"), Pool: ptr.To("node-1")},
			Taint: resourceapi.DeviceTaint{Key: "example.com/maintenance", Effect: resourceapi.DeviceTaintEffectNoExecute,
				TimeAdded: &metav1.Time{Time: start}},
		},
	}
	client := fake.NewClientset(pod, claim, rule)
	clock := clocktesting.NewFakeClock(start)
	factory := informers.NewSharedInformerFactory(client, 0)
	r := factory.Resource().V1()
	c, err := devicetaintevictioncontroller.New(devicetaintevictioncontroller.Config{
		Client: client, Pods: factory.Core().V1().Pods(),
		ResourceClaims: r.ResourceClaims(), ResourceSlices: r.ResourceSlices(),
		DeviceTaintRules: r.DeviceTaintRules(), DeviceClasses: r.DeviceClasses(),
		Recorder: record.NewFakeRecorder(10), Clock: clock,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()

	status := func() string {
		r, _ := client.ResourceV1().DeviceTaintRules().Get(ctx, "maintenance", metav1.GetOptions{})
		for _, c := range r.Status.Conditions {
			return fmt.Sprintf("%s %s %s: %s", c.Type, c.Status, c.Reason, c.Message)
		}
		return ""
	}
	gone := func() bool {
		_, err := client.CoreV1().Pods("default").Get(ctx, "training", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}
	// Wait, at most 10 s of real time, for the first status; then time
	// passes a minute at a time until the pod is gone.
	for deadline := time.Now().Add(10 * time.Second); status() == "" && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	fmt.Println(status())
	for deadline := time.Now().Add(10 * time.Second); !gone() && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if clock.Since(start) < 5*time.Minute {
			clock.Step(time.Minute)
		}
	}
	fmt.Println("training deleted after", clock.Since(start))
	cancel()
	factory.Shutdown()
	if err := <-done; err != nil {
		fmt.Println(err)
	}
	// Output:
	// EvictionInProgress True PodsPendingEviction: 1 pod needs to be evicted in 1 namespace.
	// training deleted after 5m0s
}
