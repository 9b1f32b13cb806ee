package conformance_test

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/tainteviction"

	tecore "github.com/evictkit/eviction/tainteviction"
	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/tolerations"
)

// teBenchCluster is 5,000 nodes with 30 pods each, in a pod informer cache
// indexed by node as kube-controller-manager's is. A third of the pods
// tolerate not-ready for 300 s (the admission default), a third for 60 to
// 600 s, a third forever (DaemonSet pods): 100,000 evictions to schedule.
type teBenchCluster struct {
	nodes, tainted []*v1.Node
	pods           cache.Indexer
	byNode         map[string][]*v1.Pod
	scheduled      int
}

func newTEBenchCluster(b *testing.B) *teBenchCluster {
	const nodes, perNode = 5000, 30
	c := &teBenchCluster{byNode: map[string][]*v1.Pod{}, pods: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{"spec.nodeName": func(obj any) ([]string, error) {
		return []string{obj.(*v1.Pod).Spec.NodeName}, nil
	}})}
	notReady := taints.NotReadyNoExecute()
	notReady.TimeAdded = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for n := range nodes {
		node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%04d", n)}}
		c.nodes = append(c.nodes, node)
		t := node.DeepCopy()
		t.Spec.Taints = []v1.Taint{notReady}
		c.tainted = append(c.tainted, t)
		for i := range perNode {
			p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("pod-%04d-%02d", n, i), UID: types.UID(fmt.Sprintf("uid-%04d-%02d", n, i))},
				Spec: v1.PodSpec{NodeName: node.Name}}
			switch i % 3 {
			case 0:
				p.Spec.Tolerations, _ = tolerations.WithDefaultSeconds(nil, tolerations.DefaultSecondsOptions{})
				c.scheduled++
			case 1:
				s := int64(60 + (n*perNode+i)%541)
				p.Spec.Tolerations = []v1.Toleration{{Key: taints.KeyNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &s}}
				c.scheduled++
			default:
				p.Spec.Tolerations = tolerations.DaemonSet(tolerations.DaemonSetOptions{})
			}
			c.byNode[node.Name] = append(c.byNode[node.Name], p)
			if err := c.pods.Add(p); err != nil {
				b.Fatal(err)
			}
		}
	}
	return c
}

// podsOn lists a node's pods from a map built once, for both controllers:
// the benchmark measures the controllers, not the informer cache's index
// (whose ByIndex costs about as much per pod as the core's whole decision).
func (c *teBenchCluster) podsOn(node string) ([]*v1.Pod, error) { return c.byNode[node], nil }

// cpuTime returns the CPU time the process has used, user and system: on
// a shared machine the wall time of a run says more about the neighbours
// than about the code, so the benchmark also reports CPU time per run.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkTaintEviction: every node of a 5,000-node, 150,000-pod cluster
// gets a NoExecute taint at once; the time until every decision is queued
// (upstream: its workers have queued all 100,000 evictions), and the heap
// held per scheduled eviction once they are (B/eviction). Upstream's
// Controller runs with a fake clientset and caches fed by the benchmark;
// the core with the same pod index as its PodLister. cpu-ns/op is the CPU
// time the process used for it, its goroutines and the garbage collector
// included.
func BenchmarkTaintEviction(b *testing.B) {
	c := newTEBenchCluster(b)
	b.Run("nodes=5000/pods=150000/upstream", func(b *testing.B) {
		ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
		defer cancel()
		var perEviction float64
		var cpu time.Duration
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			client := fake.NewClientset()
			factory := informers.NewSharedInformerFactory(client, 0)
			nodeIndexer := factory.Core().V1().Nodes().Informer().GetIndexer()
			for _, n := range c.tainted {
				_ = nodeIndexer.Add(n)
			}
			tc, err := tainteviction.New(ctx, client, factory.Core().V1().Pods(), factory.Core().V1().Nodes(), "taint-eviction-controller")
			if err != nil {
				b.Fatal(err)
			}
			tainteviction.PrepareForTest(tc, c.podsOn, nil)
			runCtx, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { tc.Run(runCtx); close(done) }()
			before := heapInUse()
			b.StartTimer()
			cpu0 := cpuTime()
			for i, n := range c.tainted {
				tc.NodeUpdated(c.nodes[i], n)
			}
			for tainteviction.QueuedEvictions(tc) < c.scheduled {
				time.Sleep(100 * time.Microsecond)
			}
			cpu += cpuTime() - cpu0
			b.StopTimer()
			perEviction = float64(heapInUse()-before) / float64(c.scheduled)
			stop()
			<-done
			b.StartTimer()
		}
		b.ReportMetric(perEviction, "B/eviction")
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
	b.Run("nodes=5000/pods=150000/evictkit", func(b *testing.B) {
		var perEviction float64
		var cpu time.Duration
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			core := tecore.New(tecore.PodListerFunc(c.podsOn), tecore.Options{})
			before := heapInUse()
			b.StartTimer()
			cpu0 := cpuTime()
			for i, n := range c.tainted {
				// A reading of the clock per node, as the adapter makes it.
				if err := core.NodeUpdated(time.Now(), c.nodes[i], n); err != nil {
					b.Fatal(err)
				}
			}
			cpu += cpuTime() - cpu0
			b.StopTimer()
			if core.Len() != c.scheduled {
				b.Fatalf("%d evictions queued, want %d", core.Len(), c.scheduled)
			}
			perEviction = float64(heapInUse()-before) / float64(c.scheduled)
			runtime.KeepAlive(core)
			b.StartTimer()
		}
		b.ReportMetric(perEviction, "B/eviction")
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
}
