package conformance_test

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/kubernetes/pkg/controller/devicetainteviction"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/devicetaints"
)

// The device-taint world: two drivers, three pools, devices d0..d5 (a
// device name is published by one slice of its pool at most, since
// upstream looks a device published twice up in map order), taints and
// tolerations over two keys and two values.
var (
	dtDrivers = []string{"drv", "drv2"}
	dtKeys    = []string{"a", "b"}
	dtValues  = []string{"", "x"}
	dtPods    = []string{"p1", "p2", "p3", "p4"}
	dtClaims  = []string{"c1", "c2", "c3", "c4"}
	// dtSlices are the slices that may exist: name, driver, pool, devices.
	dtSlices = []struct {
		name, driver, pool string
		devices            []string
	}{
		{"s1", "drv", "p1", []string{"d0", "d1"}},
		{"s1b", "drv", "p1", []string{"d2", "d3"}},
		{"s2", "drv", "p2", []string{"d0", "d4"}},
		{"s3", "drv2", "p1", []string{"d0", "d5"}},
	}
	dtDevices = []devicetaints.DeviceID{
		{Driver: "drv", Pool: "p1", Device: "d0"}, {Driver: "drv", Pool: "p1", Device: "d1"},
		{Driver: "drv", Pool: "p1", Device: "d2"}, {Driver: "drv", Pool: "p1", Device: "d3"},
		{Driver: "drv", Pool: "p2", Device: "d0"}, {Driver: "drv", Pool: "p2", Device: "d4"},
		{Driver: "drv2", Pool: "p1", Device: "d0"}, {Driver: "drv2", Pool: "p1", Device: "d5"},
		{Driver: "drv", Pool: "p2", Device: "gone"},
	}
)

// dtBase is the time of the scenarios: where a testing/synctest bubble's
// clock starts.
var dtBase = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// dtTime draws a TimeAdded: one of a few times around dtBase, each
// with its own fraction of a second (so that two evictions of different
// taints never fall due at the same instant), or, if nilToo, sometimes
// none.
func dtTime(nilToo bool) *rapid.Generator[*metav1.Time] {
	return rapid.Custom(func(t *rapid.T) *metav1.Time {
		offsets := []time.Duration{100 * time.Millisecond, 1300 * time.Millisecond, 5700 * time.Millisecond, -20900 * time.Millisecond, 40500 * time.Millisecond, -3*time.Hour - 200*time.Millisecond}
		if nilToo && rapid.IntRange(0, 9).Draw(t, "nil") == 0 {
			return nil
		}
		return &metav1.Time{Time: dtBase.Add(rapid.SampledFrom(offsets).Draw(t, "offset"))}
	})
}

func dtTaint(nilToo bool) *rapid.Generator[resourceapi.DeviceTaint] {
	return rapid.Custom(func(t *rapid.T) resourceapi.DeviceTaint {
		return resourceapi.DeviceTaint{
			Key:       rapid.SampledFrom(dtKeys).Draw(t, "key"),
			Value:     rapid.SampledFrom(dtValues).Draw(t, "value"),
			Effect:    rapid.SampledFrom([]resourceapi.DeviceTaintEffect{"NoExecute", "NoExecute", "NoExecute", "NoSchedule", "None", "Future"}).Draw(t, "effect"),
			TimeAdded: dtTime(nilToo).Draw(t, "added"),
		}
	})
}

// dtSeconds are toleration seconds no two of which differ by exactly the
// rule status period, so that an eviction never falls due at the instant
// of a status check that another eviction of the same taint asked for.
var dtSeconds = []*int64{nil, nil, ptr.To[int64](-5), ptr.To[int64](0), ptr.To[int64](3), ptr.To[int64](25), ptr.To[int64](60)}

func dtToleration() *rapid.Generator[resourceapi.DeviceToleration] {
	return rapid.Custom(func(t *rapid.T) resourceapi.DeviceToleration {
		tol := resourceapi.DeviceToleration{
			Key:               rapid.SampledFrom(append([]string{""}, dtKeys...)).Draw(t, "key"),
			Operator:          rapid.SampledFrom([]resourceapi.DeviceTolerationOperator{"", "Equal", "Exists", "Exists", "exists"}).Draw(t, "op"),
			Value:             rapid.SampledFrom(dtValues).Draw(t, "value"),
			Effect:            rapid.SampledFrom([]resourceapi.DeviceTaintEffect{"", "NoExecute", "NoExecute", "NoSchedule", "None"}).Draw(t, "effect"),
			TolerationSeconds: rapid.SampledFrom(dtSeconds).Draw(t, "seconds"),
		}
		return tol
	})
}

