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
		if got, want := NoExecuteDecision(taints, tols, opts), composedDecision(taints, tols, opts); got != want {
			t.Fatalf("NoExecuteDecision = %v, composition = %v", got, want)
		}
		if !reflect.DeepEqual(taints, taintsBefore) || !reflect.DeepEqual(tols, tolsBefore) {
			t.Fatalf("inputs mutated")
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
