package devicetaintevictioncontroller

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

const driver = "gpu.example.com"

// t0 is the fake clock's start and the time the tests' taints are added.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// recorder keeps the events recorded, as "ns/name message".
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) Event(obj runtime.Object, _, reason, message string) {
	ref, _ := obj.(*v1.ObjectReference)
	r.mu.Lock()
	defer r.mu.Unlock()
	if ref != nil && reason == "DeviceTaintManagerEviction" {
		r.events = append(r.events, ref.Namespace+"/"+ref.Name+" "+message)
	}
}

func (r *recorder) Eventf(obj runtime.Object, typ, reason, format string, args ...any) {
	r.Event(obj, typ, reason, fmt.Sprintf(format, args...))
}

func (r *recorder) AnnotatedEventf(obj runtime.Object, _ map[string]string, typ, reason, format string, args ...any) {
	r.Event(obj, typ, reason, fmt.Sprintf(format, args...))
}

func (r *recorder) has(event string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e == event {
			return true
		}
	}
	return false
}

// harness runs a Controller over a fake clientset on a fake clock.
type harness struct {
	t      *testing.T
	ctx    context.Context
	client *fake.Clientset
	clock  *clocktesting.FakeClock
	rec    *recorder
	m      *Metrics
	c      *Controller
}

func newHarness(t *testing.T, objs ...runtime.Object) *harness {
	t.Helper()
	h := &harness{t: t, client: fake.NewClientset(objs...), clock: clocktesting.NewFakeClock(t0), rec: &recorder{}}
	var err error
	if h.m, err = NewMetrics(prometheus.NewRegistry()); err != nil {
		t.Fatal(err)
	}
	return h
}

// start starts the informers and Run; the test's end stops them.
func (h *harness) start() {
	t := h.t
	t.Helper()
	f := informers.NewSharedInformerFactory(h.client, 0)
	r := f.Resource().V1()
	var err error
	h.c, err = New(Config{
		Client: h.client, Pods: f.Core().V1().Pods(),
		ResourceClaims: r.ResourceClaims(), ResourceSlices: r.ResourceSlices(),
		DeviceTaintRules: r.DeviceTaintRules(), DeviceClasses: r.DeviceClasses(),
		Recorder: h.rec, Metrics: h.m, Clock: h.clock, Workers: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.ctx = ctx
	f.Start(ctx.Done())
	done := make(chan error)
	go func() { done <- h.c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}

// eventually polls cond for up to 10 s of real time.
func (h *harness) eventually(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("not within 10s: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (h *harness) exists(name string) bool {
	_, err := h.client.CoreV1().Pods("ns").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		h.t.Fatal(err)
	}
	return err == nil
}

// waitGone waits until pod ns/name is deleted.
func (h *harness) waitGone(name string) {
	h.t.Helper()
	h.eventually("pod "+name+" deleted", func() bool { return !h.exists(name) })
}

// actions returns the fake clientset's actions of verb on resource (and
// subresource).
func (h *harness) actions(verb, resource, sub string) []clienttesting.Action {
	var out []clienttesting.Action
	for _, a := range h.client.Actions() {
		if a.GetVerb() == verb && a.GetResource().Resource == resource && a.GetSubresource() == sub {
			out = append(out, a)
		}
	}
	return out
}

// ruleCondition returns the rule's EvictionInProgress condition as the
// server holds it.
func (h *harness) ruleCondition(name string) *metav1.Condition {
	r, err := h.client.ResourceV1().DeviceTaintRules().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	for i := range r.Status.Conditions {
		if r.Status.Conditions[i].Type == "EvictionInProgress" {
			return &r.Status.Conditions[i]
		}
	}
	return nil
}

func noExecute(key string) resourceapi.DeviceTaint {
	return resourceapi.DeviceTaint{Key: key, Effect: resourceapi.DeviceTaintEffectNoExecute, TimeAdded: &metav1.Time{Time: t0}}
}

// slice publishes devices of driver's pool "pool".
func slice(devices ...resourceapi.Device) *resourceapi.ResourceSlice {
	return &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "slice"},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: driver, NodeName: ptr.To("node-a"),
			Pool:    resourceapi.ResourcePool{Name: "pool", Generation: 1, ResourceSliceCount: 1},
			Devices: devices,
		},
	}
}

// pod is a pod in namespace "ns" on node-a using claim "claim-<name>".
func pod(name string) *v1.Pod {
	c := "claim-" + name
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
		Spec: v1.PodSpec{NodeName: "node-a", Containers: []v1.Container{{Name: "c", Image: "i"}},
			ResourceClaims: []v1.PodResourceClaim{{Name: "c", ResourceClaimName: ptr.To(c)}}},
	}
}

// claim is pod's claim, allocated device dev of driver's pool "pool" with
// a NoExecute toleration of every taint for seconds (none if nil).
func claim(p *v1.Pod, dev string, seconds *int64) *resourceapi.ResourceClaim {
	res := resourceapi.DeviceRequestAllocationResult{Request: "req", Driver: driver, Pool: "pool", Device: dev}
	if seconds != nil {
		res.Tolerations = []resourceapi.DeviceToleration{{Operator: resourceapi.DeviceTolerationOpExists,
			Effect: resourceapi.DeviceTaintEffectNoExecute, TolerationSeconds: seconds}}
	}
	return &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "claim-" + p.Name, UID: types.UID("claim-uid-" + p.Name)},
		Status: resourceapi.ResourceClaimStatus{
			Allocation:  &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{res}}},
			ReservedFor: []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: p.Name, UID: p.UID}},
		},
	}
}

// rule taints every device of driver's pool "pool".
func rule(name string, t resourceapi.DeviceTaint) *resourceapi.DeviceTaintRule {
	return &resourceapi.DeviceTaintRule{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("rule-uid-" + name), Generation: 1},
		Spec: resourceapi.DeviceTaintRuleSpec{
			DeviceSelector: &resourceapi.DeviceTaintSelector{Driver: ptr.To(driver), Pool: ptr.To("pool")},
			Taint:          t,
		},
	}
}