func TestDeviceTolerates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		taint := dtTaint(true).Draw(t, "taint")
		tol := dtToleration().Draw(t, "toleration")
		if got, want := devicetaints.Tolerates(tol, taint), resourceclaim.ToleratesTaint(tol, taint); got != want {
			t.Fatalf("Tolerates(%s, %s): upstream %v, evictkit %v", show(tol), show(taint), want, got)
		}
	})
}

// dtSlice draws slice i of dtSlices with generation gen, publishing some
// of its devices with taints.
func dtSlice(i int, nilToo bool) *rapid.Generator[*resourceapi.ResourceSlice] {
	return rapid.Custom(func(t *rapid.T) *resourceapi.ResourceSlice {
		d := dtSlices[i]
		s := &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: d.name},
			Spec: resourceapi.ResourceSliceSpec{Driver: d.driver,
				Pool: resourceapi.ResourcePool{Name: d.pool, Generation: rapid.Int64Range(1, 2).Draw(t, "generation"), ResourceSliceCount: 2}},
		}
		for _, name := range d.devices {
			if rapid.IntRange(0, 3).Draw(t, "has "+name) > 0 {
				s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: name, Taints: rapid.SliceOfN(dtTaint(nilToo), 0, 3).Draw(t, "taints "+name)})
			}
		}
		return s
	})
}

// dtRule draws DeviceTaintRule name.
func dtRule(name string, nilToo bool) *rapid.Generator[*resourceapi.DeviceTaintRule] {
	return rapid.Custom(func(t *rapid.T) *resourceapi.DeviceTaintRule {
		r := &resourceapi.DeviceTaintRule{
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: 1},
			Spec:       resourceapi.DeviceTaintRuleSpec{Taint: dtTaint(nilToo).Draw(t, "taint")},
		}
		if rapid.IntRange(0, 5).Draw(t, "selector") > 0 {
			sel := &resourceapi.DeviceTaintSelector{}
			if rapid.Bool().Draw(t, "by driver") {
				sel.Driver = ptr.To(rapid.SampledFrom(dtDrivers).Draw(t, "driver"))
			}
			if rapid.Bool().Draw(t, "by pool") {
				sel.Pool = ptr.To(rapid.SampledFrom([]string{"p1", "p2"}).Draw(t, "pool"))
			}
			if rapid.IntRange(0, 2).Draw(t, "by device") == 0 {
				sel.Device = ptr.To(rapid.SampledFrom([]string{"d0", "d1", "d4", "gone"}).Draw(t, "device"))
			}
			r.Spec.DeviceSelector = sel
		}
		return r
	})
}

// asRule is the conversion the devicetaints.Rule documentation shows.
func asRule(r *resourceapi.DeviceTaintRule) *devicetaints.Rule {
	if r == nil {
		return nil
	}
	return &devicetaints.Rule{Name: r.Name, UID: r.UID, Generation: r.Generation,
		Selector: (*devicetaints.Selector)(r.Spec.DeviceSelector), Taint: r.Spec.Taint, Conditions: r.Status.Conditions}
}

// dtResults draws the devices of an allocation with their tolerations.
func dtResults() *rapid.Generator[[]resourceapi.DeviceRequestAllocationResult] {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) resourceapi.DeviceRequestAllocationResult {
		id := rapid.SampledFrom(dtDevices).Draw(t, "device")
		return resourceapi.DeviceRequestAllocationResult{Request: "req", Driver: id.Driver, Pool: id.Pool, Device: id.Device,
			Tolerations: rapid.SliceOfN(dtToleration(), 0, 3).Draw(t, "tolerations")}
	}), 1, 3)
}

// dtUID is a pod's UID in its incarnation n.
func dtUID(pod string, n int) types.UID { return types.UID(fmt.Sprintf("uid-%s-%d", pod, n)) }

// dtWorld is one drawn cluster.
type dtWorld struct {
	slices []*resourceapi.ResourceSlice
	rules  []*resourceapi.DeviceTaintRule
	claims []*resourceapi.ResourceClaim
	pods   []*v1.Pod
	wrc    bool
}

