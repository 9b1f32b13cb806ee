package conformance_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/conformance/internal/gen"
	ours "github.com/evictkit/eviction/nodelifecycle"
)

// monitorCluster is a cluster of n healthy nodes in three zones, each with
// a Lease renewed at gen.Epoch and podsPerNode Ready pods.
type monitorCluster struct {
	nodes  []*v1.Node
	leases map[string]*coordinationv1.Lease
	pods   map[string][]*v1.Pod
}

func newMonitorCluster(n, podsPerNode int) monitorCluster {
	c := monitorCluster{leases: map[string]*coordinationv1.Lease{}, pods: map[string][]*v1.Pod{}}
	hb := metav1.NewTime(gen.Epoch)
	renew := metav1.NewMicroTime(gen.Epoch)
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		c.nodes = append(c.nodes, &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: k8stypes.UID("uid-" + name),
				CreationTimestamp: metav1.NewTime(gen.Epoch.Add(-time.Hour)),
				Labels:            map[string]string{v1.LabelTopologyRegion: "r", v1.LabelTopologyZone: fmt.Sprintf("z%d", i%3)}},
			Status: v1.NodeStatus{Conditions: []v1.NodeCondition{
				{Type: v1.NodeReady, Status: v1.ConditionTrue, LastHeartbeatTime: hb, LastTransitionTime: hb},
				{Type: v1.NodeMemoryPressure, Status: v1.ConditionFalse, LastHeartbeatTime: hb, LastTransitionTime: hb},
				{Type: v1.NodeDiskPressure, Status: v1.ConditionFalse, LastHeartbeatTime: hb, LastTransitionTime: hb},
				{Type: v1.NodePIDPressure, Status: v1.ConditionFalse, LastHeartbeatTime: hb, LastTransitionTime: hb},
			}},
		})
		c.leases[name] = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: v1.NamespaceNodeLease, ResourceVersion: fmt.Sprint(i + 1)},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: &name, RenewTime: &renew},
		}
		for j := range podsPerNode {
			c.pods[name] = append(c.pods[name], &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("%s-p%d", name, j)},
				Spec:       v1.PodSpec{NodeName: name},
				Status:     v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}},
			})
		}
	}
	return c
}

// BenchmarkMonitorPass is one monitor pass over 5,000 healthy nodes (three
// zones, a renewed Lease and 5 pods each), the controller's steady state:
// upstream's monitorNodeHealth (NewNodeLifecycleController on a fake
// clientset, its node, pod and lease caches filled, its default 8 workers)
// against the library's Monitor.Pass over the same objects. Both have seen
// every node before (a first pass runs outside the timing), and the clock
// stands still, so every node is judged fresh and nothing is written.
func BenchmarkMonitorPass(b *testing.B) {
	const nodes, podsPerNode = 5000, 5
	c := newMonitorCluster(nodes, podsPerNode)
	ctx := context.Background()

	b.Run(fmt.Sprintf("nodes=%d/upstream", nodes), func(b *testing.B) {
		clock := testingclock.NewFakeClock(gen.Epoch)
		u := newUpstreamMonitor(b, plainClientset(), clock, ours.Config{}, 8)
		u.nc.SetNodeLister(u.lister)
		for _, n := range c.nodes {
			if err := u.nodes.Add(n); err != nil {
				b.Fatal(err)
			}
			if err := u.leases.Add(c.leases[n.Name]); err != nil {
				b.Fatal(err)
			}
			for _, p := range c.pods[n.Name] {
				if err := u.pods.Add(p); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := u.nc.MonitorNodeHealth(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if err := u.nc.MonitorNodeHealth(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run(fmt.Sprintf("nodes=%d/evictkit", nodes), func(b *testing.B) {
		m := ours.NewMonitor(ours.Config{})
		in := ours.PassInput{
			Nodes: c.nodes,
			Lease: func(name string) *coordinationv1.Lease { return c.leases[name] },
			Pods:  func(name string) ([]*v1.Pod, error) { return c.pods[name], nil },
		}
		if _, err := m.Pass(gen.Epoch, in).Do(ctx, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if _, err := m.Pass(gen.Epoch, in).Do(ctx, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
