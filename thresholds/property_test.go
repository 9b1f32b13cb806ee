package thresholds

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"
)

// genQuantityText draws a positive quantity in one of the usual notations.
func genQuantityText() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		n := rapid.Int64Range(1, 1<<20).Draw(t, "n")
		suffix := rapid.SampledFrom([]string{"", "Ki", "Mi", "Gi", "k", "M", "G", "m", "e3"}).Draw(t, "suffix")
		return strconv.FormatInt(n, 10) + suffix
	})
}

// genPercentText draws a percentage between 0% and 100% with up to three
// decimals, in text form.
func genPercentText() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		whole := rapid.IntRange(0, 99).Draw(t, "whole")
		frac := rapid.IntRange(0, 999).Draw(t, "frac")
		if frac == 0 {
			return fmt.Sprintf("%d%%", whole)
		}
		return fmt.Sprintf("%d.%03d%%", whole, frac)
	})
}

func genValueText() *rapid.Generator[string] {
	return rapid.OneOf(genQuantityText(), genPercentText())
}

// genConfig draws a valid configuration: soft thresholds always have a
// positive grace period so that thresholds can be told apart by the flag
// they came from, and node allocatable is not enforced, so that every
// threshold comes from a map entry.
func genConfig() *rapid.Generator[Config] {
	return rapid.Custom(func(t *rapid.T) Config {
		c := Config{
			Hard:                   map[string]string{},
			Soft:                   map[string]string{},
			SoftGracePeriod:        map[string]string{},
			MinimumReclaim:         map[string]string{},
			EnforceNodeAllocatable: []string{},
		}
		for _, s := range Signals() {
			k := string(s)
			if rapid.Bool().Draw(t, "hard "+k) {
				c.Hard[k] = genValueText().Draw(t, "hard value "+k)
			}
			if rapid.Bool().Draw(t, "soft "+k) {
				c.Soft[k] = genValueText().Draw(t, "soft value "+k)
				c.SoftGracePeriod[k] = (time.Duration(rapid.IntRange(1, 3600).Draw(t, "grace "+k)) * time.Second).String()
			}
			if rapid.Bool().Draw(t, "min-reclaim "+k) {
				v := genValueText().Draw(t, "min-reclaim value "+k)
				if v == "0%" {
					v = "0"
				}
				c.MinimumReclaim[k] = v
			}
		}
		return c
	})
}

// genThreshold draws thresholds from a small pool of signals and values so
// that lists often contain equivalent thresholds.
func genThreshold() *rapid.Generator[Threshold] {
	return rapid.Custom(func(t *rapid.T) Threshold {
		th := Threshold{
			Signal:      rapid.SampledFrom([]Signal{MemoryAvailable, NodeFsAvailable, PIDAvailable, "unknown"}).Draw(t, "signal"),
			GracePeriod: time.Duration(rapid.IntRange(0, 2).Draw(t, "grace")) * time.Minute,
			Value:       genPoolValue().Draw(t, "value"),
		}
		if rapid.Bool().Draw(t, "has min-reclaim") {
			v := genPoolValue().Draw(t, "min-reclaim")
			th.MinReclaim = &v
		}
		return th
	})
}

func genPoolValue() *rapid.Generator[Value] {
	return rapid.Custom(func(t *rapid.T) Value {
		if rapid.Bool().Draw(t, "percentage") {
			return Value{Percentage: rapid.SampledFrom([]float32{0, 0.05, 0.1, 0.5, 1}).Draw(t, "pct")}
		}
		// "1Gi" and "1024Mi" are the same value in different notations.
		v := resource.MustParse(rapid.SampledFrom([]string{"1", "100Mi", "1Gi", "1024Mi", "2Gi"}).Draw(t, "qty"))
		if rapid.Bool().Draw(t, "decimal form") {
			v.AsDec() // the other internal representation
		}
		return Value{Quantity: &v}
	})
}

func genObservations() *rapid.Generator[Observations] {
	return rapid.Custom(func(t *rapid.T) Observations {
		o := Observations{}
		for _, s := range []Signal{MemoryAvailable, NodeFsAvailable, PIDAvailable, "unknown"} {
			if !rapid.Bool().Draw(t, "observed "+string(s)) {
				continue
			}
			capacity := rapid.Int64Range(0, 4<<30).Draw(t, "capacity")
			available := rapid.Int64Range(-10, capacity).Draw(t, "available")
			at := t0.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, "time")) * time.Minute)
			a, c := resource.NewQuantity(available, resource.BinarySI), resource.NewQuantity(capacity, resource.BinarySI)
			if rapid.Bool().Draw(t, "decimal form") {
				a.AsDec()
			}
			o[s] = Observation{Available: a, Capacity: c, Time: at}
		}
		return o
	})
}

