package tolerations

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// benchInput builds n NoExecute taints and n tolerations where toleration i tolerates taint
// i only, listed in reverse so that every lookup scans: the worst case for the linear scans.
func benchInput(n int) ([]v1.Taint, []v1.Toleration) {
	taints := make([]v1.Taint, n)
	tols := make([]v1.Toleration, n)
	for i := range n {
		key := fmt.Sprintf("example.com/key-%d", i)
		taints[i] = v1.Taint{Key: key, Value: "v", Effect: v1.TaintEffectNoExecute}
		tols[n-1-i] = v1.Toleration{Key: key, Operator: v1.TolerationOpEqual, Value: "v", Effect: v1.TaintEffectNoExecute, TolerationSeconds: secs(int64(60 + i))}
	}
	return taints, tols
}

var benchSizes = []int{1, 5, 20}

func BenchmarkTolerates(b *testing.B) {
	for _, tc := range []struct {
		name string
		i    int // index into toleratesCases
	}{{"equal", 4}, {"exists", 0}, {"gt", 15}} {
		c := toleratesCases[tc.i]
		opts := Options{ComparisonOperators: c.gate}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if Tolerates(&c.tol, &c.taint, opts) != c.want {
					b.Fatal("wrong")
				}
			}
		})
		b.Run(tc.name+"/k8s.io-api", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if upstreamTolerates(&c.tol, &c.taint, c.gate) != c.want {
					b.Fatal("wrong")
				}
			}
		})
	}
}

func BenchmarkAnyTolerates(b *testing.B) {
	for _, n := range benchSizes {
		taints, tols := benchInput(n)
		b.Run(fmt.Sprintf("%dx%d", n, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !AnyTolerates(tols, &taints[0], Options{}) {
					b.Fatal("not tolerated")
				}
			}
		})
	}
}

func BenchmarkFindUntolerated(b *testing.B) {
	for _, n := range benchSizes {
		taints, tols := benchInput(n)
		b.Run(fmt.Sprintf("%dx%d", n, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, found := FindUntolerated(taints, tols, NoScheduleOrNoExecute, Options{}); found {
					b.Fatal("found")
				}
			}
		})
	}
}

func BenchmarkMatching(b *testing.B) {
	for _, n := range benchSizes {
		taints, tols := benchInput(n)
		b.Run(fmt.Sprintf("%dx%d", n, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, all := Matching(taints, tols, Options{}); !all {
					b.Fatal("not all")
				}
			}
		})
		b.Run(fmt.Sprintf("%dx%d/untolerated", n, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, all := Matching(taints, tols[1:], Options{}); all {
					b.Fatal("all")
				}
			}
		})
	}
}

func BenchmarkNoExecuteDecision(b *testing.B) {
	for _, n := range benchSizes {
		taints, tols := benchInput(n)
		b.Run(fmt.Sprintf("%dx%d", n, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if d := NoExecuteDecision(taints, tols, Options{}); d.Kind != EvictAfter {
					b.Fatal(d)
				}
			}
		})
	}
}

// TestZeroAllocs pins the allocation guarantees of the doc comment.
func TestZeroAllocs(t *testing.T) {
	taints, tols := benchInput(20)
	c := toleratesCases[15]
	opts := Options{ComparisonOperators: true}
	for name, f := range map[string]func(){
		"Tolerates":         func() { Tolerates(&c.tol, &c.taint, opts) },
		"AnyTolerates":      func() { AnyTolerates(tols, &taints[19], opts) },
		"FindUntolerated":   func() { FindUntolerated(taints, tols, NoScheduleOrNoExecute, opts) },
		"MinTolerationTime": func() { MinTolerationTime(tols) },
		"NoExecuteDecision": func() { NoExecuteDecision(taints, tols, opts) },
		"Matching/untolerated": func() {
			Matching(taints, tols[1:], opts)
		},
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocs per call, want 0", name, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() { Matching(taints, tols, opts) }); n != 1 {
		t.Errorf("Matching: %v allocs per call, want 1", n)
	}
}
