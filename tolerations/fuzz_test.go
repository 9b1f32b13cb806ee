package tolerations

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

func FuzzParseDecimal(f *testing.F) {
	for _, tc := range toleratesCases {
		f.Add(tc.tol.Value)
		f.Add(tc.taint.Value)
	}
	for _, s := range []string{"-", "-0", "00", "+5", " 5", "1e3", "０", "-9223372036854775809", "18446744073709551616"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkParseDecimal(t, s)
	})
}

func FuzzToleratesComparison(f *testing.F) {
	for _, tc := range toleratesCases {
		if tc.tol.Operator == lt || tc.tol.Operator == gt {
			f.Add(tc.tol.Operator == lt, tc.tol.Value, tc.taint.Value)
		}
	}
	f.Fuzz(func(t *testing.T, isLt bool, bound, value string) {
		op := gt
		if isLt {
			op = lt
		}
		tol := v1.Toleration{Key: "k", Operator: op, Value: bound}
		tn := v1.Taint{Key: "k", Value: value, Effect: noExec}
		got := Tolerates(&tol, &tn, Options{ComparisonOperators: true})
		b, okB := parseDecimal(bound)
		v, okV := parseDecimal(value)
		want := okB && okV && (isLt && v < b || !isLt && v > b)
		if got != want {
			t.Fatalf("%s %q vs taint %q: got %v, want %v", op, bound, value, got, want)
		}
		if Tolerates(&tol, &tn, Options{}) {
			t.Fatalf("matched with the gate off")
		}
		// Lt and Gt never both hold, and equal values match neither.
		other := tol
		other.Operator = lt
		if op == lt {
			other.Operator = gt
		}
		if got && Tolerates(&other, &tn, Options{ComparisonOperators: true}) {
			t.Fatalf("both Lt and Gt tolerate %q vs %q", bound, value)
		}
	})
}
