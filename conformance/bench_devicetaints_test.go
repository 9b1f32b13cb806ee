package conformance_test

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/controller/devicetainteviction"
	"k8s.io/utils/ptr"

	"github.com/evictkit/eviction/devicetaints"
)

// dtBenchCluster is 1,000 pods, each with its own allocated claim on one
// device of 10 pools of 100 devices (one slice per pool). A third of the
// claims tolerate every NoExecute taint for 300 s, a third forever, a third
// not at all. rule taints every device of the driver (NoExecute, added
// at dtBase); tainted is pool 0's slice with every device tainted.
type dtBenchCluster struct {
	slices         []*resourceapi.ResourceSlice
	claims         []*resourceapi.ResourceClaim
	pods           []*v1.Pod
	rule           *resourceapi.DeviceTaintRule
	clean, tainted *resourceapi.ResourceSlice
	evictedByRule  int // pods the rule evicts (now or later)
	evictedBySlice int // pods the tainted slice evicts
}

func newDTBenchCluster() *dtBenchCluster {
	const pools, perPool = 10, 100
	c := &dtBenchCluster{}
	for p := range pools {
		s := &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("slice-%d", p)},
			Spec: resourceapi.ResourceSliceSpec{Driver: "gpu.example.com", Pool: resourceapi.ResourcePool{Name: fmt.Sprintf("pool-%d", p), Generation: 1, ResourceSliceCount: 1}}}
		for d := range perPool {
			s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: fmt.Sprintf("gpu-%d", d)})
		}
		c.slices = append(c.slices, s)
	}
	c.clean = c.slices[0]
	c.tainted = c.clean.DeepCopy()
	for i := range c.tainted.Spec.Devices {
		c.tainted.Spec.Devices[i].Taints = []resourceapi.DeviceTaint{{Key: "health", Value: "bad", Effect: resourceapi.DeviceTaintEffectNoExecute, TimeAdded: &metav1.Time{Time: dtBase}}}
	}
	for i := range pools * perPool {
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("pod-%04d", i), UID: types.UID(fmt.Sprintf("uid-%04d", i))},
			Spec: v1.PodSpec{NodeName: "node", ResourceClaims: []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To(fmt.Sprintf("claim-%04d", i))}}}}
		res := resourceapi.DeviceRequestAllocationResult{Request: "gpu", Driver: "gpu.example.com", Pool: fmt.Sprintf("pool-%d", i%pools), Device: fmt.Sprintf("gpu-%d", i/pools)}
		switch i % 3 {
		case 0:
			res.Tolerations = []resourceapi.DeviceToleration{{Operator: resourceapi.DeviceTolerationOpExists, Effect: resourceapi.DeviceTaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}}
		case 1:
			res.Tolerations = []resourceapi.DeviceToleration{{Operator: resourceapi.DeviceTolerationOpExists, Effect: resourceapi.DeviceTaintEffectNoExecute}}
		}
		if i%3 != 1 {
			c.evictedByRule++
			if i%pools == 0 {
				c.evictedBySlice++
			}
		}
		claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("claim-%04d", i), UID: types.UID(fmt.Sprintf("claim-uid-%04d", i))},
			Status: resourceapi.ResourceClaimStatus{
				Allocation:  &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{res}}},
				ReservedFor: []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: pod.Name, UID: pod.UID}},
			}}
		c.pods = append(c.pods, pod)
		c.claims = append(c.claims, claim)
	}
	c.rule = &resourceapi.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "maintenance", UID: "rule-uid", Generation: 1},
		Spec: resourceapi.DeviceTaintRuleSpec{DeviceSelector: &resourceapi.DeviceTaintSelector{Driver: ptr.To("gpu.example.com")},
			Taint: resourceapi.DeviceTaint{Key: "maintenance", Effect: resourceapi.DeviceTaintEffectNoExecute, TimeAdded: &metav1.Time{Time: dtBase}}}}
	return c
}

func (c *dtBenchCluster) upstream(b *testing.B) *devicetainteviction.Controller {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	up, err := devicetainteviction.NewForTest(fake.NewClientset(), factory, nil, false)
	if err != nil {
		b.Fatal(err)
	}
	store := factory.Core().V1().Pods().Informer().GetIndexer()
	for _, s := range c.slices {
		up.HandleSliceChange(nil, s)
	}
	for _, cl := range c.claims {
		up.HandleClaimChange(nil, cl)
	}
	for _, p := range c.pods {
		if err := store.Add(p); err != nil {
			b.Fatal(err)
		}
		up.HandlePodChange(nil, p)
	}
	return up
}

