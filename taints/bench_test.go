package taints

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
)

func benchList(n int) []v1.Taint {
	out := make([]v1.Taint, n)
	for i := range out {
		out[i] = v1.Taint{Key: fmt.Sprintf("example.com/key-%d", i), Value: "v", Effect: Effects()[i%3]}
	}
	return out
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("example.com/dedicated=gpu:NoSchedule"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFormat(b *testing.B) {
	t := v1.Taint{Key: "example.com/dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule}
	b.ReportAllocs()
	for b.Loop() {
		_ = Format(t)
	}
}

func BenchmarkExists(b *testing.B) {
	for _, n := range []int{1, 5, 20} {
		list := benchList(n)
		missing := v1.Taint{Key: "absent", Effect: v1.TaintEffectNoExecute}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if Exists(list, &missing) {
					b.Fatal("found")
				}
			}
		})
	}
}

func BenchmarkDiff(b *testing.B) {
	for _, n := range []int{1, 5, 20} {
		a, c := benchList(n), benchList(n)
		c[0].Key = "changed"
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = Diff(a, c)
			}
		})
	}
}
