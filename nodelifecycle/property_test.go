package nodelifecycle

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"pgregory.net/rapid"
)

var statuses = []v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse, v1.ConditionUnknown, "", "Maybe"}

// genTime draws a time within ±20 minutes of t0, often on whole seconds, sometimes 1 ns off,
// sometimes in another Location.
func genTime(t *rapid.T, label string) time.Time {
	d := time.Duration(rapid.IntRange(-1200, 1200).Draw(t, label+"s"))*time.Second +
		time.Duration(rapid.IntRange(-1, 1).Draw(t, label+"ns"))
	tm := t0.Add(d)
	if rapid.IntRange(0, 9).Draw(t, label+"loc") == 0 {
		tm = tm.In(time.FixedZone("UTC+1", 3600))
	}
	return tm
}

func genCondition(t *rapid.T, typ v1.NodeConditionType, label string) v1.NodeCondition {
	c := v1.NodeCondition{
		Type:               typ,
		Status:             rapid.SampledFrom(statuses).Draw(t, label+"status"),
		LastHeartbeatTime:  mt(genTime(t, label+"hb")),
		LastTransitionTime: mt(genTime(t, label+"tr")),
	}
	if rapid.Bool().Draw(t, label+"reason") {
		c.Reason, c.Message = ReasonStatusUnknown, MessageStatusUnknown
	}
	return c
}

func genNode(t *rapid.T) *v1.Node {
	n := mkNode("n", genTime(t, "created"))
	types := []v1.NodeConditionType{v1.NodeReady, v1.NodeMemoryPressure, v1.NodeDiskPressure, v1.NodePIDPressure, v1.NodeNetworkUnavailable, v1.NodeReady}
	for i, typ := range rapid.Permutation(types).Draw(t, "order") {
		if rapid.Bool().Draw(t, "has"+strconv.Itoa(i)) {
			n.Status.Conditions = append(n.Status.Conditions, genCondition(t, typ, "c"+strconv.Itoa(i)))
		}
	}
	return n
}

func genLease(t *rapid.T) *coordinationv1.Lease {
	if rapid.IntRange(0, 3).Draw(t, "noLease") == 0 {
		return nil
	}
	rv := strconv.Itoa(rapid.IntRange(1, 5).Draw(t, "leaseRV"))
	if rapid.IntRange(0, 5).Draw(t, "nilRenew") == 0 {
		return mkLease("n", rv, nil)
	}
	return mkLease("n", rv, ptr(genTime(t, "renew")))
}

func genProbe(t *rapid.T) *Probe {
	if rapid.IntRange(0, 4).Draw(t, "noProbe") == 0 {
		return nil
	}
	p := &Probe{ProbeTime: genTime(t, "probe"), ReadyTransitionTime: genTime(t, "probeTr")}
	if rapid.Bool().Draw(t, "savedReady") {
		p.Ready = ptr(genCondition(t, v1.NodeReady, "saved"))
	}
	if rapid.Bool().Draw(t, "savedLease") {
		var renew *time.Time
		if rapid.Bool().Draw(t, "savedRenew") {
			renew = ptr(genTime(t, "savedRenewAt"))
		}
		p.Lease = savedLease(strconv.Itoa(rapid.IntRange(1, 5).Draw(t, "savedRV")), renew)
	}
	return p
}

func genConfig(t *rapid.T) Config {
	c := Config{}
	c.DisableLeaseCircuitBreaker = true
	c.MonitorGracePeriod = time.Duration(rapid.IntRange(-10, 120).Draw(t, "grace")) * time.Second
	c.StartupGracePeriod = time.Duration(rapid.IntRange(-10, 120).Draw(t, "startup")) * time.Second
	return c
}

// rank orders verdicts by how unhealthy they say the node is.
func rank(v Verdict) int {
	if v == Fresh {
		return 0
	}
	return 1
}

