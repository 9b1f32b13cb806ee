package thresholds

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// benchConfig is a realistic configuration: the Linux defaults, soft memory
// and nodefs thresholds, minimum reclaims and allocatable enforcement.
func benchConfig() Config {
	return Config{
		Hard:                   map[string]string{"memory.available": "500Mi", "pid.available": "1k", "allocatableMemory.available": "200Mi"},
		Soft:                   map[string]string{"memory.available": "1Gi", "nodefs.available": "15%"},
		SoftGracePeriod:        map[string]string{"memory.available": "1m30s", "nodefs.available": "2m"},
		MinimumReclaim:         map[string]string{"memory.available": "100Mi", "nodefs.available": "1Gi"},
		MergeDefaults:          true,
		EnforceNodeAllocatable: []string{NodeAllocatablePods},
	}
}

func BenchmarkParseConfig(b *testing.B) {
	c := benchConfig()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseConfig(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseThresholdFlag(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseThresholdFlag("memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%,imagefs.available<15%"); err != nil {
			b.Fatal(err)
		}
	}
}

// benchEvaluator returns an evaluator over ten thresholds, on every signal
// but allocatableMemory.available plus a soft memory one, and per-cycle
// observations that put a given number of them under pressure.
func benchEvaluator(b *testing.B, pressured int) (*Evaluator, func(time.Time) Observations) {
	ts, err := ParseConfig(Config{
		Hard: map[string]string{
			"memory.available": "1Gi", "nodefs.available": "10%", "nodefs.inodesFree": "5%",
			"imagefs.available": "15%", "imagefs.inodesFree": "5%", "pid.available": "1000",
		},
		Soft:                   map[string]string{"memory.available": "2Gi", "allocatableMemory.available": "500Mi"},
		SoftGracePeriod:        map[string]string{"memory.available": "1m", "allocatableMemory.available": "30s"},
		MinimumReclaim:         map[string]string{"memory.available": "100Mi", "nodefs.available": "1Gi"},
		EnforceNodeAllocatable: []string{},
	})
	if err != nil {
		b.Fatal(err)
	}
	ts, _, err = WithContainerFs(ts, Layout{DedicatedImageFs: true})
	if err != nil {
		b.Fatal(err)
	}
	ts = ts[:10]
	e, err := NewEvaluator(ts, Options{})
	if err != nil {
		b.Fatal(err)
	}
	sigs := Signals()
	capacity := resource.NewQuantity(100<<30, resource.BinarySI)
	low, high := resource.NewQuantity(1, resource.BinarySI), resource.NewQuantity(90<<30, resource.BinarySI)
	return e, func(now time.Time) Observations {
		o := make(Observations, len(sigs))
		for i, s := range sigs {
			a := high
			if i < pressured {
				a = low
			}
			o[s] = Observation{Available: a, Capacity: capacity, Time: now}
		}
		return o
	}
}

func BenchmarkEvaluatorObserve(b *testing.B) {
	for _, bc := range []struct {
		name      string
		pressured int
	}{{"10thresholds/none-met", 0}, {"10thresholds/memory-met", 2}, {"10thresholds/all-met", 9}} {
		b.Run(bc.name, func(b *testing.B) {
			e, observe := benchEvaluator(b, bc.pressured)
			now := t0
			obs := []Observations{observe(now), observe(now.Add(time.Second))}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				now = now.Add(time.Second)
				e.Observe(now, obs[i%2])
				i++
			}
		})
	}
}

func BenchmarkMet(b *testing.B) {
	e, observe := benchEvaluator(b, 9)
	ts, o := e.Thresholds(), observe(t0)
	b.ReportAllocs()
	for b.Loop() {
		Met(ts, o, true)
	}
}
