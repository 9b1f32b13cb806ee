package tolerations

import (
	"math"
	"reflect"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"pgregory.net/rapid"
)

var (
	genKey    = rapid.SampledFrom([]string{"", "a", "b", "example.com/c"})
	genValue  = rapid.SampledFrom([]string{"", "1", "5", "-3", "07", "x", "9223372036854775807", "9223372036854775808"})
	genEffect = rapid.SampledFrom([]v1.TaintEffect{"", noSched, prefer, noExec})
	genOp     = rapid.SampledFrom([]v1.TolerationOperator{"", equal, exists, lt, gt, "exists"})
	genSecs   = rapid.OneOf(
		rapid.Just[*int64](nil),
		rapid.Map(rapid.Int64Range(-10, 1000), func(s int64) *int64 { return &s }),
		rapid.Map(rapid.SampledFrom([]int64{9223372036, 9223372037, 18446744074, math.MaxInt64, math.MinInt64}), func(s int64) *int64 { return &s }),
	)
	genOpts = rapid.Custom(func(t *rapid.T) Options { return Options{ComparisonOperators: rapid.Bool().Draw(t, "gate")} })
)

func genTaint() *rapid.Generator[v1.Taint] {
	return rapid.Custom(func(t *rapid.T) v1.Taint {
		return v1.Taint{Key: genKey.Draw(t, "key"), Value: genValue.Draw(t, "value"), Effect: genEffect.Draw(t, "effect")}
	})
}

func genToleration() *rapid.Generator[v1.Toleration] {
	return rapid.Custom(func(t *rapid.T) v1.Toleration {
		return v1.Toleration{
			Key: genKey.Draw(t, "key"), Operator: genOp.Draw(t, "op"), Value: genValue.Draw(t, "value"),
			Effect: genEffect.Draw(t, "effect"), TolerationSeconds: genSecs.Draw(t, "seconds"),
		}
	})
}

func TestPropertyMatchAllToleratesEverything(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		all := v1.Toleration{Operator: exists, TolerationSeconds: genSecs.Draw(t, "seconds")}
		taint := v1.Taint{
			Key: rapid.String().Draw(t, "key"), Value: rapid.String().Draw(t, "value"),
			Effect: v1.TaintEffect(rapid.String().Draw(t, "effect")),
		}
		if !Tolerates(&all, &taint, genOpts.Draw(t, "opts")) {
			t.Fatalf("match-all toleration rejects %+v", taint)
		}
	})
}

func TestPropertyGateOnlyAffectsLtGt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tol, taint := genToleration().Draw(t, "tol"), genTaint().Draw(t, "taint")
		off, on := Tolerates(&tol, &taint, Options{}), Tolerates(&tol, &taint, Options{ComparisonOperators: true})
		switch {
		case tol.Operator == lt || tol.Operator == gt:
			if off {
				t.Fatalf("Lt/Gt matched with the gate off: %+v %+v", tol, taint)
			}
		case off != on:
			t.Fatalf("gate changed a %q toleration: %+v %+v", tol.Operator, tol, taint)
		}
	})
}