// TestPropertyHealthMonotoneInNow: with the same inputs, a node judged later is never
// healthier: expired at t ⇒ expired at any t' > t, Current True at t' ⇒ True at t; the breaker
// asks for the live lease exactly when the node would expire; inputs are never modified.
func TestPropertyHealthMonotoneInNow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		node, lease, saved, cfg := genNode(t), genLease(t), genProbe(t), genConfig(t)
		t1 := genTime(t, "t1")
		t2 := t1.Add(time.Duration(rapid.Int64Range(0, int64(30*time.Minute)).Draw(t, "later")))
		nodeCopy, leaseCopy := node.DeepCopy(), lease.DeepCopy()
		var savedCopy *Probe
		if saved != nil {
			savedCopy = &Probe{ProbeTime: saved.ProbeTime, ReadyTransitionTime: saved.ReadyTransitionTime}
			if saved.Ready != nil {
				savedCopy.Ready = ptr(*saved.Ready)
			}
			if saved.Lease != nil {
				savedCopy.Lease = ptr(*saved.Lease)
			}
		}

		h1 := Evaluate(node, lease, saved, t1, cfg)
		h2 := Evaluate(node, lease, saved, t2, cfg)
		if rank(h1.Verdict) > rank(h2.Verdict) {
			t.Fatalf("healthier later: %v at %v, %v at %v", h1.Verdict, t1, h2.Verdict, t2)
		}
		if h2.Current != nil && h2.Current.Status == v1.ConditionTrue && (h1.Current == nil || h1.Current.Status != v1.ConditionTrue) {
			t.Fatalf("Ready True only later")
		}
		if h1.Verdict == Fresh && h1.Status != nil {
			t.Fatalf("fresh node written")
		}
		if h1.Status != nil && (h1.Current == nil || h1.Current.Status != v1.ConditionUnknown) {
			t.Fatalf("written status must hold Ready Unknown")
		}
		if h1.Verdict == Expired && (h1.Current == nil || h1.Current.Status != v1.ConditionUnknown) {
			t.Fatalf("expired node must be Unknown, got %v", h1.Current)
		}
		on := cfg
		on.DisableLeaseCircuitBreaker = false
		b := Evaluate(node, lease, saved, t1, on)
		if (b.Verdict == NeedsLeaseCheck) != (h1.Verdict == Expired) {
			t.Fatalf("breaker %v vs %v", b.Verdict, h1.Verdict)
		}
		if !apiequality.Semantic.DeepEqual(nodeCopy, node) || !apiequality.Semantic.DeepEqual(leaseCopy, lease) {
			t.Fatalf("inputs modified")
		}
		if (saved == nil) != (savedCopy == nil) || saved != nil && !reflect.DeepEqual(*savedCopy, *saved) {
			t.Fatalf("saved probe modified")
		}
	})
}

// TestPropertySameConditionIsSemanticEquality checks the hand-written condition equality
// against apimachinery's.
func TestPropertySameConditionIsSemanticEquality(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genCondition(t, v1.NodeReady, "a")
		b := a
		switch rapid.IntRange(0, 4).Draw(t, "mutate") {
		case 1:
			b = genCondition(t, v1.NodeReady, "b")
		case 2:
			b.LastHeartbeatTime = mt(b.LastHeartbeatTime.In(time.FixedZone("X", 7200)))
		case 3:
			b.Status = rapid.SampledFrom(statuses).Draw(t, "bs")
		case 4:
			b.Type = v1.NodeMemoryPressure
		}
		if got, want := sameCondition(&a, &b), apiequality.Semantic.DeepEqual(&a, &b); got != want {
			t.Fatalf("sameCondition = %v, Semantic.DeepEqual = %v for %+v / %+v", got, want, a, b)
		}
	})
}

// severity orders zone states from healthy to fully disrupted.
func severity(s ZoneState) int {
	return map[ZoneState]int{ZoneNormal: 0, ZonePartialDisruption: 1, ZoneFullDisruption: 2}[s]
}

