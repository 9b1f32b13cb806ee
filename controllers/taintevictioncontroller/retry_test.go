package taintevictioncontroller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/tainteviction"
)

// retryHarness runs a Controller over a fake clientset on a fake clock; the
// deletes of the pods that refuse says are answered with its error, and
// every delete call is counted by pod name.
type retryHarness struct {
	t      *testing.T
	client *fake.Clientset
	clock  *clocktesting.FakeClock
	rec    *record.FakeRecorder
	m      *Metrics
	c      *Controller

	mu      sync.Mutex
	refuse  func(pod string) error // nil error: the delete goes ahead
	deletes map[string]int
}

func newRetryHarness(t *testing.T, workers int, refuse func(pod string) error, objs ...runtime.Object) *retryHarness {
	t.Helper()
	h := &retryHarness{
		t: t, client: fake.NewClientset(objs...), clock: clocktesting.NewFakeClock(now),
		rec: record.NewFakeRecorder(1000), refuse: refuse, deletes: map[string]int{},
	}
	h.client.PrependReactor("delete", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		name := a.(clienttesting.DeleteAction).GetName()
		h.mu.Lock()
		defer h.mu.Unlock()
		h.deletes[name]++
		if err := h.refuse(name); err != nil {
			return true, nil, err
		}
		return false, nil, nil
	})
	f := informers.NewSharedInformerFactory(h.client, 0)
	var err error
	if h.m, err = NewMetrics(prometheus.NewRegistry()); err != nil {
		t.Fatal(err)
	}
	h.c, err = New(Config{
		Client: h.client, Pods: f.Core().V1().Pods(), Nodes: f.Core().V1().Nodes(),
		Recorder: h.rec, Metrics: h.m, Clock: h.clock, Workers: workers,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
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
	// The tests move the clock only once every first add was handled.
	h.until("the handlers hold the informers' first lists", h.c.synced.Load)
	return h
}

// until polls cond for at most 10 s of wall time: the informers deliver
// the fake clientset's objects on goroutines of their own.
func (h *retryHarness) until(what string, cond func() bool) {
	h.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			h.t.Fatalf("not within 10 s: %s", what)
		}
	}
}

// core calls f with the controller's core, under its lock, once Run has
// built it.
func (h *retryHarness) core(f func(core *tainteviction.Controller)) {
	h.t.Helper()
	h.until("Run builds its core", func() bool { return h.c.inspect(f) })
}

// scheduled reports whether the core holds an eviction of pod.
func (h *retryHarness) scheduled(pod string) bool {
	var ok bool
	h.core(func(core *tainteviction.Controller) {
		_, ok = core.Scheduled(types.NamespacedName{Namespace: "ns", Name: pod})
	})
	return ok
}

// len returns the number of evictions the core holds.
func (h *retryHarness) len() int {
	var n int
	h.core(func(core *tainteviction.Controller) { n = core.Len() })
	return n
}

// step advances the fake clock and waits until every eviction due by then
// has been attempted; a worker held for longer than 10 s of wall time
// fails the test.
func (h *retryHarness) step(d time.Duration) {
	h.t.Helper()
	h.clock.Step(d)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.c.idle(ctx); err != nil {
		h.t.Fatalf("after a clock step of %v, evictions still hold the workers: %v", d, err)
	}
}

// taint gives node the NoExecute taint of taintedNode.
func (h *retryHarness) taint(node string) {
	h.t.Helper()
	n, err := h.client.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err == nil {
		n.Spec.Taints = taintedNode(node).Spec.Taints
		_, err = h.client.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{})
	}
	if err != nil {
		h.t.Fatal(err)
	}
}

func (h *retryHarness) deleteCalls(pod string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.deletes[pod]
}

func (h *retryHarness) setRefuse(refuse func(pod string) error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.refuse = refuse
}

func (h *retryHarness) exists(pod string) bool {
	_, err := h.client.CoreV1().Pods("ns").Get(context.Background(), pod, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		h.t.Fatal(err)
	}
	return err == nil
}

// events drains the recorder.
func (h *retryHarness) events() []string {
	var out []string
	for len(h.rec.Events) > 0 {
		out = append(out, <-h.rec.Events)
	}
	return out
}

func taintedNode(name string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoExecute}}}}
}

func podOn(node, name string, tols ...v1.Toleration) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
		Spec:       v1.PodSpec{NodeName: node, Tolerations: tols},
		Status:     v1.PodStatus{Phase: v1.PodRunning},
	}
}

var errOutage = apierrors.NewServiceUnavailable("injected outage")