func TestPropertyFindUntoleratedAgreesWithMatching(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		taints := rapid.SliceOfN(genTaint(), 0, 6).Draw(t, "taints")
		tols := rapid.SliceOfN(genToleration(), 0, 5).Draw(t, "tols")
		opts := genOpts.Draw(t, "opts")
		taintsBefore, tolsBefore := deepClone(taints), deepClone(tols)

		found, untolerated := FindUntolerated(taints, tols, nil, opts)
		used, all := Matching(taints, tols, opts)
		if untolerated == all {
			t.Fatalf("FindUntolerated found=%v but Matching all=%v", untolerated, all)
		}
		if untolerated && AnyTolerates(tols, &found, opts) {
			t.Fatalf("FindUntolerated returned a tolerated taint %+v", found)
		}
		if all {
			if len(used) != len(taints) {
				t.Fatalf("Matching used %d tolerations for %d taints", len(used), len(taints))
			}
			for i := range used {
				if !Tolerates(&used[i], &taints[i], opts) {
					t.Fatalf("used[%d] %+v does not tolerate %+v", i, used[i], taints[i])
				}
			}
		} else if len(used) != 0 {
			t.Fatalf("partial result kept: %v", used)
		}

		// With the scheduler filter it agrees with Matching over the filtered list.
		var filtered []v1.Taint
		for i := range taints {
			if NoScheduleOrNoExecute(&taints[i]) {
				filtered = append(filtered, taints[i])
			}
		}
		_, untoleratedF := FindUntolerated(taints, tols, NoScheduleOrNoExecute, opts)
		if _, allF := Matching(filtered, tols, opts); untoleratedF == allF {
			t.Fatalf("filtered: FindUntolerated found=%v but Matching all=%v", untoleratedF, allF)
		}

		if !reflect.DeepEqual(taints, taintsBefore) || !reflect.DeepEqual(tols, tolsBefore) {
			t.Fatalf("inputs mutated")
		}
	})
}

func TestPropertyMinTolerationTimeIsTheMinimum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		taints := rapid.SliceOfN(genTaint(), 1, 5).Draw(t, "taints")
		tols := rapid.SliceOfN(genToleration(), 1, 5).Draw(t, "tols")
		used, all := Matching(taints, tols, Options{ComparisonOperators: true})
		if !all {
			used = tols // the law holds for any list
		}
		d, forever := MinTolerationTime(used)
		finite, attained := 0, false
		for i := range used {
			s := used[i].TolerationSeconds
			if s == nil {
				continue
			}
			if *s <= 0 {
				if d != 0 || forever {
					t.Fatalf("seconds %d but (%v, %v)", *s, d, forever)
				}
				return
			}
			if *s > math.MaxInt64/int64(time.Second) {
				continue // too large for a Duration: does not bound
			}
			finite++
			if forever || d > time.Duration(*s)*time.Second {
				t.Fatalf("(%v, %v) is not ≤ %d s", d, forever, *s)
			}
			attained = attained || d == time.Duration(*s)*time.Second
		}
		if forever != (finite == 0) {
			t.Fatalf("forever=%v with %d finite seconds in %v", forever, finite, used)
		}
		if !forever && !attained {
			t.Fatalf("finite result %v is none of the seconds in %v", d, used)
		}
	})
}

func TestPropertyNoExecuteDecisionIsTheComposition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		taints := rapid.SliceOfN(genTaint(), 0, 6).Draw(t, "taints")
		tols := rapid.SliceOfN(genToleration(), 0, 5).Draw(t, "tols")
		opts := genOpts.Draw(t, "opts")
		taintsBefore, tolsBefore := deepClone(taints), deepClone(tols)
		if got, want := NoExecuteDecision(taints, tols, opts), composedDecision(taints, tols, opts); got.Kind != want.Kind || got.Delay != want.Delay {
			t.Fatalf("NoExecuteDecision = %v, composition = %v", got, want)
		}
		if !reflect.DeepEqual(taints, taintsBefore) || !reflect.DeepEqual(tols, tolsBefore) {
			t.Fatalf("inputs mutated")
		}
	})
}