// TestPropertyZoneStateIsAFunctionOfCounts: the state depends on the numbers of ready and
// not-ready members only — not on their order, reasons, times or which not-ready status they
// have; it is fully disrupted exactly when no member is ready and some is not; a zone with at
// most 2 not-ready members and a ready one is Normal; one more not-ready member never makes
// it healthier, one more ready member never makes it sicker, and a higher threshold never
// makes it sicker either (upstream's conformance test compares the states themselves).
func TestPropertyZoneStateIsAFunctionOfCounts(t *testing.T) {
	gen := rapid.Custom(func(t *rapid.T) *v1.NodeCondition {
		if rapid.IntRange(0, 5).Draw(t, "nil") == 0 {
			return nil
		}
		return ptr(genCondition(t, v1.NodeReady, "m"))
	})
	rapid.Check(t, func(t *rapid.T) {
		cfg := Config{}
		cfg.UnhealthyZoneThreshold = rapid.SampledFrom([]float32{0, 0.1, 0.33, 0.55, 0.9, 1, 1.5}).Draw(t, "threshold")
		conds := rapid.SliceOfN(gen, 0, 80).Draw(t, "members")
		c := CountReady(conds)
		got := ComputeZoneState(c, cfg)
		if full := c.Ready == 0 && c.NotReady > 0; full != (got == ZoneFullDisruption) {
			t.Fatalf("%+v: %v", c, got)
		}
		if c.NotReady <= 2 && c.Ready > 0 && got != ZoneNormal {
			t.Fatalf("%+v: %v, want Normal", c, got)
		}
		if c.Size() == 0 && got != ZoneNormal {
			t.Fatalf("empty zone: %v", got)
		}
		sicker, healthier := c, c
		sicker.NotReady++
		healthier.Ready++
		if severity(ComputeZoneState(sicker, cfg)) < severity(got) {
			t.Fatalf("%+v is %v, one more not-ready member makes it %v", c, got, ComputeZoneState(sicker, cfg))
		}
		if severity(ComputeZoneState(healthier, cfg)) > severity(got) {
			t.Fatalf("%+v is %v, one more ready member makes it %v", c, got, ComputeZoneState(healthier, cfg))
		}
		stricter := cfg
		stricter.UnhealthyZoneThreshold = cfg.Effective().UnhealthyZoneThreshold + 0.1
		if severity(ComputeZoneState(c, stricter)) > severity(got) {
			t.Fatalf("%+v: a higher threshold makes %v worse", c, got)
		}
		// Same counts, other members: shuffled, not-ready ones replaced by other not-ready kinds.
		other := rapid.Permutation(conds).Draw(t, "shuffled")
		for i, m := range other {
			if m == nil || m.Status != v1.ConditionTrue {
				other[i] = rapid.SampledFrom([]*v1.NodeCondition{nil, {Status: v1.ConditionFalse}, {Status: v1.ConditionUnknown}, {Status: "x"}}).Draw(t, "nr"+strconv.Itoa(i))
			} else {
				other[i] = &v1.NodeCondition{Status: v1.ConditionTrue, Reason: "r" + strconv.Itoa(i)}
			}
		}
		if CountReady(other) != c || ComputeZoneState(CountReady(other), cfg) != got {
			t.Fatalf("state changed with the same counts")
		}
		if c.Size() != len(conds) {
			t.Fatalf("size %d of %d members", c.Size(), len(conds))
		}
	})
}

// TestPropertyHandleDisruptionLaws checks the structural laws of one transition.
func TestPropertyHandleDisruptionLaws(t *testing.T) {
	zones := []string{"a", "b", "c", "d"}
	states := []ZoneState{ZoneInitial, ZoneNormal, ZonePartialDisruption, ZoneFullDisruption}
	rapid.Check(t, func(t *rapid.T) {
		cfg := Config{}
		prev := rapid.MapOf(rapid.SampledFrom(zones), rapid.SampledFrom(states)).Draw(t, "prev")
		counts := rapid.MapOf(rapid.SampledFrom(zones), rapid.Custom(func(t *rapid.T) ZoneCounts {
			return ZoneCounts{Ready: rapid.IntRange(0, 60).Draw(t, "r"), NotReady: rapid.IntRange(0, 60).Draw(t, "nr")}
		})).Draw(t, "counts")
		prevCopy := maps.Clone(prev)
		d := HandleDisruption(prev, counts, cfg)
		if !maps.Equal(prev, prevCopy) {
			t.Fatalf("prev modified")
		}
		if !slices.Equal(slices.Sorted(maps.Keys(d.States)), slices.Sorted(maps.Keys(counts))) {
			t.Fatalf("states %v for counts %v", d.States, counts)
		}
		var dropped []string
		for z := range prev {
			if _, ok := counts[z]; !ok {
				dropped = append(dropped, z)
			}
		}
		slices.Sort(dropped)
		if !slices.Equal(dropped, d.Dropped) {
			t.Fatalf("dropped %v, want %v", d.Dropped, dropped)
		}
		if d.Entered && d.Exited {
			t.Fatalf("entered and exited at once")
		}
		for z, r := range d.Rates {
			if _, ok := d.States[z]; !ok {
				t.Fatalf("rate for unknown zone %q", z)
			}
			if d.Entered && r != 0 {
				t.Fatalf("rate %v while entering the all-down mode", r)
			}
			if want, _ := ZoneRate(d.States[z], counts[z].Size(), cfg); !d.Entered && r != want {
				t.Fatalf("zone %q rate %v, want %v", z, r, want)
			}
		}
		if d.Entered && (!d.AllDown() || len(d.Rates) != len(d.States)) {
			t.Fatalf("entered without every zone down at rate 0")
		}
		if d.Exited && len(d.Rates) != len(d.States) {
			t.Fatalf("exit must set every zone's rate")
		}
		for z, s := range d.States {
			if s != ComputeZoneState(counts[z], cfg) {
				t.Fatalf("zone %q state %v", z, s)
			}
		}
	})
}

