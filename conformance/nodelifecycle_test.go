package conformance_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/flowcontrol"
	nodetopology "k8s.io/component-helpers/node/topology"
	"k8s.io/kubernetes/pkg/controller/nodelifecycle"
	nodescheduler "k8s.io/kubernetes/pkg/controller/nodelifecycle/scheduler"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	ours "github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/timedqueue"
)

func TestZoneKey(t *testing.T) {
	labels := []string{v1.LabelFailureDomainBetaZone, v1.LabelFailureDomainBetaRegion, v1.LabelTopologyZone, v1.LabelTopologyRegion}
	rapid.Check(t, func(t *rapid.T) {
		node := &v1.Node{}
		for _, l := range labels {
			if rapid.Bool().Draw(t, l+"?") {
				if node.Labels == nil {
					node.Labels = map[string]string{}
				}
				node.Labels[l] = rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, l)
			}
		}
		if want, got := nodetopology.GetZoneKey(node), ours.ZoneKey(node); got != want {
			t.Fatalf("ZoneKey(%v): upstream %q, evictkit %q", node.Labels, want, got)
		}
	})
}

// readyConditions draws a zone's Ready conditions: nil (no condition),
// True, False, Unknown or an odd status.
func readyConditions(t *rapid.T) []*v1.NodeCondition {
	n := rapid.IntRange(0, 40).Draw(t, "nodes")
	out := make([]*v1.NodeCondition, n)
	for i := range out {
		status := rapid.SampledFrom([]v1.ConditionStatus{"", v1.ConditionTrue, v1.ConditionTrue, v1.ConditionFalse, v1.ConditionUnknown, "true"}).Draw(t, "status")
		if status != "" {
			out[i] = &v1.NodeCondition{Type: v1.NodeReady, Status: status}
		}
	}
	return out
}

func zoneConfig(t *rapid.T) ours.Config {
	cfg := ours.DefaultConfig()
	cfg.UnhealthyZoneThreshold = rapid.SampledFrom([]float32{0, 0.1, 0.3, 0.55, 0.75, 1}).Draw(t, "unhealthyZoneThreshold")
	cfg.EvictionRate = rapid.SampledFrom([]float32{0.1, 1, 5.5}).Draw(t, "evictionRate")
	cfg.SecondaryEvictionRate = rapid.SampledFrom([]float32{0, 0.01, 0.5}).Draw(t, "secondaryEvictionRate")
	cfg.LargeClusterThreshold = int32(rapid.SampledFrom([]int{0, 3, 10, 50}).Draw(t, "largeClusterThreshold"))
	return cfg
}

func upstreamZoneController(cfg ours.Config) *nodelifecycle.Controller {
	return nodelifecycle.ZoneStateController(cfg.UnhealthyZoneThreshold, cfg.EvictionRate, cfg.SecondaryEvictionRate, cfg.LargeClusterThreshold)
}

func TestComputeZoneState(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := zoneConfig(t)
		conds := readyConditions(t)
		notReady, want := upstreamZoneController(cfg).ComputeZoneState(conds)
		counts := ours.CountReady(conds)
		got := ours.ComputeZoneState(counts, cfg)
		if string(got) != string(want) || counts.NotReady != notReady {
			t.Fatalf("ComputeZoneState(%s, threshold %v): upstream (%d, %s), evictkit (%d, %s)",
				show(conds), cfg.UnhealthyZoneThreshold, notReady, want, counts.NotReady, got)
		}
	})
}

// TestZoneRate compares the rate a zone's limiter gets: upstream's
// setLimiterInZone swaps in evictionLimiterQPS for a Normal zone,
// enterPartialDisruptionFunc (ReducedQPSFunc) for a partially disrupted
// one and enterFullDisruptionFunc (HealthyQPSFunc) for a fully disrupted
// one.
func TestZoneRate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := zoneConfig(t)
		nc := upstreamZoneController(cfg)
		size := rapid.IntRange(0, 120).Draw(t, "size")
		for _, s := range []struct {
			ours ours.ZoneState
			want float32
		}{
			{ours.ZoneNormal, cfg.EvictionRate},
			{ours.ZonePartialDisruption, nc.ReducedQPSFunc(size)},
			{ours.ZoneFullDisruption, nc.HealthyQPSFunc(size)},
		} {
			if got, ok := ours.ZoneRate(s.ours, size, cfg); !ok || got != s.want {
				t.Fatalf("ZoneRate(%s, %d, %+v): upstream %v, evictkit (%v, %v)", s.ours, size, cfg, s.want, got, ok)
			}
		}
	})
}

