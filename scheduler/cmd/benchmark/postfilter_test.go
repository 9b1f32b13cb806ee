package benchmark

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/metrics"

	"github.com/evictkit/eviction/scheduler/cmd/internal/cycletest"
	"github.com/evictkit/eviction/scheduler/cmd/preemptionmetrics"
)

// cluster is a full cluster: every node has podsPerNode pods of 100m cpu
// on 100m·podsPerNode allocatable, with priorities 0 to 40 and start times
// spread over an hour, and the preemptor (priority 1000, 250m) fits nowhere
// without preemption.
type cluster struct {
	ctx       context.Context
	fw        framework.Framework
	state     fwk.CycleState
	preemptor *v1.Pod
	statuses  *framework.NodeToStatus
}

func newCluster(b *testing.B, nodes, podsPerNode int) *cluster {
	b.Helper()
	metrics.Register()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ns []*v1.Node
	var pods []*v1.Pod
	statuses := framework.NewDefaultNodeToStatus()
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		ns = append(ns, &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
			Status: v1.NodeStatus{Allocatable: v1.ResourceList{
				v1.ResourceCPU:    *resource.NewMilliQuantity(int64(100*podsPerNode), resource.DecimalSI),
				v1.ResourceMemory: resource.MustParse("64Gi"),
				v1.ResourcePods:   resource.MustParse("110"),
			}},
		})
		statuses.Set(name, fwk.NewStatus(fwk.Unschedulable, "Insufficient cpu").WithPlugin(noderesources.Name))
		for j := range podsPerNode {
			prio := int32((i*7 + j*13) % 41)
			st := metav1.NewTime(start.Add(time.Duration((i*31+j*17)%3600) * time.Second))
			pods = append(pods, &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%05d-%02d", i, j), Namespace: "default", UID: types.UID(fmt.Sprintf("u-%05d-%02d", i, j)),
					Labels: map[string]string{"app": fmt.Sprintf("app-%d", j%10)}},
				Spec: v1.PodSpec{NodeName: name, Priority: &prio, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
					Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("64Mi")},
				}}}},
				Status: v1.PodStatus{Phase: v1.PodRunning, StartTime: &st},
			})
		}
	}
	prio := int32(1000)
	preemptor := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "preemptor", Namespace: "default", UID: "preemptor"},
		Spec: v1.PodSpec{Priority: &prio, SchedulerName: "default-scheduler", Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m")},
		}}}},
	}

	client := clientsetfake.NewClientset()
	informerFactory := informers.NewSharedInformerFactory(client, 0)
	if err := informerFactory.Core().V1().Pods().Informer().GetStore().Add(preemptor); err != nil {
		b.Fatal(err)
	}
	informerFactory.Policy().V1().PodDisruptionBudgets().Informer()
	c := cycletest.New(b, client, informerFactory, pods, ns, preemptor)
	return &cluster{ctx: c.Ctx, fw: c.FW, state: c.State, preemptor: preemptor, statuses: statuses}
}

func (c *cluster) upstream(b *testing.B) fwk.PostFilterPlugin {
	b.Helper()
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	pl, err := defaultpreemption.New(c.ctx, &config.DefaultPreemptionArgs{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100}, c.fw, fts)
	if err != nil {
		b.Fatal(err)
	}
	return pl
}

func (c *cluster) ours(b *testing.B) fwk.PostFilterPlugin {
	b.Helper()
	pl, err := preemptionmetrics.NewPlugin(c.ctx, nil, c.fw)
	if err != nil {
		b.Fatal(err)
	}
	return pl.(fwk.PostFilterPlugin)
}

func (c *cluster) cycle(b *testing.B, pl fwk.PostFilterPlugin) {
	res, st := pl.PostFilter(c.ctx, c.state, c.preemptor, c.statuses)
	if !st.IsSuccess() || res == nil || res.NominatedNodeName == "" {
		b.Fatalf("PostFilter: %v %v", res, st)
	}
}

// BenchmarkPostFilter is one preemption cycle on 5,000 full nodes of 30 pods
// each, both plugins recording kube-scheduler's preemption metrics:
// DefaultPreemption, EvictkitPreemption with its node snapshots cached
// from the previous cycles (the steady state of a running scheduler: between
// two preemptions most nodes do not change), and EvictkitPreemption built
// afresh for every cycle (its first cycle: every visited node's snapshot is
// prepared).
func BenchmarkPostFilter(b *testing.B) {
	const nodes, podsPerNode = 5000, 30
	c := newCluster(b, nodes, podsPerNode)
	name := fmt.Sprintf("nodes=%d/pods=%d", nodes, podsPerNode)
	b.Run(name+"/DefaultPreemption", func(b *testing.B) {
		pl := c.upstream(b)
		b.ReportAllocs()
		for b.Loop() {
			c.cycle(b, pl)
		}
	})
	b.Run(name+"/EvictkitPreemption", func(b *testing.B) {
		pl := c.ours(b)
		c.cycle(b, pl) // the first cycle fills the snapshot cache
		b.ReportAllocs()
		for b.Loop() {
			c.cycle(b, pl)
		}
	})
	b.Run(name+"/EvictkitPreemption-cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.cycle(b, c.ours(b))
		}
	})
}
