// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// tests and benchmarks can build the controller without starting informers,
// call its event handlers as informers would, read its decisions, and run its
// work queue. It only names upstream's identifiers and sets the fields its
// own Run would set.

package devicetainteviction

import (
	"context"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// NewForTest builds a controller on the informers of factory (never
// started: the caller fills their stores) with the given recorder (nil:
// none) and a work queue that drops everything until StartWorkers.
func NewForTest(c clientset.Interface, factory informers.SharedInformerFactory, recorder record.EventRecorder, workloadResourceClaims bool) (*Controller, error) {
	tc := newWithFeatures(c,
		factory.Core().V1().Pods(),
		factory.Resource().V1().ResourceClaims(),
		factory.Resource().V1().ResourceSlices(),
		factory.Resource().V1().DeviceTaintRules(),
		factory.Resource().V1().DeviceClasses(),
		"device-taint-eviction-controller",
		workloadResourceClaims)
	tc.logger = klog.Background()
	if recorder != nil {
		tc.recorder = recorder
	}
	tc.workqueue = &NOPQueue[workItem]{}
	if err := tc.addIndexers(); err != nil {
		return nil, err
	}
	return tc, nil
}

// StartWorkers gives the controller the work queue its Run makes and starts
// n workers on it; they stop once ctx is done and the queue is shut down.
func (tc *Controller) StartWorkers(ctx context.Context, n int) (stop func()) {
	tc.workqueue = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[workItem](),
		workqueue.TypedRateLimitingQueueConfig[workItem]{Name: tc.name},
	)
	done := make(chan struct{})
	for range n {
		go func() {
			tc.worker(ctx)
			done <- struct{}{}
		}()
	}
	return func() {
		tc.workqueue.ShutDown()
		for range n {
			<-done
		}
	}
}

// HandlePodChange runs handlePodChange under the controller's lock.
func (tc *Controller) HandlePodChange(oldPod, newPod *v1.Pod) {
	tc.mutex.Lock()
	defer tc.mutex.Unlock()
	tc.handlePodChange(oldPod, newPod)
}

// HandleClaimChange runs handleClaimChange under the controller's lock.
func (tc *Controller) HandleClaimChange(oldClaim, newClaim *resourceapi.ResourceClaim) {
	tc.mutex.Lock()
	defer tc.mutex.Unlock()
	tc.handleClaimChange(oldClaim, newClaim)
}

// HandleSliceChange runs handleSliceChange under the controller's lock.
func (tc *Controller) HandleSliceChange(oldSlice, newSlice *resourceapi.ResourceSlice) {
	tc.mutex.Lock()
	defer tc.mutex.Unlock()
	tc.handleSliceChange(oldSlice, newSlice)
}

// HandleRuleChange runs handleRuleChange under the controller's lock.
func (tc *Controller) HandleRuleChange(oldRule, newRule *resourceapi.DeviceTaintRule) {
	tc.mutex.Lock()
	defer tc.mutex.Unlock()
	tc.handleRuleChange(oldRule, newRule)
}

// Reason is one of the taints behind an eviction: a rule's, or a device's
// own in a slice.
type Reason struct {
	Rule                       string
	Slice                      string
	Driver, Pool, Device       string
	Index                      int
	Key, Value, Effect, String string
}

// Eviction is a decision: when and why.
type Eviction struct {
	When    time.Time
	Reasons []Reason
}

func export(e *evictionAndReason) *Eviction {
	if e == nil {
		return nil
	}
	out := &Eviction{When: e.when.Time}
	for _, r := range e.reason {
		t := r.deviceTaint()
		x := Reason{Key: t.Key, Value: t.Value, Effect: string(t.Effect), String: r.String()}
		if r.rule != nil {
			x.Rule = r.rule.Name
		} else {
			s := r.slice.slice
			x.Slice, x.Driver, x.Pool, x.Device, x.Index = s.Name, s.Spec.Driver, s.Spec.Pool.Name, r.slice.deviceName, r.slice.taintIndex
		}
		out.Reasons = append(out.Reasons, x)
	}
	return out
}

// PodEvictionTime runs podEvictionTime under the controller's lock.
func (tc *Controller) PodEvictionTime(pod *v1.Pod) *Eviction {
	tc.mutex.Lock()
	defer tc.mutex.Unlock()
	return export(tc.podEvictionTime(pod))
}

// ClaimEvictions returns the eviction the controller holds for each
// allocated claim, by namespace/name.
func (tc *Controller) ClaimEvictions() map[string]*Eviction {
	tc.mutex.Lock()
	defer tc.mutex.Unlock()
	out := make(map[string]*Eviction, len(tc.allocatedClaims))
	for name, c := range tc.allocatedClaims {
		out[name.String()] = export(c.eviction)
	}
	return out
}

// Scheduled returns the pods the controller means to evict (deletePodAt),
// as "namespace/name@uid when", sorted.
func (tc *Controller) Scheduled() []string {
	tc.mutex.Lock()
	defer tc.mutex.Unlock()
	var out []string
	for ref, e := range tc.deletePodAt {
		out = append(out, fmt.Sprintf("%s@%s %s", ref.NamespacedName, ref.UID, e.when.UTC().Format(time.RFC3339Nano)))
	}
	slices.Sort(out)
	return out
}

// CountEvicting runs podEvictionTime on each pod under the controller's
// lock and returns how many it evicts (for benchmarks: no conversion).
func (tc *Controller) CountEvicting(pods []*v1.Pod) int {
	tc.mutex.Lock()
	defer tc.mutex.Unlock()
	n := 0
	for _, p := range pods {
		if tc.podEvictionTime(p) != nil {
			n++
		}
	}
	return n
}

// ScheduledCount returns how many pods the controller means to evict.
func (tc *Controller) ScheduledCount() int {
	tc.mutex.Lock()
	defer tc.mutex.Unlock()
	return len(tc.deletePodAt)
}