// conditionNode draws a node with random conditions, unschedulable flag
// and taints, some of them the controller's.
func conditionNode(t *rapid.T) *v1.Node {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
	node.Spec.Unschedulable = rapid.Bool().Draw(t, "unschedulable")
	for _, c := range []v1.NodeConditionType{v1.NodeReady, v1.NodeMemoryPressure, v1.NodeDiskPressure,
		v1.NodePIDPressure, v1.NodeNetworkUnavailable, "Other"} {
		if rapid.IntRange(0, 3).Draw(t, string(c)+"?") > 0 {
			node.Status.Conditions = append(node.Status.Conditions, v1.NodeCondition{Type: c,
				Status: rapid.SampledFrom([]v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse, v1.ConditionUnknown}).Draw(t, string(c))})
		}
	}
	keys := []string{v1.TaintNodeNotReady, v1.TaintNodeUnreachable, v1.TaintNodeMemoryPressure, v1.TaintNodeDiskPressure,
		v1.TaintNodePIDPressure, v1.TaintNodeNetworkUnavailable, v1.TaintNodeUnschedulable, "foo"}
	for range rapid.IntRange(0, 4).Draw(t, "taints") {
		taint := v1.Taint{
			Key:    rapid.SampledFrom(keys).Draw(t, "key"),
			Value:  rapid.SampledFrom([]string{"", "x"}).Draw(t, "value"),
			Effect: rapid.SampledFrom([]v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectNoExecute, v1.TaintEffectPreferNoSchedule}).Draw(t, "effect"),
		}
		if !slices.ContainsFunc(node.Spec.Taints, func(u v1.Taint) bool { return u.Key == taint.Key && u.Effect == taint.Effect }) {
			node.Spec.Taints = append(node.Spec.Taints, taint)
		}
	}
	return node
}

func taintSet(ts []v1.Taint) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
	}
	slices.Sort(out)
	return out
}

// TestNoScheduleTaints runs upstream's doNoScheduleTaintingPass against a
// fake clientset holding the node and compares the node's taints after
// the write with the library's NoScheduleTaints applied by Swap.Apply
// (TimeAdded aside: upstream stamps the wall clock).
func TestNoScheduleTaints(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		node := conditionNode(t)
		client := clientsetfake.NewClientset(node.DeepCopy())
		indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
		if err := indexer.Add(node.DeepCopy()); err != nil {
			t.Fatal(err)
		}
		if err := nodelifecycle.NoScheduleTaintingPass(context.Background(), client, listersv1.NewNodeLister(indexer), node.Name); err != nil {
			t.Fatal(err)
		}
		written, err := client.CoreV1().Nodes().Get(context.Background(), node.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		add, remove := ours.NoScheduleTaints(node)
		got := ours.Swap{Add: add, Remove: remove}.Apply(node.Spec.Taints, gen.Epoch.Add(time.Hour))
		if w, g := taintSet(written.Spec.Taints), taintSet(got); !slices.Equal(g, w) {
			t.Fatalf("NoScheduleTaints(%s): upstream writes %q, evictkit %q (add %s, remove %s)",
				show(node), w, g, show(add), show(remove))
		}
	})
}

// queueState is a node's state in a rate-limited queue: "absent", "queued"
// or "processed" (the tombstone a successful Try leaves).
type queueState string

// TestNoExecuteAction runs upstream's processTaintBaseEviction for a node
// (taints read from it, written through a fake clientset, the node queued
// in its zone's RateLimitedTimedQueue) and applies the library's
// NoExecuteAction to the same node and a library RateLimited queue in the
// same state, then compares the node's taints and the node's state in the
// queue.
func TestNoExecuteAction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		node := conditionNode(t)
		ready := &v1.NodeCondition{Type: v1.NodeReady,
			Status: rapid.SampledFrom([]v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse, v1.ConditionUnknown, "Other"}).Draw(t, "ready")}
		state := rapid.SampledFrom([]queueState{"absent", "queued", "processed"}).Draw(t, "queue")

		upQ := nodescheduler.NewRateLimitedTimedQueue(flowcontrol.NewFakeAlwaysRateLimiter())
		ourQ := timedqueue.NewRateLimited[string](float32(math.Inf(1)))
		for _, q := range []interface {
			Add(string, any) bool
		}{upQ, ourQ} {
			if state != "absent" {
				q.Add(node.Name, string(node.UID))
			}
		}
		if state == "processed" {
			upQ.Try(logger, func(nodescheduler.TimedValue) (bool, time.Duration) { return true, 0 })
			ourQ.Try(func(timedqueue.TimedValue[string]) (bool, time.Duration) { return true, 0 })
		}

		client := clientsetfake.NewClientset(node.DeepCopy())
		nodelifecycle.ProcessTaintBaseEviction(context.Background(), client, upQ, node.DeepCopy(), ready)
		written, err := client.CoreV1().Nodes().Get(context.Background(), node.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}

		a := ours.NoExecuteAction(node, ready)
		got := a.Swap.Apply(node.Spec.Taints, gen.Epoch)
		switch a.Kind {
		case ours.Enqueue:
			if a.ClearTombstone {
				ourQ.Remove(node.Name)
			}
			ourQ.Add(node.Name, string(node.UID))
		case ours.Untaint:
			ourQ.Remove(node.Name)
		}

		probe := func(try func() bool, add func() bool) queueState {
			switch {
			case try():
				return "queued"
			case !add():
				return "processed"
			}
			return "absent"
		}
		wantState := probe(func() bool {
			called := false
			upQ.Try(logger, func(nodescheduler.TimedValue) (bool, time.Duration) { called = true; return false, time.Hour })
			return called
		}, func() bool { return upQ.Add(node.Name, nil) })
		gotState := probe(func() bool {
			return ourQ.Try(func(timedqueue.TimedValue[string]) (bool, time.Duration) { return false, time.Hour }) > 0
		}, func() bool { return ourQ.Add(node.Name, nil) })

		if w, g := taintSet(written.Spec.Taints), taintSet(got); !slices.Equal(g, w) || gotState != wantState {
			t.Fatalf("NoExecuteAction(%s, Ready %s), queue %s: upstream taints %q, queue %s; evictkit %v: taints %q, queue %s",
				show(node), ready.Status, state, w, wantState, a.Kind, g, gotState)
		}
	})
}