func equalLists(a, b []Threshold) bool {
	return slices.EqualFunc(a, b, Threshold.Equal)
}

func TestPropertyMergeIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(genThreshold(), 0, 6).Draw(t, "a")
		b := rapid.SliceOfN(genThreshold(), 0, 6).Draw(t, "b")
		m := Merge(a, b)
		if again := Merge(m, b); !equalLists(m, again) {
			t.Fatalf("Merge(Merge(a, b), b) = %v, want %v", describeAll(again), describeAll(m))
		}
		if again := Merge(m, m); !equalLists(m, again) {
			t.Fatalf("Merge(m, m) = %v, want %v", describeAll(again), describeAll(m))
		}
		if !equalLists(m[:len(a)], a) {
			t.Fatalf("Merge must start with a")
		}
	})
}

func TestPropertyMergeOrderInsensitive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(genThreshold(), 0, 6).Draw(t, "a")
		b := rapid.SliceOfN(genThreshold(), 0, 6).Draw(t, "b")
		ab, ba := Merge(a, b), Merge(b, a)
		covers := func(x, y []Threshold) bool {
			for _, t := range x {
				if !slices.ContainsFunc(y, t.Equivalent) {
					return false
				}
			}
			return true
		}
		if !covers(ab, ba) || !covers(ba, ab) {
			t.Fatalf("Merge(a, b) = %v and Merge(b, a) = %v differ as sets", describeAll(ab), describeAll(ba))
		}
		if !covers(a, ab) || !covers(b, ab) {
			t.Fatalf("Merge(a, b) lost an element")
		}
	})
}

func TestPropertyMetEnforceMinReclaimIsSuperset(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ts := rapid.SliceOfN(genThreshold(), 0, 8).Draw(t, "thresholds")
		o := genObservations().Draw(t, "observations")
		loose, strict := Met(ts, o, false), Met(ts, o, true)
		// Both are subsequences of ts; check threshold by threshold.
		for i, th := range ts {
			one := ts[i : i+1]
			inLoose, inStrict := len(Met(one, o, false)) == 1, len(Met(one, o, true)) == 1
			if inLoose && !inStrict {
				t.Fatalf("%s met without min-reclaim but not with it", describe(th))
			}
		}
		if len(loose) > len(strict) {
			t.Fatalf("Met(false) has %d thresholds, Met(true) %d", len(loose), len(strict))
		}
	})
}

func TestPropertyParseStringRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genConfig().Draw(t, "config")
		ts, err := ParseConfig(c)
		if err != nil {
			t.Fatalf("valid config rejected: %v", err)
		}
		// Rebuild the four maps from the thresholds and their String forms.
		back := Config{
			Hard:            map[string]string{},
			Soft:            map[string]string{},
			SoftGracePeriod: map[string]string{},
			MinimumReclaim:  map[string]string{},
		}
		for _, th := range ts {
			k := string(th.Signal)
			text := th.String()
			v := text[len(k)+1:]
			if th.IsHard() {
				back.Hard[k] = v
			} else {
				back.Soft[k] = v
				back.SoftGracePeriod[k] = th.GracePeriod.String()
			}
			if th.MinReclaim != nil {
				back.MinimumReclaim[k] = th.MinReclaim.String()
			}
		}
		// Flag syntax round trip of the rebuilt maps.
		f, err := Flags{
			Hard:            []string{FormatThresholdFlag(back.Hard)},
			Soft:            []string{FormatThresholdFlag(back.Soft)},
			SoftGracePeriod: []string{FormatMapFlag(back.SoftGracePeriod)},
			MinimumReclaim:  []string{FormatMapFlag(back.MinimumReclaim)},
		}.Apply(Config{EnforceNodeAllocatable: c.EnforceNodeAllocatable})
		if err != nil {
			t.Fatalf("formatted flags rejected: %v", err)
		}
		again, err := ParseConfig(f)
		if err != nil {
			t.Fatalf("String output rejected: %v", err)
		}
		if !equalLists(ts, again) {
			t.Fatalf("round trip changed thresholds:\n%v\n%v", describeAll(ts), describeAll(again))
		}
		for i := range ts {
			if ts[i].Value.Quantity == nil && math.Float32bits(ts[i].Value.Percentage) != math.Float32bits(again[i].Value.Percentage) {
				t.Fatalf("percentage bits changed: %v → %v", ts[i].Value.Percentage, again[i].Value.Percentage)
			}
		}
	})
}

