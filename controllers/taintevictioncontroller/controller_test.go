package taintevictioncontroller

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/evictkit/eviction/tainteviction"
)

// TestRun drives the controller through a fake clientset: a node tainted
// NoExecute, a pod that does not tolerate it (deleted, one deletion counted,
// the event recorded), a pod that tolerates it forever (kept), and a pod the
// policy vetoes (kept).
func TestRun(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoExecute}}}}
	pod := func(name string, tols ...v1.Toleration) *v1.Pod {
		p := testPod(types.UID(name))
		p.Name, p.Spec.Tolerations = name, tols
		return p
	}
	client := fake.NewClientset(node,
		pod("untolerating"),
		pod("tolerating", v1.Toleration{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute}),
		pod("vetoed"))
	f := informers.NewSharedInformerFactory(client, 0)
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	rec := record.NewFakeRecorder(10)
	c, err := New(Config{
		Client: client, Pods: f.Core().V1().Pods(), Nodes: f.Core().V1().Nodes(),
		Recorder: rec, Metrics: m,
		Policy: func(_ context.Context, e tainteviction.Eviction) Verdict {
			return Verdict{Veto: e.Pod.Name == "vetoed"}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()

	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := client.CoreV1().Pods("ns").Get(ctx, "untolerating", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod untolerating not deleted within 10s (last: %v)", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, name := range []string{"tolerating", "vetoed"} {
		if _, err := client.CoreV1().Pods("ns").Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("pod %s: %v, want it kept", name, err)
		}
	}
	// The deletion is counted once the delete call has returned.
	for testutil.ToFloat64(m.del.Deletions) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("taint_eviction_controller_pod_deletions_total = %v, want 1", testutil.ToFloat64(m.del.Deletions))
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	f.Shutdown()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil after the context ended", err)
	}
	var marking bool
	for len(rec.Events) > 0 {
		if e := <-rec.Events; e == "Normal TaintManagerEviction Marking for deletion Pod ns/untolerating" {
			marking = true
		}
	}
	if !marking {
		t.Error("no Marking for deletion event for ns/untolerating")
	}
}
