package queuemetrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/client-go/util/workqueue"
)

// A client-go queue given Workqueue reports under the same names as the
// library's queues, labelled with its name.
func TestWorkqueueProvider(t *testing.T) {
	reg := prometheus.NewRegistry()
	p, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "node_lifecycle_controller", MetricsProvider: p.Workqueue()})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	if got := testutil.ToFloat64(p.depth.WithLabelValues("node_lifecycle_controller")); got != 2 {
		t.Errorf("workqueue_depth = %v, want 2", got)
	}
	if got := testutil.ToFloat64(p.adds.WithLabelValues("node_lifecycle_controller")); got != 2 {
		t.Errorf("workqueue_adds_total = %v, want 2", got)
	}
	if _, err := New(reg); err == nil {
		t.Error("registering twice: no error")
	}
}
