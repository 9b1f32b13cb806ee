package devicetaints_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/devicetaints"
)

var (
	genKey     = rapid.SampledFrom([]string{"", "a", "b"})
	genValue   = rapid.SampledFrom([]string{"", "x"})
	genEffect  = rapid.SampledFrom([]resourceapi.DeviceTaintEffect{noExec, noExec, noSch, none, ""})
	genOp      = rapid.SampledFrom([]resourceapi.DeviceTolerationOperator{"", equal, exists, "Lt"})
	genPool    = rapid.SampledFrom([]string{"p1", "p2"})
	genDevice  = rapid.SampledFrom([]string{"d0", "d1", "d2"})
	genAdded   = rapid.SampledFrom([]*metav1.Time{nil, at(0), at(0), at(10 * time.Second), at(-time.Minute)})
	genSeconds = rapid.SampledFrom([]*int64{nil, nil, ptr.To[int64](-1), ptr.To[int64](0), ptr.To[int64](5), ptr.To[int64](30)})
)

func genTaint() *rapid.Generator[resourceapi.DeviceTaint] {
	return rapid.Custom(func(t *rapid.T) resourceapi.DeviceTaint {
		return resourceapi.DeviceTaint{Key: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "key"), Value: genValue.Draw(t, "value"),
			Effect: rapid.SampledFrom([]resourceapi.DeviceTaintEffect{noExec, noExec, noSch, none}).Draw(t, "effect"), TimeAdded: genAdded.Draw(t, "added")}
	})
}

func genTol() *rapid.Generator[resourceapi.DeviceToleration] {
	return rapid.Custom(func(t *rapid.T) resourceapi.DeviceToleration {
		return resourceapi.DeviceToleration{Key: genKey.Draw(t, "key"), Operator: genOp.Draw(t, "op"), Value: genValue.Draw(t, "value"),
			Effect: genEffect.Draw(t, "effect"), TolerationSeconds: genSeconds.Draw(t, "seconds")}
	})
}

// genSlice draws slice name of a pool, with some of the devices given.
func genSlice(name string, devices ...string) *rapid.Generator[*resourceapi.ResourceSlice] {
	return rapid.Custom(func(t *rapid.T) *resourceapi.ResourceSlice {
		var devs []resourceapi.Device
		for _, d := range devices {
			if rapid.Bool().Draw(t, "has-"+d) {
				devs = append(devs, device(d, rapid.SliceOfN(genTaint(), 0, 2).Draw(t, "taints-"+d)...))
			}
		}
		return slice(name, genPool.Draw(t, "pool"), rapid.Int64Range(1, 2).Draw(t, "gen"), devs...)
	})
}

func genResults() *rapid.Generator[[]resourceapi.DeviceRequestAllocationResult] {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) resourceapi.DeviceRequestAllocationResult {
		return result(genPool.Draw(t, "pool"), genDevice.Draw(t, "device"), rapid.SliceOfN(genTol(), 0, 2).Draw(t, "tols")...)
	}), 1, 3)
}

func genRule(name string) *rapid.Generator[devicetaints.Rule] {
	return rapid.Custom(func(t *rapid.T) devicetaints.Rule {
		r := devicetaints.Rule{Name: name, UID: types.UID("uid-" + name), Generation: 1, Taint: genTaint().Draw(t, "taint")}
		if rapid.IntRange(0, 5).Draw(t, "selector") > 0 {
			r.Selector = &devicetaints.Selector{}
			if rapid.Bool().Draw(t, "by-pool") {
				r.Selector.Pool = ptr.To(genPool.Draw(t, "pool"))
			}
			if rapid.Bool().Draw(t, "by-device") {
				r.Selector.Device = ptr.To(genDevice.Draw(t, "device"))
			}
		}
		return r
	})
}

// An Exists toleration with an empty key tolerates every taint of its
// effect (every taint at all with an empty effect), whatever its value.
func TestPropertyExistsEmptyKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		taint := genTaint().Draw(t, "taint")
		tol := resourceapi.DeviceToleration{Operator: exists, Value: genValue.Draw(t, "value"), Effect: genEffect.Draw(t, "effect")}
		want := tol.Effect == "" || tol.Effect == taint.Effect
		if got := devicetaints.Tolerates(tol, taint); got != want {
			t.Fatalf("Tolerates(%+v, %+v) = %v, want %v", tol, taint, got, want)
		}
	})
}