func noExecuteKeys(list []v1.Taint) (notReady, unreachable bool) {
	for _, t := range list {
		if t.Effect != v1.TaintEffectNoExecute {
			continue
		}
		notReady = notReady || t.Key == v1.TaintNodeNotReady
		unreachable = unreachable || t.Key == v1.TaintNodeUnreachable
	}
	return notReady, unreachable
}

var taintPool = []v1.Taint{
	ne(v1.TaintNodeNotReady), ne(v1.TaintNodeUnreachable), ns(v1.TaintNodeNotReady), ns(v1.TaintNodeUnreachable),
	ns(v1.TaintNodeMemoryPressure), ns("foo"), {Key: v1.TaintNodeNotReady, Value: "v", Effect: v1.TaintEffectNoExecute},
	{Key: v1.TaintNodeUnreachable, Effect: v1.TaintEffectPreferNoSchedule},
}

// TestPropertyNeverBothNoExecuteTaints: whatever the node carried before, every taint write
// of the controller (immediate swaps, untaint, the queued taint, the eventual set of
// NoExecuteTaintChanges) leaves at most one of not-ready:NoExecute and unreachable:NoExecute; so a
// node that never held both never will, through any sequence of Ready changes and passes.
func TestPropertyNeverBothNoExecuteTaints(t *testing.T) {
	readyGen := rapid.Custom(func(t *rapid.T) *v1.NodeCondition {
		if rapid.IntRange(0, 5).Draw(t, "nilReady") == 0 {
			return nil
		}
		return ptr(readyCond(rapid.SampledFrom(statuses).Draw(t, "ready"), t0, t0))
	})
	rapid.Check(t, func(t *rapid.T) {
		start := rapid.SliceOfN(rapid.SampledFrom(taintPool), 0, 6).Draw(t, "taints")
		n := withTaints(mkNode("n", t0), start...)
		nr, ur := noExecuteKeys(start)
		heldBoth := nr && ur
		now := t0
		for i := range rapid.IntRange(1, 20).Draw(t, "steps") {
			now = now.Add(time.Second)
			ready := readyGen.Draw(t, "r"+strconv.Itoa(i))
			n = n.DeepCopy()
			n.Status.Conditions = nil
			if ready != nil {
				n.Status.Conditions = []v1.NodeCondition{*ready}
			}
			before := n.Spec.Taints
			var s Swap
			switch rapid.IntRange(0, 4).Draw(t, "op"+strconv.Itoa(i)) {
			case 0:
				s = NoExecuteAction(n, ready).Swap
			case 1:
				s = TaintQueued(n).Swap
			case 2:
				s = MarkReachable(n).Swap
			case 3:
				s.Add, s.Remove = NoExecuteTaintChanges(n, ready)
			case 4:
				s.Add, s.Remove = NoScheduleTaints(n)
			}
			n.Spec.Taints = s.Apply(before, now)
			nr, ur := noExecuteKeys(n.Spec.Taints)
			wroteNoExecute := false
			for _, tt := range append(slices.Clone(s.Add), s.Remove...) {
				wroteNoExecute = wroteNoExecute || tt.Effect == v1.TaintEffectNoExecute
			}
			if nr && ur && (!heldBoth || wroteNoExecute) {
				t.Fatalf("both NoExecute taints after %+v on %+v (ready %v)", s, before, ready)
			}
			if wroteNoExecute {
				heldBoth = false
			}
		}
	})
}