func TestPropertyPercentStringRoundTrip(t *testing.T) {
	// Any percentage text the kubelet accepts prints back to the same float32.
	rapid.Check(t, func(t *rapid.T) {
		f := rapid.Float32Range(0, 100).Draw(t, "percent")
		text := strconv.FormatFloat(float64(f), 'g', rapid.IntRange(1, 12).Draw(t, "digits"), 64) + "%"
		p, err := parsePercentage(text)
		if err != nil {
			t.Fatalf("parsePercentage(%q): %v", text, err)
		}
		s := Value{Percentage: p}.String()
		if s == "0%" || s == "100%" {
			t.Fatalf("%q prints as the disabling literal %q", text, s)
		}
		back, err := parsePercentage(s)
		if err != nil || math.Float32bits(back) != math.Float32bits(p) {
			t.Fatalf("%q → %v → %q → %v (%v)", text, p, s, back, err)
		}
	})
}

// snapshot deep-copies thresholds and observations, so that later
// reflect.DeepEqual comparisons detect any write, including the text cache
// inside a resource.Quantity.
func snapshot(ts []Threshold, o Observations) ([]Threshold, Observations) {
	cq := func(q *resource.Quantity) *resource.Quantity {
		if q == nil {
			return nil
		}
		c := q.DeepCopy()
		return &c
	}
	cv := func(v Value) Value { return Value{Quantity: cq(v.Quantity), Percentage: v.Percentage} }
	var tsc []Threshold
	if ts != nil {
		tsc = make([]Threshold, 0, len(ts))
	}
	for _, th := range ts {
		c := th
		c.Value = cv(th.Value)
		if th.MinReclaim != nil {
			m := cv(*th.MinReclaim)
			c.MinReclaim = &m
		}
		tsc = append(tsc, c)
	}
	var oc Observations
	if o != nil {
		oc = Observations{}
		for k, v := range o {
			oc[k] = Observation{Available: cq(v.Available), Capacity: cq(v.Capacity), Time: v.Time}
		}
	}
	return tsc, oc
}

func TestPropertyEvaluationDoesNotMutate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ts := rapid.SliceOfN(genThreshold(), 0, 8).Draw(t, "thresholds")
		cycles := rapid.SliceOfN(genObservations(), 1, 5).Draw(t, "cycles")
		tsBefore, _ := snapshot(ts, nil)
		e, err := NewEvaluator(ts, Options{MaxPodGracePeriodSeconds: 10})
		if err != nil {
			return // conflicting thresholds are rejected, nothing to evaluate
		}
		now := t0
		var prevObs Observations
		for i, o := range cycles {
			_, oBefore := snapshot(nil, o)
			st := e.State()
			stBefore := maps.Clone(st.ConditionLastObserved)
			firstBefore := slices.Clone(st.FirstObserved)

			r := e.Observe(now, o)
			_ = e.ReclaimSatisfied(o)
			_ = Met(ts, o, true)
			_ = UpdatedStats(ts, o, prevObs)
			_ = FirstObservedAt(r.Met, st.FirstObserved, now)
			_ = NodeConditionsLastObservedAt(r.Conditions, st.ConditionLastObserved, now)
			_, _, _ = StarvedResources(ts)
			_ = Merge(ts, r.Met)
			for _, th := range ts {
				_ = th.String()
				_ = th.Value.Resolve(q("1Gi"))
				for _, u := range ts {
					_ = th.Equal(u)
				}
			}

			if _, oAfter := snapshot(nil, o); !reflect.DeepEqual(oBefore, o) || !reflect.DeepEqual(oAfter, o) {
				t.Fatalf("cycle %d modified the observations", i)
			}
			if !reflect.DeepEqual(stBefore, st.ConditionLastObserved) || !reflect.DeepEqual(firstBefore, st.FirstObserved) {
				t.Fatalf("cycle %d modified the previous state maps", i)
			}
			prevObs = o
			now = now.Add(time.Minute)
		}
		if !reflect.DeepEqual(tsBefore, ts) {
			t.Fatalf("thresholds modified:\n%#v\n%#v", tsBefore, ts)
		}
	})
}