// noEarlier fails unless after evicts no earlier than before.
func noEarlier(t *rapid.T, before, after devicetaints.Decision) {
	if after.Evict && (!before.Evict || after.At.Before(before.At)) {
		t.Fatalf("eviction made earlier: before %v, after %v", before, after)
	}
}

// A toleration without seconds (tolerating forever), added to any
// allocation result, never makes an eviction earlier; nor does any
// toleration added to a result that had none. (A toleration with fewer
// seconds than one already matching does: the smallest seconds count.)
func TestPropertyAddedTolerationNeverEvictsEarlier(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sl := []*resourceapi.ResourceSlice{genSlice("s1", "d0", "d1", "d2").Draw(t, "s1"), genSlice("s2", "d0", "d1", "d2").Draw(t, "s2")}
		rules := []devicetaints.Rule{genRule("r1").Draw(t, "r1"), genRule("r2").Draw(t, "r2")}
		s := devicetaints.NewSnapshot(sl, nil, rules, devicetaints.Options{})
		c := claim("c", nil, genResults().Draw(t, "results")...)
		before := s.Claim(c)

		added := genTol().Draw(t, "added")
		i := rapid.IntRange(0, len(c.Status.Allocation.Devices.Results)-1).Draw(t, "result")
		res := &c.Status.Allocation.Devices.Results[i]
		if len(res.Tolerations) > 0 {
			added.TolerationSeconds = nil
		}
		res.Tolerations = append(res.Tolerations, added)
		noEarlier(t, before, s.Claim(c))
	})
}

// The decision is the earliest due time of its taints: the deciding taint
// is one of the reasons; removing every rule never makes it earlier; and
// the order in which slices, claims and rules are given does not matter.
func TestPropertySnapshotLaws(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := pod("p", "c1", "c2")
		sl := []*resourceapi.ResourceSlice{genSlice("s1", "d0", "d1", "d2").Draw(t, "s1"), genSlice("s2", "d0", "d1", "d2").Draw(t, "s2"), genSlice("s3", "d0", "d1", "d2").Draw(t, "s3")}
		cl := []*resourceapi.ResourceClaim{claim("c1", []*v1.Pod{p}, genResults().Draw(t, "c1")...), claim("c2", []*v1.Pod{p}, genResults().Draw(t, "c2")...)}
		rules := []devicetaints.Rule{genRule("r1").Draw(t, "r1"), genRule("r2").Draw(t, "r2")}
		d := devicetaints.NewSnapshot(sl, cl, rules, devicetaints.Options{}).Pod(p)
		if d.Evict && !slices.Contains(d.Taints(), d.Taint()) {
			t.Fatalf("deciding taint %v not among %v", d.Taint(), d.Taints())
		}
		if d.Evict != (d.Taint().Effect == noExec) {
			t.Fatalf("decision %v decided by a %q taint", d, d.Taint().Effect)
		}
		noEarlier(t, d, devicetaints.NewSnapshot(sl, cl, nil, devicetaints.Options{}).Pod(p))

		sl2 := rapid.Permutation(sl).Draw(t, "slice order")
		d2 := devicetaints.NewSnapshot(sl2, []*resourceapi.ResourceClaim{cl[1], cl[0]}, []devicetaints.Rule{rules[1], rules[0]}, devicetaints.Options{}).Pod(p)
		if d.String() != d2.String() || !slices.EqualFunc(d.Taints(), d2.Taints(), func(a, b devicetaints.Taint) bool { return a.String() == b.String() }) {
			t.Fatalf("order matters: %v %v, then %v %v", d, d.Taints(), d2, d2.Taints())
		}
	})
}

