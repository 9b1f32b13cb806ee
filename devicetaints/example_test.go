package devicetaints_test

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/evictkit/eviction/devicetaints"
)

func ExampleTolerates() {
	broken := resourceapi.DeviceTaint{Key: "health", Value: "broken", Effect: resourceapi.DeviceTaintEffectNoExecute}
	for _, tol := range []resourceapi.DeviceToleration{
		{Key: "health", Operator: resourceapi.DeviceTolerationOpEqual, Value: "broken", Effect: resourceapi.DeviceTaintEffectNoExecute},
		{Key: "health", Operator: resourceapi.DeviceTolerationOpExists, Effect: resourceapi.DeviceTaintEffectNoSchedule},
		{Operator: resourceapi.DeviceTolerationOpExists}, // everything, every effect
	} {
		fmt.Println(devicetaints.Tolerates(tol, broken))
	}
	// Output:
	// true
	// false
	// true
}

// A GPU of a pool is tainted in its ResourceSlice, and a DeviceTaintRule
// takes the whole pool out for maintenance an hour later. One pod
// tolerates the GPU's taint for ten minutes, the other not at all.
func ExampleSnapshot() {
	added := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	slices := []*resourceapi.ResourceSlice{{
		ObjectMeta: metav1.ObjectMeta{Name: "node-a-gpus"},
		Spec: resourceapi.ResourceSliceSpec{Driver: "gpu.example.com", Pool: resourceapi.ResourcePool{Name: "node-a", Generation: 1, ResourceSliceCount: 1},
			Devices: []resourceapi.Device{
				{Name: "gpu-0", Taints: []resourceapi.DeviceTaint{{Key: "health", Value: "ecc-errors", Effect: resourceapi.DeviceTaintEffectNoExecute, TimeAdded: &metav1.Time{Time: added}}}},
				{Name: "gpu-1"},
			}},
	}}
	rules := []devicetaints.Rule{{
		Name: "node-a-maintenance", Selector: &devicetaints.Selector{Driver: ptr.To("gpu.example.com"), Pool: ptr.To("node-a")},
		Taint: resourceapi.DeviceTaint{Key: "maintenance", Effect: resourceapi.DeviceTaintEffectNoExecute, TimeAdded: &metav1.Time{Time: added.Add(time.Hour)}},
	}}
	pod := func(name string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, UID: types.UID("uid-" + name)},
			Spec: v1.PodSpec{NodeName: "node-a", ResourceClaims: []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To(name + "-gpu")}}}}
	}
	claim := func(p *v1.Pod, device string, tols ...resourceapi.DeviceToleration) *resourceapi.ResourceClaim {
		return &resourceapi.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: p.Name + "-gpu"},
			Status: resourceapi.ResourceClaimStatus{
				Allocation: &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
					{Request: "gpu", Driver: "gpu.example.com", Pool: "node-a", Device: device, Tolerations: tols}}}},
				ReservedFor: []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: p.Name, UID: p.UID}},
			},
		}
	}
	train, serve := pod("train"), pod("serve")
	claims := []*resourceapi.ResourceClaim{
		claim(train, "gpu-0", resourceapi.DeviceToleration{Key: "health", Operator: resourceapi.DeviceTolerationOpExists,
			Effect: resourceapi.DeviceTaintEffectNoExecute, TolerationSeconds: ptr.To[int64](600)}),
		claim(serve, "gpu-1"),
	}

	s := devicetaints.NewSnapshot(slices, claims, rules, devicetaints.Options{})
	for _, p := range []*v1.Pod{train, serve} {
		d := s.Pod(p)
		fmt.Printf("%s: evict %v at +%v, because of %s (%d taints)\n", p.Name, d.Evict, d.At.Sub(added), d.Taint(), len(d.Taints()))
	}
	for _, t := range s.DeviceTaints(devicetaints.DeviceID{Driver: "gpu.example.com", Pool: "node-a", Device: "gpu-0"}) {
		fmt.Println("gpu-0:", t)
	}
	// Output:
	// train: evict true at +10m0s, because of slice "node-a-gpus" gpu.example.com/node-a/gpu-0 taint 0 health=ecc-errors:NoExecute (2 taints)
	// serve: evict true at +1h0m0s, because of rule "node-a-maintenance" maintenance:NoExecute (1 taints)
	// gpu-0: slice "node-a-gpus" gpu.example.com/node-a/gpu-0 taint 0 health=ecc-errors:NoExecute
	// gpu-0: rule "node-a-maintenance" maintenance:NoExecute
}

