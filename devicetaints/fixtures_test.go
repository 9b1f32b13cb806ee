package devicetaints_test

import (
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/evictkit/eviction/devicetaints"
)

const (
	noExec = resourceapi.DeviceTaintEffectNoExecute
	noSch  = resourceapi.DeviceTaintEffectNoSchedule
	none   = resourceapi.DeviceTaintEffectNone
	exists = resourceapi.DeviceTolerationOpExists
	equal  = resourceapi.DeviceTolerationOpEqual
	driver = "gpu.example.com"
)

// t0 is the time every test's taints are added at, give or take.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) *metav1.Time { return &metav1.Time{Time: t0.Add(d)} }

// taint is a taint added at t0 (unless added says otherwise; nil for
// none).
func taint(key, value string, effect resourceapi.DeviceTaintEffect, added ...*metav1.Time) resourceapi.DeviceTaint {
	t := resourceapi.DeviceTaint{Key: key, Value: value, Effect: effect, TimeAdded: at(0)}
	if len(added) > 0 {
		t.TimeAdded = added[0]
	}
	return t
}

// tol is a toleration; seconds is nil unless given.
func tol(key string, op resourceapi.DeviceTolerationOperator, value string, effect resourceapi.DeviceTaintEffect, seconds ...int64) resourceapi.DeviceToleration {
	t := resourceapi.DeviceToleration{Key: key, Operator: op, Value: value, Effect: effect}
	if len(seconds) > 0 {
		t.TolerationSeconds = ptr.To(seconds[0])
	}
	return t
}

func device(name string, taints ...resourceapi.DeviceTaint) resourceapi.Device {
	return resourceapi.Device{Name: name, Taints: taints}
}

// slice is a ResourceSlice of driver's pool, generation gen.
func slice(name, pool string, gen int64, devices ...resourceapi.Device) *resourceapi.ResourceSlice {
	return &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceSliceSpec{
			Driver:  driver,
			Pool:    resourceapi.ResourcePool{Name: pool, Generation: gen, ResourceSliceCount: 1},
			Devices: devices,
		},
	}
}

// result allocates driver's device pool/dev with tolerations.
func result(pool, dev string, tols ...resourceapi.DeviceToleration) resourceapi.DeviceRequestAllocationResult {
	return resourceapi.DeviceRequestAllocationResult{Request: "req", Driver: driver, Pool: pool, Device: dev, Tolerations: tols}
}

// claim is an allocated claim in namespace "ns" reserved for pods.
func claim(name string, pods []*v1.Pod, results ...resourceapi.DeviceRequestAllocationResult) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("claim-" + name)},
		Status: resourceapi.ResourceClaimStatus{
			Allocation: &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: results}},
		},
	}
	for _, p := range pods {
		c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: p.UID})
	}
	return c
}

// pod is a pod in namespace "ns" on node-a that uses the named claims.
func pod(name string, claims ...string) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
		Spec:       v1.PodSpec{NodeName: "node-a"},
	}
	for _, c := range claims {
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: c, ResourceClaimName: ptr.To(c)})
	}
	return p
}

// rule is a DeviceTaintRule selecting driver's pool (all pools if pool is
// empty).
func rule(name, pool string, t resourceapi.DeviceTaint) devicetaints.Rule {
	sel := &devicetaints.Selector{Driver: ptr.To(driver)}
	if pool != "" {
		sel.Pool = ptr.To(pool)
	}
	return devicetaints.Rule{Name: name, UID: types.UID("rule-" + name), Generation: 1, Selector: sel, Taint: t}
}
