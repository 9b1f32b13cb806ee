package tainteviction

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/tolerations"
)

// BenchmarkNodeTainted: 1,000 nodes of 30 pods each get a NoExecute taint;
// a third of the pods tolerate it 300 s, a third 60 to 600 s, a third
// forever. conformance/bench_tainteviction_test.go has the 5,000-node run
// beside upstream's controller.
func BenchmarkNodeTainted(b *testing.B) {
	const nodes, perNode = 1000, 30
	byNode := map[string][]*v1.Pod{}
	var plain, tainted []*v1.Node
	notReady := taints.NotReadyNoExecute()
	notReady.TimeAdded = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for n := range nodes {
		node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%04d", n)}}
		t := node.DeepCopy()
		t.Spec.Taints = []v1.Taint{notReady}
		plain, tainted = append(plain, node), append(tainted, t)
		for i := range perNode {
			p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("pod-%04d-%02d", n, i)}, Spec: v1.PodSpec{NodeName: node.Name}}
			switch i % 3 {
			case 0:
				p.Spec.Tolerations, _ = tolerations.WithDefaultSeconds(nil, tolerations.DefaultSecondsOptions{})
			case 1:
				s := int64(60 + (n*perNode+i)%541)
				p.Spec.Tolerations = []v1.Toleration{{Key: taints.KeyNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &s}}
			default:
				p.Spec.Tolerations = tolerations.DaemonSet(tolerations.DaemonSetOptions{})
			}
			byNode[node.Name] = append(byNode[node.Name], p)
		}
	}
	lister := PodListerFunc(func(node string) ([]*v1.Pod, error) { return byNode[node], nil })
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		c := New(lister, Options{})
		for i := range tainted {
			if err := c.NodeUpdated(now, plain[i], tainted[i]); err != nil {
				b.Fatal(err)
			}
		}
		_ = c.Step(now)
	}
}