// The core of a controller: a rule of effect None first shows what it
// would do; switched to NoExecute, it evicts the pod (whose toleration
// gives it 30 s from the time the effect changed) and reports progress in
// its status (checked 10 s after each change, written when it changed).
func ExampleController() {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	since := func(t time.Time) time.Duration { return t.Sub(start) }
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train", UID: "uid-train"},
		Spec: v1.PodSpec{NodeName: "node-a", ResourceClaims: []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("train-gpu")}}}}
	c := devicetaints.NewController(devicetaints.Options{})
	c.PodChanged(nil, p)
	c.ClaimChanged(nil, &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train-gpu"},
		Status: resourceapi.ResourceClaimStatus{
			Allocation: &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
				Request: "gpu", Driver: "gpu.example.com", Pool: "node-a", Device: "gpu-0",
				Tolerations: []resourceapi.DeviceToleration{{Key: "maintenance", Operator: resourceapi.DeviceTolerationOpExists,
					Effect: resourceapi.DeviceTaintEffectNoExecute, TolerationSeconds: ptr.To[int64](30)}},
			}}}},
			ReservedFor: []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: "train", UID: "uid-train"}},
		},
	})

	// run plays the adapter: it applies what Step says and reports back.
	rule := &devicetaints.Rule{Name: "maintenance", UID: "uid-rule", Generation: 1,
		Selector: &devicetaints.Selector{Pool: ptr.To("node-a")},
		Taint:    resourceapi.DeviceTaint{Key: "maintenance", Effect: resourceapi.DeviceTaintEffectNone, TimeAdded: &metav1.Time{Time: start}}}
	run := func(now time.Time) time.Time {
		res := c.Step(now)
		for _, s := range res.Statuses {
			fmt.Printf("%v status %s: %s %s %q\n", since(now), s.Rule, s.Condition.Status, s.Condition.Reason, s.Condition.Message)
			old := rule
			rule = &devicetaints.Rule{Name: old.Name, UID: old.UID, Generation: old.Generation, Selector: old.Selector, Taint: old.Taint,
				Conditions: []metav1.Condition{s.Condition}}
			c.RuleChanged(old, rule) // the informer brings the status back
		}
		for _, e := range res.Evictions {
			fmt.Printf("%v evict %s (due %v, %s)\n", since(now), e.Pod, since(e.At), e.Taint)
			c.Evicted(e, true) // deleted; the pod informer then reports it gone
			c.PodChanged(p, nil)
		}
		return c.Step(now).Next
	}

	c.RuleChanged(nil, rule)
	run(start)

	evicting := *rule
	evicting.Generation = 2
	evicting.Taint.Effect = resourceapi.DeviceTaintEffectNoExecute
	evicting.Taint.TimeAdded = &metav1.Time{Time: start.Add(5 * time.Second)}
	c.RuleChanged(rule, &evicting)
	rule = &evicting
	for next := run(start.Add(5 * time.Second)); !next.IsZero(); {
		next = run(next)
	}
	// Output:
	// 0s status maintenance: False NoEffect "0 published devices selected. 1 allocated device selected. 1 pod would be evicted in 1 namespace if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule to trigger an update."
	// 5s status maintenance: True PodsPendingEviction "1 pod needs to be evicted in 1 namespace."
	// 35s evict ml/train (due 35s, rule "maintenance" maintenance:NoExecute)
	// 45s status maintenance: False Completed "1 pod evicted since starting the controller."
}