func TestPropertyEvaluatorMatchesPipeline(t *testing.T) {
	// The Evaluator is exactly the composition of the pure functions.
	rapid.Check(t, func(t *rapid.T) {
		ts := rapid.SliceOfN(genThreshold(), 1, 8).Draw(t, "thresholds")
		cycles := rapid.SliceOfN(genObservations(), 1, 6).Draw(t, "cycles")
		e, err := NewEvaluator(ts, Options{})
		if err != nil {
			return
		}
		var prevMet []Threshold
		var first ThresholdTimes
		var condLast ConditionTimes
		var last Observations
		now := t0
		for _, o := range cycles {
			met := Met(ts, o, false)
			if len(prevMet) > 0 {
				met = Merge(met, Met(prevMet, o, true))
			}
			first = FirstObservedAt(met, first, now)
			condLast = NodeConditionsLastObservedAt(NodeConditions(met), condLast, now)
			conds := NodeConditionsObservedSince(condLast, DefaultPressureTransitionPeriod, now)
			prevMet = MetGracePeriod(first, now)
			fresh := UpdatedStats(prevMet, o, last)
			last = o
			want, res, ok := StarvedResources(fresh)

			r := e.Observe(now, o)
			if !equalLists(r.Met, met) || !equalLists(r.Eligible, prevMet) || !equalLists(r.Fresh, fresh) ||
				!slices.Equal(r.Conditions, conds) || r.Reclaim != ok || r.Resource != res || (ok && !r.Threshold.Equal(want)) {
				t.Fatalf("evaluator and pipeline disagree at %v", now)
			}
			if ok && r.Soft == want.IsHard() {
				t.Fatalf("Soft flag wrong")
			}
			now = now.Add(time.Duration(rapid.IntRange(0, 90).Draw(t, "step")) * time.Second)
		}
	})
}

// withHoles returns a copy of o in which some signals o does not observe get
// an observation with a nil Available, an arbitrary capacity (maybe nil) and
// an arbitrary time.
func withHoles(t *rapid.T, o Observations, label string) Observations {
	out := maps.Clone(o)
	if out == nil {
		out = Observations{}
	}
	for _, s := range []Signal{MemoryAvailable, NodeFsAvailable, PIDAvailable, "unknown"} {
		if _, ok := o[s]; ok || !rapid.Bool().Draw(t, label+" hole "+string(s)) {
			continue
		}
		h := Observation{Time: t0.Add(time.Duration(rapid.IntRange(-1, 10).Draw(t, label+" hole time")) * time.Minute)}
		if rapid.Bool().Draw(t, label+" hole capacity?") {
			h.Capacity = resource.NewQuantity(rapid.Int64Range(0, 4<<30).Draw(t, label+" hole capacity"), resource.BinarySI)
		}
		out[s] = h
	}
	return out
}

func TestPropertyNilAvailableIsAbsent(t *testing.T) {
	// An observation with a nil Available is indistinguishable from no
	// observation, in the current cycle and as the previous one, for every
	// function that reads observations and for the Evaluator's decisions.
	rapid.Check(t, func(t *rapid.T) {
		ts := rapid.SliceOfN(genThreshold(), 0, 8).Draw(t, "thresholds")
		cycles := rapid.SliceOfN(genObservations(), 1, 6).Draw(t, "cycles")
		plain, err := NewEvaluator(ts, Options{})
		holey, _ := NewEvaluator(ts, Options{}) // same thresholds: fails exactly when plain does
		var last, lastHoley Observations
		now := t0
		for i, o := range cycles {
			h := withHoles(t, o, fmt.Sprint("cycle ", i))
			for _, enforce := range []bool{false, true} {
				if want, got := Met(ts, o, enforce), Met(ts, h, enforce); !equalLists(got, want) {
					t.Fatalf("Met(enforce=%v) with holes = %v, without = %v", enforce, describeAll(got), describeAll(want))
				}
			}
			if want, got := UpdatedStats(ts, o, last), UpdatedStats(ts, h, lastHoley); !equalLists(got, want) {
				t.Fatalf("UpdatedStats with holes = %v, without = %v", describeAll(got), describeAll(want))
			}
			if err == nil {
				want, got := plain.Observe(now, o), holey.Observe(now, h)
				if !equalLists(got.Met, want.Met) || !equalLists(got.Eligible, want.Eligible) ||
					!equalLists(got.Fresh, want.Fresh) || !slices.Equal(got.Conditions, want.Conditions) ||
					got.Reclaim != want.Reclaim || !got.Threshold.Equal(want.Threshold) || got.Resource != want.Resource {
					t.Fatalf("cycle %d: Evaluator with holes decided %+v, without %+v", i, got, want)
				}
				if !reflect.DeepEqual(holey.State().LastObservations, plain.State().LastObservations) {
					t.Fatalf("cycle %d: the Evaluator remembered absent observations", i)
				}
				if plain.ReclaimSatisfied(o) != holey.ReclaimSatisfied(h) {
					t.Fatalf("cycle %d: ReclaimSatisfied differs with holes", i)
				}
			}
			last, lastHoley = o, h
			now = now.Add(time.Duration(rapid.IntRange(0, 90).Draw(t, "step")) * time.Second)
		}
	})
}