func (c *dtBenchCluster) ours() *devicetaints.Controller {
	core := devicetaints.NewController(devicetaints.Options{})
	for _, s := range c.slices {
		core.SliceChanged(nil, s)
	}
	for _, cl := range c.claims {
		core.ClaimChanged(nil, cl)
	}
	for _, p := range c.pods {
		core.PodChanged(nil, p)
	}
	core.Step(dtBase)
	return core
}

// BenchmarkDeviceTaintRule: a DeviceTaintRule that taints every device of
// the driver is created and deleted again, with 1,000 allocated claims and
// their pods in the caches: every claim is decided again twice, and two
// thirds of the pods are scheduled for eviction, then cancelled. Upstream:
// its handler (on a work queue that drops its items, so none of the
// queue's work is counted). The core: RuleChanged and Step after each, at
// an instant when no eviction is due yet, so that Step also computes the
// rule's status (which upstream leaves to a worker) and hands nothing out.
func BenchmarkDeviceTaintRule(b *testing.B) {
	c := newDTBenchCluster()
	b.Run("claims=1000/upstream", func(b *testing.B) {
		up := c.upstream(b)
		b.ReportAllocs()
		for b.Loop() {
			up.HandleRuleChange(nil, c.rule)
			if n := up.ScheduledCount(); n != c.evictedByRule {
				b.Fatalf("%d evictions scheduled, want %d", n, c.evictedByRule)
			}
			up.HandleRuleChange(c.rule, nil)
		}
	})
	b.Run("claims=1000/evictkit", func(b *testing.B) {
		core := c.ours()
		rule := asRule(c.rule)
		before := dtBase.Add(-time.Hour)
		b.ReportAllocs()
		for b.Loop() {
			core.RuleChanged(nil, rule)
			if res := core.Step(before); len(res.Statuses) != 1 || len(res.Evictions) != 0 {
				b.Fatalf("%d statuses, %d evictions", len(res.Statuses), len(res.Evictions))
			}
			core.RuleChanged(rule, nil)
			core.Step(before)
		}
	})
}

// BenchmarkDeviceTaintSlice: the slice of one pool (100 devices, 100
// claims) gets a NoExecute taint on every device, and loses it again.
func BenchmarkDeviceTaintSlice(b *testing.B) {
	c := newDTBenchCluster()
	b.Run("claims=1000/upstream", func(b *testing.B) {
		up := c.upstream(b)
		b.ReportAllocs()
		for b.Loop() {
			up.HandleSliceChange(c.clean, c.tainted)
			if n := up.ScheduledCount(); n != c.evictedBySlice {
				b.Fatalf("%d evictions scheduled, want %d", n, c.evictedBySlice)
			}
			up.HandleSliceChange(c.tainted, c.clean)
		}
	})
	b.Run("claims=1000/evictkit", func(b *testing.B) {
		core := c.ours()
		before := dtBase.Add(-time.Hour)
		b.ReportAllocs()
		for b.Loop() {
			core.SliceChanged(c.clean, c.tainted)
			core.Step(before)
			core.SliceChanged(c.tainted, c.clean)
			core.Step(before)
		}
	})
}

// BenchmarkDeviceTaintDecide: every one of the 1,000 pods decided, with
// the rule tainting every device (upstream's podEvictionTime; the core's
// Decision, which also builds the exported list of taints).
func BenchmarkDeviceTaintDecide(b *testing.B) {
	c := newDTBenchCluster()
	b.Run("claims=1000/upstream", func(b *testing.B) {
		up := c.upstream(b)
		up.HandleRuleChange(nil, c.rule)
		b.ReportAllocs()
		for b.Loop() {
			if n := up.CountEvicting(c.pods); n != c.evictedByRule {
				b.Fatalf("%d evicted, want %d", n, c.evictedByRule)
			}
		}
	})
	b.Run("claims=1000/evictkit", func(b *testing.B) {
		core := c.ours()
		core.RuleChanged(nil, asRule(c.rule))
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for _, p := range c.pods {
				if core.Decision(p).Evict {
					n++
				}
			}
			if n != c.evictedByRule {
				b.Fatalf("%d evicted, want %d", n, c.evictedByRule)
			}
		}
	})
}