// After any sequence of informer events, the controller decides every pod
// as a snapshot of the objects it holds does: its incremental caches never
// go stale.
func TestPropertyControllerMatchesSnapshot(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := devicetaints.NewController(devicetaints.Options{})
		slicesNow := map[string]*resourceapi.ResourceSlice{}
		claimsNow := map[string]*resourceapi.ResourceClaim{}
		rulesNow := map[string]*devicetaints.Rule{}
		podsNow := map[string]*v1.Pod{}
		podNames := []string{"p1", "p2", "p3"}
		for i := range rapid.IntRange(1, 40).Draw(t, "steps") {
			l := func(s string) string { return fmt.Sprintf("%s%d", s, i) }
			switch rapid.IntRange(0, 7).Draw(t, l("kind")) {
			case 0, 1:
				// Each slice publishes its own device, so that no pool
				// publishes one twice (upstream is random then).
				i := rapid.IntRange(0, 2).Draw(t, l("slice"))
				name := fmt.Sprintf("s%d", i)
				old := slicesNow[name]
				if rapid.IntRange(0, 4).Draw(t, l("delete")) == 0 {
					delete(slicesNow, name)
					c.SliceChanged(old, nil)
					break
				}
				s := genSlice(name, fmt.Sprintf("d%d", i)).Draw(t, l("new"))
				if old != nil {
					s.Spec.Pool = old.Spec.Pool // a slice stays in its pool
					s.Spec.Pool.Generation = rapid.Int64Range(old.Spec.Pool.Generation, old.Spec.Pool.Generation+1).Draw(t, l("gen"))
				}
				slicesNow[name] = s
				c.SliceChanged(old, s)
			case 2, 3:
				name := rapid.SampledFrom([]string{"c1", "c2"}).Draw(t, l("claim"))
				old := claimsNow[name]
				if rapid.IntRange(0, 4).Draw(t, l("delete")) == 0 {
					delete(claimsNow, name)
					c.ClaimChanged(old, nil)
					break
				}
				// An allocation, once made, stays until it is removed.
				var cl *resourceapi.ResourceClaim
				if old != nil && old.Status.Allocation != nil {
					cl = old.DeepCopy()
					if rapid.IntRange(0, 3).Draw(t, l("deallocate")) == 0 {
						cl.Status.Allocation = nil
					}
				} else {
					cl = claim(name, nil, genResults().Draw(t, l("results"))...)
					if rapid.IntRange(0, 3).Draw(t, l("unallocated")) == 0 {
						cl.Status.Allocation = nil
					}
				}
				cl.Status.ReservedFor = nil
				for _, pn := range rapid.SliceOfNDistinct(rapid.SampledFrom(podNames), 0, 3, rapid.ID[string]).Draw(t, l("reserved")) {
					cl.Status.ReservedFor = append(cl.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: pn, UID: types.UID("uid-" + pn)})
				}
				claimsNow[name] = cl
				c.ClaimChanged(old, cl)
			case 4, 5:
				name := rapid.SampledFrom([]string{"r1", "r2"}).Draw(t, l("rule"))
				old := rulesNow[name]
				if rapid.IntRange(0, 4).Draw(t, l("delete")) == 0 {
					delete(rulesNow, name)
					c.RuleChanged(old, nil)
					break
				}
				r := genRule(name).Draw(t, l("new"))
				rulesNow[name] = &r
				c.RuleChanged(old, &r)
			default:
				name := rapid.SampledFrom(podNames).Draw(t, l("pod"))
				old := podsNow[name]
				if rapid.IntRange(0, 4).Draw(t, l("delete")) == 0 {
					delete(podsNow, name)
					c.PodChanged(old, nil)
					break
				}
				p := pod(name, rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"c1", "c2", "c3"}), 0, 2, rapid.ID[string]).Draw(t, l("claims"))...)
				if rapid.IntRange(0, 4).Draw(t, l("unbound")) == 0 {
					p.Spec.NodeName = ""
				}
				podsNow[name] = p
				c.PodChanged(old, p)
			}
			c.Step(t0)
		}
		var rules []devicetaints.Rule
		for _, name := range slices.Sorted(maps.Keys(rulesNow)) {
			rules = append(rules, *rulesNow[name])
		}
		s := devicetaints.NewSnapshot(slices.Collect(maps.Values(slicesNow)), slices.Collect(maps.Values(claimsNow)), rules, devicetaints.Options{})
		for _, name := range slices.Sorted(maps.Keys(podsNow)) {
			p := podsNow[name]
			if got, want := c.Decision(p), s.Pod(p); got.String() != want.String() || len(got.Taints()) != len(want.Taints()) {
				t.Fatalf("pod %s: controller %v %v, snapshot %v %v", name, got, got.Taints(), want, want.Taints())
			}
		}
	})
}