// TestPropertyDecidingTaint checks the laws of Decision.TaintIndex: the deciding taint is a
// NoExecute taint; for EvictNow no toleration tolerates it and every NoExecute taint before it
// is tolerated; for EvictAfter its first tolerating toleration has seconds that, negatives
// counted as 0, give Delay, and every NoExecute taint before it gives more (or forever); for
// Never the index is 0.
func TestPropertyDecidingTaint(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		taints := rapid.SliceOfN(genTaint(), 0, 6).Draw(t, "taints")
		tols := rapid.SliceOfN(genToleration(), 0, 5).Draw(t, "tols")
		opts := genOpts.Draw(t, "opts")
		d := NoExecuteDecision(taints, tols, opts)
		deciding, ok := d.DecidingTaint(taints)
		if d.Kind == Never {
			if ok || d.TaintIndex != 0 {
				t.Fatalf("never, yet taint %d (%v) decided", d.TaintIndex, deciding)
			}
			return
		}
		if !ok {
			t.Fatalf("%v names taint %d of %d", d, d.TaintIndex, len(taints))
		}
		if deciding.Effect != noExec {
			t.Fatalf("%v: deciding taint %v is not NoExecute", d, deciding)
		}
		// clamped returns the seconds of the first toleration of taints[i], negatives as 0,
		// and false when no toleration tolerates it or its seconds are nil.
		clamped := func(i int) (int64, bool, bool) {
			for j := range tols {
				if Tolerates(&tols[j], &taints[i], opts) {
					if s := tols[j].TolerationSeconds; s != nil {
						return max(*s, 0), true, true
					}
					return 0, false, true
				}
			}
			return 0, false, false
		}
		i := int(d.TaintIndex)
		secs, finite, tolerated := clamped(i)
		switch d.Kind {
		case EvictNow:
			if tolerated {
				t.Fatalf("evict now, yet taint %v is tolerated", deciding)
			}
		case EvictAfter:
			if !finite || time.Duration(secs)*time.Second != d.Delay {
				t.Fatalf("%v, yet taint %v is tolerated for %d s (finite %v)", d, deciding, secs, finite)
			}
		}
		for k := range i {
			if taints[k].Effect != noExec {
				continue
			}
			s, fin, tol := clamped(k)
			switch {
			case !tol:
				t.Fatalf("%v: taint %d before the deciding one is not tolerated", d, k)
			case d.Kind == EvictAfter && fin && s <= secs:
				t.Fatalf("%v: taint %d before the deciding one gives %d s, no more than %d s", d, k, s, secs)
			}
		}
	})
}

func TestPropertyWithDefaultSeconds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tols := rapid.SliceOfN(genToleration(), 0, 4).Draw(t, "tols")
		before := deepClone(tols)
		got, changed := WithDefaultSeconds(tols, DefaultSecondsOptions{})
		if !reflect.DeepEqual(tols, before) {
			t.Fatalf("input mutated")
		}
		if !reflect.DeepEqual(got[:len(tols)], tols) || changed != (len(got) > len(tols)) || len(got) > len(tols)+2 {
			t.Fatalf("WithDefaultSeconds(%v) = %v, %v", tols, got, changed)
		}
		// Afterwards both keys are covered: a second pass adds nothing.
		if _, again := WithDefaultSeconds(got, DefaultSecondsOptions{}); again {
			t.Fatalf("not idempotent on %v", got)
		}
	})
}

func TestPropertyParseDecimalMatchesUpstream(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(
			rapid.StringMatching(`-?[0-9+ ]{0,21}`),
			rapid.Map(rapid.Int64(), func(n int64) string { return strconv.FormatInt(n, 10) }),
		).Draw(t, "s")
		checkParseDecimal(t, s)
	})
}

// checkParseDecimal compares parseDecimal with upstream's two steps
// (content.IsDecimalInteger, then strconv.ParseInt).
func checkParseDecimal(t interface{ Fatalf(string, ...any) }, s string) {
	want, err := strconv.ParseInt(s, 10, 64)
	wantOK := len(content.IsDecimalInteger(s)) == 0 && err == nil
	got, ok := parseDecimal(s)
	if ok != wantOK || (ok && got != want) {
		t.Fatalf("parseDecimal(%q) = %d, %v; upstream %d, %v", s, got, ok, want, wantOK)
	}
}

func TestPropertyToleratesMatchesAPI(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tol, taint := genToleration().Draw(t, "tol"), genTaint().Draw(t, "taint")
		gate := rapid.Bool().Draw(t, "gate")
		if got, want := Tolerates(&tol, &taint, Options{ComparisonOperators: gate}), upstreamTolerates(&tol, &taint, gate); got != want {
			t.Fatalf("Tolerates(%+v, %+v, gate=%v) = %v, k8s.io/api says %v", tol, taint, gate, got, want)
		}
	})
}