func dtWorldGen() *rapid.Generator[dtWorld] {
	return rapid.Custom(func(t *rapid.T) dtWorld {
		var w dtWorld
		w.wrc = rapid.Bool().Draw(t, "WorkloadResourceClaims")
		for i := range dtSlices {
			if rapid.IntRange(0, 4).Draw(t, fmt.Sprintf("slice %d", i)) > 0 {
				w.slices = append(w.slices, dtSlice(i, true).Draw(t, dtSlices[i].name))
			}
		}
		for _, name := range []string{"r1", "r2", "r3"} {
			if rapid.Bool().Draw(t, "has "+name) {
				w.rules = append(w.rules, dtRule(name, true).Draw(t, name))
			}
		}
		for _, name := range dtPods {
			p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: dtUID(name, 0)}}
			if rapid.IntRange(0, 4).Draw(t, "bound "+name) > 0 {
				p.Spec.NodeName = "node"
			}
			if rapid.IntRange(0, 4).Draw(t, "deleting "+name) == 0 {
				p.DeletionTimestamp = &metav1.Time{Time: gen.Epoch}
			}
			if rapid.IntRange(0, 3).Draw(t, "group "+name) == 0 {
				p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(rapid.SampledFrom([]string{"g1", "g2"}).Draw(t, "group of "+name))}
			}
			for j, c := range rapid.SliceOfNDistinct(rapid.SampledFrom(dtClaims), 0, 2, rapid.ID[string]).Draw(t, "claims "+name) {
				pc := v1.PodResourceClaim{Name: fmt.Sprintf("pc%d", j)}
				switch rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("claim %s %d", name, j)) {
				case 0:
					pc.ResourceClaimTemplateName = ptr.To("tmpl")
					p.Status.ResourceClaimStatuses = append(p.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: pc.Name, ResourceClaimName: ptr.To(c)})
				case 1:
					p.Status.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{ResourceClaimName: c}
					continue
				default:
					pc.ResourceClaimName = ptr.To(c)
				}
				p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, pc)
			}
			w.pods = append(w.pods, p)
		}
		for _, name := range dtClaims {
			c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}
			if rapid.IntRange(0, 5).Draw(t, "allocated "+name) > 0 {
				c.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: dtResults().Draw(t, "results "+name)}}
			}
			// Mostly, a claim is reserved for the pods that use it, and
			// made for one of them; sometimes for others, with a stale
			// UID, or by a PodGroup.
			var users []*v1.Pod
			for _, p := range w.pods {
				for cn := range resourceclaim.PodClaims(p) {
					if cn == name {
						users = append(users, p)
					}
				}
			}
			switch rapid.IntRange(0, 5).Draw(t, "owner "+name) {
			case 0:
				p := rapid.SampledFrom(w.pods).Draw(t, "owning pod "+name)
				c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: ptr.To(true)}}
			case 1:
				c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "PodGroup", Name: "g1", UID: "uid-g1", Controller: ptr.To(true)}}
			case 2:
			default:
				if len(users) > 0 {
					p := rapid.SampledFrom(users).Draw(t, "owning user "+name)
					c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: ptr.To(true)}}
				}
			}
			reserved := rapid.SliceOfNDistinct(rapid.SampledFrom(w.pods), 0, 2, func(p *v1.Pod) string { return p.Name }).Draw(t, "reserved "+name)
			for _, p := range users {
				if rapid.IntRange(0, 4).Draw(t, "reserved for user "+name+p.Name) > 0 && !slices.Contains(reserved, p) {
					reserved = append(reserved, p)
				}
			}
			for _, p := range reserved {
				uid := p.UID
				if rapid.IntRange(0, 7).Draw(t, "stale uid "+name+p.Name) == 0 {
					uid = dtUID(p.Name, 1)
				}
				c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: uid})
			}
			if rapid.IntRange(0, 3).Draw(t, "group reservation "+name) == 0 {
				c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: "g1", UID: "uid-g1"})
			}
			w.claims = append(w.claims, c)
		}
		return w
	})
}

// dtReasons writes upstream's reasons and the library's taints alike.
func dtReasons(up *devicetainteviction.Eviction) []string {
	var out []string
	for _, r := range up.Reasons {
		kv := fmt.Sprintf("%s=%s:%s", r.Key, r.Value, r.Effect)
		if r.Rule != "" {
			out = append(out, "rule "+r.Rule+" "+kv)
		} else {
			out = append(out, fmt.Sprintf("slice %s %s/%s/%s #%d %s", r.Slice, r.Driver, r.Pool, r.Device, r.Index, kv))
		}
	}
	return out
}

func dtTaints(ts []devicetaints.Taint) []string {
	var out []string
	for _, r := range ts {
		kv := fmt.Sprintf("%s=%s:%s", r.Key, r.Value, r.Effect)
		if r.Rule != "" {
			out = append(out, "rule "+r.Rule+" "+kv)
		} else {
			out = append(out, fmt.Sprintf("slice %s %s #%d %s", r.Slice, r.Device, r.Index, kv))
		}
	}
	return out
}

// dtSame compares an upstream eviction with a library decision.
func dtSame(up *devicetainteviction.Eviction, d devicetaints.Decision) bool {
	if up == nil || !d.Evict {
		return up == nil && !d.Evict
	}
	return up.When.Equal(d.At) && strings.Join(dtReasons(up), "; ") == strings.Join(dtTaints(d.Taints()), "; ")
}

func dtShow(up *devicetainteviction.Eviction) string {
	if up == nil {
		return "never"
	}
	return fmt.Sprintf("evict at %s %v", up.When.UTC().Format(time.RFC3339Nano), dtReasons(up))
}