// The API server refuses deletes (an outage); while the victim's eviction
// waits for a retry, its node's NoExecute taint is removed; then deletes
// work again and the clock moves a day: the victim is never deleted, as
// kube-controller-manager, which drops the eviction after five attempts,
// would not delete it. The canary, tolerating the taint for an hour, shows
// that the controller has seen the taint go (its eviction is cancelled).
func TestCancelledRetry(t *testing.T) {
	h := newRetryHarness(t, 1, func(pod string) error {
		if pod == "victim" {
			return errOutage
		}
		return nil
	}, taintedNode("n"), podOn("n", "victim"),
		podOn("n", "canary", v1.Toleration{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(3600))}))
	h.until("the victim's first delete", func() bool { return h.deleteCalls("victim") >= 1 })
	h.until("three delete attempts as the clock goes", func() bool {
		h.clock.Step(time.Second)
		return h.deleteCalls("victim") >= 3
	})
	// Let the attempt under way return, so that the retry waits, pending,
	// when the taint goes: an attempt in flight then still sends its
	// delete, here as upstream. (The old in-item retry loop never
	// returned: this wait then ended after 5 s and the check below failed.)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = h.c.idle(ctx)
	cancel()

	// What came before the removal: a cancellation of the canary may be
	// among it (a pod seen after its node's taint is decided again, and
	// upstream cancels and re-adds its eviction), so only what follows
	// tells that the removal was seen.
	h.events()
	node, err := h.client.CoreV1().Nodes().Get(context.Background(), "n", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Spec.Taints = nil
	if _, err := h.client.CoreV1().Nodes().Update(context.Background(), node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var evs []string
	h.until("the controller sees the taint go and cancels the canary's eviction", func() bool {
		evs = append(evs, h.events()...) // recorded after the core's state changes
		var tainted bool
		h.core(func(core *tainteviction.Controller) { _, tainted = core.NoExecuteTaints("n") })
		return !tainted && !h.scheduled("canary") && slices.Contains(evs, "Normal TaintManagerEviction Cancelling deletion of Pod ns/canary")
	})
	h.setRefuse(func(string) error { return nil })
	before := h.deleteCalls("victim")
	for range 24 {
		h.step(time.Hour)
	}
	if !h.exists("victim") {
		t.Fatalf("victim deleted after its taint was removed (%d delete calls before the removal, %d after)", before, h.deleteCalls("victim")-before)
	}
	if n := h.deleteCalls("victim") - before; n != 0 {
		t.Errorf("%d delete calls for the victim after its taint was removed, want 0", n)
	}
	if n := h.len(); n != 0 {
		t.Errorf("%d evictions still queued, want none", n)
	}
	if !h.exists("canary") {
		t.Error("canary deleted")
	}
}

// Two workers, 70 pods whose deletes keep failing with 500, one pod whose
// delete a webhook forbids (403), and a victim whose node is tainted later:
// the retries release the workers, so the victim is deleted at the next
// clock step; the forbidden pod is attempted upstream's five times, then
// abandoned and reported (metric, Warning event); the 70 go on retrying.
func TestNoHeadOfLineBlocking(t *testing.T) {
	const failing = 70
	// The bad node is tainted once the handlers hold every pod: a pod
	// whose first add reached them after its tainted node's would be
	// decided twice (upstream cancels and schedules it again), and an
	// attempt under way would meet a second eviction's.
	objs := []runtime.Object{&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "bad"}}, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "good"}}, podOn("good", "victim"), podOn("bad", "forbidden")}
	for i := range failing {
		objs = append(objs, podOn("bad", fmt.Sprintf("fail-%02d", i)))
	}
	h := newRetryHarness(t, 2, func(pod string) error {
		switch {
		case strings.HasPrefix(pod, "fail-"):
			return apierrors.NewInternalError(errors.New("injected"))
		case pod == "forbidden":
			return apierrors.NewForbidden(v1.Resource("pods"), pod, errors.New("admission webhook denied the request"))
		}
		return nil
	}, objs...)
	h.taint("bad")
	h.until("the bad node's pods scheduled", func() bool { return h.len() == failing+1 })
	for range 3 {
		h.step(time.Second)
	}

	h.taint("good")
	h.until("the victim's eviction scheduled", func() bool {
		return h.scheduled("victim") || h.deleteCalls("victim") > 0
	})
	h.step(time.Second)
	if h.exists("victim") {
		t.Fatalf("victim not deleted at the next clock step: %d failing deletes hold the workers", failing)
	}
	for range 20 {
		h.step(time.Second)
	}

	if n := h.deleteCalls("forbidden"); n != deleteAttempts {
		t.Errorf("forbidden pod: %d delete calls, want %d", n, deleteAttempts)
	}
	if h.scheduled("forbidden") {
		t.Error("forbidden pod's eviction still scheduled, want it abandoned")
	}
	if v := testutil.ToFloat64(h.m.abandon); v != 1 {
		t.Errorf("taint_eviction_controller_pod_deletions_abandoned_total = %v, want 1", v)
	}
	warned := 0
	for _, e := range h.events() {
		if strings.HasPrefix(e, "Warning "+EvictionFailedReason+" Abandoned deletion of Pod ns/forbidden after 5 attempts") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d %s events for the forbidden pod, want 1", warned, EvictionFailedReason)
	}
	if n := h.len(); n != failing {
		t.Errorf("%d evictions queued, want the %d failing ones still retrying", n, failing)
	}
	for i := range failing {
		if name := fmt.Sprintf("fail-%02d", i); h.deleteCalls(name) < deleteAttempts+1 || !h.exists(name) {
			t.Fatalf("%s: %d delete calls, exists %v; want more than %d (5xx is retried) and the pod kept", name, h.deleteCalls(name), h.exists(name), deleteAttempts)
		}
	}
	if n := testutil.ToFloat64(h.m.del.Deletions); n != 1 {
		t.Errorf("taint_eviction_controller_pod_deletions_total = %v, want 1 (the victim)", n)
	}
}

func ptr[T any](v T) *T { return &v }
