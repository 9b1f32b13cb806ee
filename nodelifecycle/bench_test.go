package nodelifecycle

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

// benchNode is a node as a kubelet reports it: five conditions, a lease, two taints.
func benchNode() *v1.Node {
	n := mkNode("n", t0.Add(-time.Hour),
		readyCond(v1.ConditionTrue, t0, t0.Add(-time.Hour)),
		cond(v1.NodeMemoryPressure, v1.ConditionFalse, t0, t0.Add(-time.Hour)),
		cond(v1.NodeDiskPressure, v1.ConditionFalse, t0, t0.Add(-time.Hour)),
		cond(v1.NodePIDPressure, v1.ConditionFalse, t0, t0.Add(-time.Hour)),
		cond(v1.NodeNetworkUnavailable, v1.ConditionFalse, t0, t0.Add(-time.Hour)))
	n.Spec.Taints = []v1.Taint{ns("dedicated"), ne(v1.TaintNodeNotReady)}
	return n
}

func BenchmarkEvaluate(b *testing.B) {
	cfg := noBreaker()
	node := benchNode()
	lease := mkLease("n", "1", &t0)
	saved := Evaluate(node, lease, nil, t0, cfg).Probe
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Evaluate(node, lease, &saved, at(10*time.Second), cfg)
		}
	})
	b.Run("expired", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Evaluate(node, lease, &saved, at(time.Minute), cfg)
		}
	})
	b.Run("first-sight", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Evaluate(node, lease, nil, t0, cfg)
		}
	})
}

// BenchmarkConditionEquality compares the hand-written equality with the reflective one
// upstream uses.
func BenchmarkConditionEquality(b *testing.B) {
	x, y := readyCond(v1.ConditionTrue, t0, t0), readyCond(v1.ConditionTrue, t0, t0)
	b.Run("sameCondition", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = sameCondition(&x, &y)
		}
	})
	b.Run("Semantic.DeepEqual", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = apiequality.Semantic.DeepEqual(&x, &y)
		}
	})
}

func BenchmarkTaints(b *testing.B) {
	node := benchNode()
	node.Status.Conditions[0].Status = v1.ConditionUnknown
	ready := &node.Status.Conditions[0]
	b.Run("NoScheduleTaints", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = NoScheduleTaints(node)
		}
	})
	b.Run("NoExecuteAction", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = NoExecuteAction(node, ready)
		}
	})
}

func BenchmarkZones(b *testing.B) {
	cfg := Config{}
	for _, size := range []int{10, 1000} {
		conds := members(size/2, size/2, 0)
		b.Run(fmt.Sprintf("CountReady+ComputeZoneState/%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = ComputeZoneState(CountReady(conds), cfg)
			}
		})
	}
	for _, zones := range []int{1, 10, 100} {
		prev := map[string]ZoneState{}
		counts := map[string]ZoneCounts{}
		for i := range zones {
			z := fmt.Sprintf("z%d", i)
			prev[z] = ZoneNormal
			counts[z] = ZoneCounts{Ready: 10, NotReady: 10 * (i % 2)}
		}
		b.Run(fmt.Sprintf("HandleDisruption/zones=%d", zones), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = HandleDisruption(prev, counts, cfg)
			}
		})
	}
}