// dtPanics reports whether the claim holds a device taint without
// TimeAdded that one of its NoExecute tolerations with seconds matches:
// upstream's claimEvictionTime dereferences the missing time then.
func dtPanics(s *devicetaints.Snapshot, c *resourceapi.ResourceClaim) bool {
	for _, r := range c.Status.Allocation.Devices.Results {
		for _, tn := range s.DeviceTaints(devicetaints.DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}) {
			if tn.Effect != resourceapi.DeviceTaintEffectNoExecute || tn.TimeAdded != nil {
				continue
			}
			for _, tol := range r.Tolerations {
				if tol.Effect == resourceapi.DeviceTaintEffectNoExecute && tol.TolerationSeconds != nil && resourceclaim.ToleratesTaint(tol, tn.DeviceTaint) {
					return true
				}
			}
		}
	}
	return false
}

// TestDeviceTaintDecisions: the eviction of every allocated claim and of
// every pod in a random cluster, by upstream's controller (its handlers fed
// the slices, the rules, then the claims; claimEvictionTime and
// podEvictionTime read back) and by devicetaints.Snapshot. Where upstream
// panics (a taint without TimeAdded that a toleration with seconds
// matches), the library decides without that taint's time, and the test
// checks only that the panic was that one.
func TestDeviceTaintDecisions(t *testing.T) {
	var worlds, claims, claimsEvicted, pods, evicting, panics atomic.Int64
	rapid.Check(t, func(t *rapid.T) {
		w := dtWorldGen().Draw(t, "world")
		var rules []devicetaints.Rule
		for _, r := range w.rules {
			rules = append(rules, *asRule(r))
		}
		snap := devicetaints.NewSnapshot(w.slices, w.claims, rules, devicetaints.Options{WorkloadResourceClaims: w.wrc})

		factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
		up, err := devicetainteviction.NewForTest(fake.NewClientset(), factory, nil, w.wrc)
		if err != nil {
			t.Fatal(err)
		}
		podStore := factory.Core().V1().Pods().Informer().GetIndexer()
		for _, p := range w.pods {
			_ = podStore.Add(p)
		}
		for _, s := range w.slices {
			up.HandleSliceChange(nil, s)
		}
		for _, r := range w.rules {
			up.HandleRuleChange(nil, r)
		}
		panicked := map[string]bool{}
		for _, c := range w.claims {
			func() {
				defer func() {
					if r := recover(); r != nil {
						if !dtPanics(snap, c) {
							t.Fatalf("upstream panics on claim %s: %v", show(c), r)
						}
						panicked[c.Name] = true
						panics.Add(1)
					}
				}()
				up.HandleClaimChange(nil, c)
			}()
		}
		upClaims := up.ClaimEvictions()
		for _, c := range w.claims {
			if c.Status.Allocation == nil || panicked[c.Name] {
				continue
			}
			want, got := upClaims["ns/"+c.Name], snap.Claim(c)
			if !dtSame(want, got) {
				t.Fatalf("claim %s: upstream %s, evictkit %v %v", c.Name, dtShow(want), got, dtTaints(got.Taints()))
			}
			claims.Add(1)
			if got.Evict {
				claimsEvicted.Add(1)
			}
		}
	pods:
		for _, p := range w.pods {
			for name := range resourceclaim.PodClaims(p) {
				if panicked[name] {
					continue pods
				}
			}
			want, got := up.PodEvictionTime(p), snap.Pod(p)
			if !dtSame(want, got) {
				t.Fatalf("pod %s: upstream %s, evictkit %v %v", show(p), dtShow(want), got, dtTaints(got.Taints()))
			}
			pods.Add(1)
			if got.Evict {
				evicting.Add(1)
				if got.Taint().TimeAdded == nil || !got.At.Equal(dtDue(got)) {
					t.Fatalf("pod %s: deciding taint %v does not make %v", p.Name, got.Taint(), got.At)
				}
			}
		}
		worlds.Add(1)
	})
	t.Logf("%d clusters: %d claim decisions (%d evicted) and %d pod decisions (%d evicted) equal to upstream's; %d claims on which upstream panics",
		worlds.Load(), claims.Load(), claimsEvicted.Load(), pods.Load(), evicting.Load(), panics.Load())
}

// dtDue is when the deciding taint is due: its TimeAdded, plus seconds
// (checked loosely: the time lies at TimeAdded plus a whole number of
// seconds, within the range of dtSeconds).
func dtDue(d devicetaints.Decision) time.Time {
	base := d.Taint().TimeAdded.Time
	for _, s := range []int64{0, 3, 25, 60} {
		if at := base.Add(time.Duration(s) * time.Second); at.Equal(d.At) {
			return at
		}
	}
	return base
}
